import { randomBytes } from "node:crypto";
import type { JobQueue } from "../jobs";
import { log } from "../log";
import { iso } from "../util/time";
import { WEBHOOK_QUEUE, type DeliveryMessage, type NotificationEvent, type StoredWebhook } from "./webhook-model";

/**
 * The one notification hook (docs/security.md "Webhooks", "Where events come from"): a session's
 * stream messages as they are published (`trading/channels/stream.ts` `publish`), and the workflows'
 * completions, become notification events; each goes to the queue once per enabled webhook of the
 * owner that subscribes to one of its kinds. Nothing is read or sent for a message no webhook
 * kind covers (most bars cause none); the owner's webhooks come from a short-lived cache.
 */

/** A message as the session's stream carries it (`streamMessagesOf`): the event's fields, `channel_id`, `sequence`, `event_time`. */
export interface StreamMessage {
  type: string;
  data: Record<string, unknown>;
}

export interface NotifierDeps {
  /** A user's enabled webhooks (cached briefly by the adapter: no table read per event). */
  enabledWebhooks(userId: string): Promise<StoredWebhook[]>;
  queue: JobQueue;
  now: () => number;
}

/** The hook a publisher calls: never throws (a notification that cannot be queued is logged, the publish goes on). */
export type SessionNotifier = (sessionId: string, messages: readonly StreamMessage[]) => Promise<void>;

/** A delivery id: its creation instant first, so a webhook's deliveries sort by time. */
export const newDeliveryId = (nowMs: number) => `${String(nowMs).padStart(13, "0")}-${randomBytes(6).toString("hex")}`;

const text = (value: unknown) => (value === undefined || value === null ? "" : String(value));
const channelOf = (data: Record<string, unknown>) => (data.channel_id ? ` (channel ${text(data.channel_id)})` : "");
const MISMATCHES = new Set(["VENUE_MISMATCH", "SLEEVE_MISMATCH"]);

/** The notification events of a session's stream messages; most messages are none. */
export function sessionEvents(sessionId: string, messages: readonly StreamMessage[]): NotificationEvent[] {
  const out: NotificationEvent[] = [];
  const sessionChanges = new Set<string>();
  for (const { type, data } of messages) {
    const occurred_at = typeof data.event_time === "string" ? data.event_time : "";
    const event = (kinds: NotificationEvent["kinds"], line: string): NotificationEvent => ({
      kinds,
      occurred_at,
      session_id: sessionId,
      text: line,
      data: { type, ...data },
    });
    switch (type) {
      case "order_filled":
        out.push(
          event(
            ["fill"],
            `Fill: ${text(data.side).toUpperCase()} ${text(data.quantity)} ${text(data.symbol)} at ${text(data.price)} ${text(data.currency)}${channelOf(data)}, session ${sessionId}`,
          ),
        );
        break;
      case "alert": {
        const level = data.level === "warning" || data.level === "info" ? data.level : "critical";
        const kinds: NotificationEvent["kinds"] = MISMATCHES.has(text(data.reason)) ? ["reconciliation_mismatch", `alert_${level}`] : [`alert_${level}`];
        out.push(event(kinds, `Alert (${level}, ${text(data.reason)}): ${text(data.message)}${channelOf(data)}, session ${sessionId}`));
        break;
      }
      case "risk_event":
        out.push(event(["risk_event"], `Risk (${text(data.kind)}): ${text(data.message)}${channelOf(data)}, session ${sessionId}`));
        break;
      case "kill_switch":
        // Each session the switch halts (or frees) logs it: the owner hears of it per session, with who and why.
        out.push(
          event(
            ["kill_switch"],
            `Kill switch (${text(data.scope)}) ${text(data.state)} by ${text(data.by)}${data.reason ? `: ${text(data.reason)}` : ""}, session ${sessionId}`,
          ),
        );
        break;
      case "channel_status": {
        if (typeof data.session_action === "string") {
          // A session's change writes one event per channel it moves: one notification for the session.
          const change = `${data.session_action}|${text(data.session_status)}`;
          if (sessionChanges.has(change)) break;
          sessionChanges.add(change);
          const { channel_id: _channel, status: _status, previous: _previous, ...rest } = data;
          out.push({
            kinds: ["session_status"],
            occurred_at,
            session_id: sessionId,
            text: `Session ${sessionId}: ${text(data.session_action)}, now ${text(data.session_status)}`,
            data: { type: "session_status", ...rest },
          });
        } else out.push(event(["channel_status"], `Channel ${text(data.channel_id)} of session ${sessionId}: ${text(data.previous)} -> ${text(data.status)}`));
        break;
      }
    }
  }
  return out;
}

/** The deliveries' first messages: one per event and matching webhook, the event's first kind the webhook subscribes to. */
export function deliveriesOf(userId: string, webhooks: readonly StoredWebhook[], events: readonly NotificationEvent[], nowMs: number): DeliveryMessage[] {
  const out: DeliveryMessage[] = [];
  for (const event of events) {
    for (const webhook of webhooks) {
      if (!webhook.enabled) continue;
      const kind = event.kinds.find((candidate) => candidate !== "test" && webhook.event_kinds.includes(candidate));
      if (!kind) continue;
      out.push({
        delivery_id: newDeliveryId(nowMs),
        webhook_id: webhook.id,
        user_id: userId,
        attempt: 1,
        kind,
        occurred_at: event.occurred_at || iso(nowMs),
        session_id: event.session_id,
        text: event.text,
        data: event.data,
      });
    }
  }
  return out;
}

/** Queues a user's deliveries of `events` (none without a matching webhook). Never throws. */
export async function notifyUser(deps: NotifierDeps, userId: string, events: readonly NotificationEvent[]): Promise<number> {
  if (events.length === 0) return 0;
  try {
    const messages = deliveriesOf(userId, await deps.enabledWebhooks(userId), events, deps.now());
    await Promise.all(messages.map((message) => deps.queue.send(WEBHOOK_QUEUE, message)));
    return messages.length;
  } catch (error) {
    log.error("Webhook deliveries not queued", { user_id: userId, events: events.length, error: String(error) });
    return 0;
  }
}

/** The session hook over `deps`: the stream messages' events, to the session owner's webhooks (`ownerOf`: cached, an owner never changes). */
export function sessionNotifier(deps: NotifierDeps, ownerOf: (sessionId: string) => Promise<string | undefined>): SessionNotifier {
  return async (sessionId, messages) => {
    const events = sessionEvents(sessionId, messages);
    if (events.length === 0) return;
    try {
      const owner = await ownerOf(sessionId);
      if (owner) await notifyUser(deps, owner, events);
    } catch (error) {
      log.error("Webhook deliveries not queued", { session_id: sessionId, error: String(error) });
    }
  };
}

/** A backtest's or a sweep's end as a notification event (`backtest_completed`, `sweep_completed`). */
export function workflowEnded(
  kind: "backtest_completed" | "sweep_completed",
  ended: { id: string; session_id: string; status: string; message?: string; finished_at?: string | null },
  nowMs: number,
  data: Record<string, unknown> = {},
): NotificationEvent {
  const what = kind === "backtest_completed" ? "Backtest" : "Sweep";
  return {
    kinds: [kind],
    occurred_at: ended.finished_at ?? iso(nowMs),
    session_id: ended.session_id,
    text: `${what} ${ended.id} ${ended.status}${ended.message ? `: ${ended.message}` : ""}`,
    data: { [kind === "backtest_completed" ? "backtest_id" : "sweep_id"]: ended.id, status: ended.status, ...data },
  };
}
