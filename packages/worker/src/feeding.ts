import { Buckets, type StoredPeriod } from "@tp/core/candles/buckets";
import type { ClosedBar } from "@tp/core/trading/session/live-run";
import type { FeedAppend, StreamRecord, UpdateFeed } from "@tp/core/trading/channels/ports";
import { TurnBatch } from "@tp/core/util/turn-batch";
import type { Connection, ConnectionStore, RealtimeDeps } from "@tp/core/realtime";

/** Leases taken or given up at the same time (a step's sessions are all fed at once, their saves batched: run-cache.ts). */
export const FEED_CONCURRENCY = 8;

/** A feed's key: its symbol and period. */
export const feedKey = (symbol: string, timeframe: string) => `${symbol}|${timeframe}`;

/** Bars closing together go coarser period first: an MTF director's bar before its executors'. */
export const inFeedOrder = (a: ClosedBar, b: ClosedBar) =>
  a.close_ms - b.close_ms || Buckets.seconds(b.timeframe as StoredPeriod) - Buckets.seconds(a.timeframe as StoredPeriod);

/**
 * The update feed as the worker's step writes it: the appends of the sessions it publishes side by
 * side (a step's feeds, its `channel_metrics`) go to the store as one `appendMany`, as few
 * transactions as hold them; each session's records are still stored before they are pushed.
 */
export function batchedFeed(feed: UpdateFeed): UpdateFeed {
  const appends = new TurnBatch<FeedAppend, StreamRecord[]>((items) =>
    feed.appendMany ? feed.appendMany(items) : Promise.allSettled(items.map(({ sessionId, messages, now }) => feed.append(sessionId, messages, now))),
  );
  return {
    append: (sessionId, messages, now) => appends.add({ sessionId, messages, now }),
    since: (sessionId, sinceMs, limit) => feed.since(sessionId, sinceMs, limit),
  };
}

/**
 * The connections as the worker's step looks them up: the topics of the sessions it publishes side
 * by side, each looked up after its records were stored (what a socket opened later misses, its
 * catch-up from `/updates` finds), go to the store as one `byTopics`.
 */
export function batchedConnections(connections: ConnectionStore): ConnectionStore {
  const lookups = new TurnBatch<string, Connection[]>(async (topics) => {
    if (!connections.byTopics) return Promise.allSettled(topics.map((topic) => connections.byTopic(topic)));
    const found = await connections.byTopics([...new Set(topics)]);
    return topics.map((topic) => ({ status: "fulfilled", value: found.get(topic) ?? [] }));
  });
  return {
    add: (connection) => connections.add(connection),
    remove: (connectionId) => connections.remove(connectionId),
    byTopic: (topic) => lookups.add(topic),
  };
}

/** The channels' deps with a step's update-feed appends and connection look-ups batched. */
export const batchedChannels = <C extends { feed: UpdateFeed; realtime: RealtimeDeps }>(channels: C): C => ({
  ...channels,
  feed: batchedFeed(channels.feed),
  realtime: { ...channels.realtime, connections: batchedConnections(channels.realtime.connections) },
});
