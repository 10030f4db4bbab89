import { scheduledDelayMs } from "../util/backoff";
import { log } from "../log";
import { iso } from "../util/time";
import { bodyOf, headersOf } from "./webhook-format";
import {
  WEBHOOK_ATTEMPTS,
  WEBHOOK_DELIVERY_RETENTION_DAYS,
  WEBHOOK_QUEUE,
  WEBHOOK_RETRY_BASE_MS,
  WEBHOOK_RETRY_FACTOR,
  WEBHOOK_TIMEOUT_MS,
  type DeliveryDeps,
  type DeliveryMessage,
  type SendOutcome,
  type StoredDelivery,
} from "./webhook-model";
import { secretContext, urlContext } from "./webhooks";

/** SQS delays a message at most 15 minutes; the schedule stays well under it. */
const MAX_RETRY_MS = 900_000;

/** The wait before try `attempt + 1` after try `attempt` failed: 1 s, 4 s, 16 s, 64 s. */
export const retryDelayMs = (attempt: number) =>
  scheduledDelayMs(attempt, { baseMs: WEBHOOK_RETRY_BASE_MS, factor: WEBHOOK_RETRY_FACTOR, maxMs: MAX_RETRY_MS });

/** Whether a try's outcome is worth another: no answer (timeout, connection), 5xx, 408 and 429. A refused destination or another 4xx is final. */
export function retryable(outcome: SendOutcome): boolean {
  if (outcome.refused) return false;
  if (outcome.status_code === null) return true;
  return outcome.status_code >= 500 || outcome.status_code === 408 || outcome.status_code === 429;
}

const succeeded = (outcome: SendOutcome) => outcome.status_code !== null && outcome.status_code >= 200 && outcome.status_code < 300;

/**
 * One try of a delivery (the queue's handler calls it per message): sends the event to the
 * webhook's URL (checked against the egress rules again, DNS may have changed), signed for this
 * try's timestamp, records the try on the delivery's item, and on a retryable failure queues the
 * next try with the schedule's delay (`retryDelayMs`) until `WEBHOOK_ATTEMPTS` tries were made.
 * A message seen again after its try was recorded (a redelivery) sends nothing twice: it only
 * makes sure the next try is queued. A webhook deleted meanwhile, or disabled (but for a test), gets nothing.
 */
export async function deliver(deps: DeliveryDeps, message: DeliveryMessage): Promise<StoredDelivery | undefined> {
  const webhook = await deps.store.get(message.user_id, message.webhook_id);
  if (!webhook || (!webhook.enabled && message.kind !== "test")) return undefined;
  const known = await deps.store.getDelivery(message.webhook_id, message.delivery_id);
  if (known?.attempts.some((attempt) => attempt.attempt === message.attempt)) {
    if (known.status === "pending") await queueNext(deps, message);
    return known;
  }
  const nowMs = deps.now();
  const body = bodyOf(webhook.format, message, webhook.chat_id);
  const headers = headersOf(deps.secrets.open(webhook.secret_sealed, secretContext(webhook.id)), message, body, nowMs);
  const outcome = await deps.sender.post(
    deps.secrets.open(webhook.url_sealed, urlContext(webhook.id)),
    body,
    { ...headers, "X-TP-Attempt": String(message.attempt) },
    WEBHOOK_TIMEOUT_MS,
  );
  const again = !succeeded(outcome) && retryable(outcome) && message.attempt < WEBHOOK_ATTEMPTS;
  const afterMs = deps.now();
  const delivery: StoredDelivery = {
    id: message.delivery_id,
    webhook_id: message.webhook_id,
    user_id: message.user_id,
    kind: message.kind,
    status: succeeded(outcome) ? "delivered" : outcome.refused ? "refused" : again ? "pending" : "failed",
    text: message.text,
    session_id: message.session_id,
    created_at: known?.created_at ?? message.occurred_at,
    updated_at: iso(afterMs),
    next_attempt_at: again ? iso(afterMs + retryDelayMs(message.attempt)) : null,
    attempts: [
      ...(known?.attempts ?? []),
      { attempt: message.attempt, at: iso(nowMs), status_code: outcome.status_code, error: outcome.error, duration_ms: outcome.duration_ms },
    ],
    // On the wall clock, which DynamoDB's TTL and the reads' expiry check go by (a pinned or accelerated service clock would expire it at once or never).
    expires_at: Math.floor(Date.now() / 1000) + WEBHOOK_DELIVERY_RETENTION_DAYS * 86_400,
  };
  await deps.store.putDelivery(delivery);
  if (again) await queueNext(deps, message);
  else if (delivery.status !== "delivered")
    log.warn("Webhook delivery failed", { webhook_id: webhook.id, delivery_id: delivery.id, status: delivery.status, attempts: message.attempt });
  return delivery;
}

async function queueNext(deps: DeliveryDeps, message: DeliveryMessage): Promise<void> {
  await deps.queue.send(WEBHOOK_QUEUE, { ...message, attempt: message.attempt + 1 }, { delaySeconds: Math.ceil(retryDelayMs(message.attempt) / 1000) });
}
