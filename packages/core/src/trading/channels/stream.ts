import type { TradingEngine } from "../../engine/engine";
import type { EngineEvent } from "../../engine/events";
import { parseOrThrow } from "../../errors";
import { Realtime, type RealtimeDeps } from "../../realtime";
import { iso } from "../../util/time";
import type { Actor } from "../../users";
import { brief, effectiveStatus, metricsOf } from "./figures";
import type { Delivered } from "./commands";
import type { StreamListener, StreamRecord, UpdateFeed } from "./ports";
import { UpdatesQuery } from "./schemas";
import { owned, type SessionDeps, type StoredSession } from "../session/sessions";

/**
 * A session's socket (docs/channels.md): what engine events put on it, the feed that stores every
 * message pushed, and `/updates`, which reads the feed back.
 */

/** `channel_update` data of a channel. */
function channelUpdate(engine: TradingEngine, session: { status: string }, channelId: string, cause: "status_change" | "fill", sequence: number) {
  const view = engine.view(channelId);
  return { channel_id: channelId, status: effectiveStatus(session, view.state), metrics: brief(view), cause, sequence };
}

/**
 * What a batch of engine events puts on the session's socket: each event as `{type, data}`, and
 * after every channel status change and every fill a `channel_update` with the channel's figures
 * as of the end of the batch.
 */
export function streamMessagesOf(engine: TradingEngine, session: Pick<StoredSession, "status">, events: readonly EngineEvent[]) {
  const out: { type: string; data: Record<string, unknown> }[] = [];
  for (const event of events) {
    out.push({ type: event.type, data: { ...event.data, channel_id: event.channel_id, sequence: event.sequence, event_time: iso(event.time) } });
    if (event.channel_id && (event.type === "channel_status" || event.type === "order_filled")) {
      // A session's start, pause, resume or stop names the status it moved the session to: the
      // worker that pushes it may not have read the session's new status yet.
      const status = typeof event.data.session_status === "string" ? { status: event.data.session_status } : session;
      out.push({
        type: "channel_update",
        data: channelUpdate(engine, status, event.channel_id, event.type === "order_filled" ? "fill" : "status_change", event.sequence),
      });
    }
  }
  return out;
}

/** `channel_metrics` of every channel (the worker publishes them periodically). */
export function metricsMessagesOf(engine: TradingEngine, at: number) {
  return engine.channelIds().map((id) => ({ type: "channel_metrics", data: { ...metricsOf(engine, id, at) } as Record<string, unknown> }));
}

export interface StreamDeps {
  feed: UpdateFeed;
  realtime: RealtimeDeps;
  now: () => number;
  /** The notification hook (webhooks), where the runtime wires it. */
  notify?: StreamListener;
}

/**
 * Stores messages in the session's feed, then pushes the stored records to its socket: what
 * `/updates` returns is exactly what was pushed. Then tells the notification hook (the one place
 * a session's events reach the webhooks: docs/security.md "Webhooks").
 */
export async function publish(deps: StreamDeps, sessionId: string, messages: { type: string; data: Record<string, unknown> }[]): Promise<StreamRecord[]> {
  if (messages.length === 0) return [];
  const records = await deps.feed.append(sessionId, messages, deps.now());
  await Realtime.publishMany(deps.realtime, `session:${sessionId}`, records);
  if (deps.notify) await deps.notify(sessionId, messages);
  return records;
}

/** Publishes what a delivery of commands produced. */
export async function publishDelivered(deps: StreamDeps, session: StoredSession, delivered: Delivered) {
  await publish(deps, session.id, streamMessagesOf(delivered.engine, session, delivered.events));
}

/**
 * The records pushed on the session's socket after `since` (a reconnecting client's last seen
 * timestamp). Every session has a stream (a backtest session's carries `backtest_progress`), so
 * this needs no channels.
 */
export async function updates(deps: StreamDeps & SessionDeps, actor: Actor, sessionId: string, input: unknown) {
  const query = parseOrThrow(UpdatesQuery, input, ["query"]);
  await owned(deps, actor, sessionId);
  const since = query.since !== undefined ? Date.parse(query.since) : null;
  const records = await deps.feed.since(sessionId, since, query.limit + 1);
  const page = records.slice(0, query.limit);
  return {
    session_id: sessionId,
    updates: page,
    count: page.length,
    last_timestamp: page.length > 0 ? page[page.length - 1]!.timestamp : since !== null ? iso(since) : null,
    has_more: records.length > query.limit,
  };
}
