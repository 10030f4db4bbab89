import { Buckets, type StoredPeriod } from "@tp/core/candles/buckets";
import type { ClosedBar } from "@tp/core/trading/live";
import type { FeedAppend, StreamRecord, UpdateFeed } from "@tp/core/trading/channel-ports";
import { TurnBatch } from "@tp/core/turn-batch";

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
