import { z } from "zod";
import type { SecretBox } from "../brokers/secret-box";
import type { JobQueue } from "../jobs";

/**
 * Webhooks (docs/security.md "Webhooks"): a user's URLs told of what happens in their sessions,
 * backtests and sweeps, each delivery signed with the webhook's secret and retried with backoff.
 */

/** What a webhook can subscribe to (docs/security.md lists which event makes which kind). */
export const WebhookEventKind = z
  .enum([
    "alert_critical",
    "alert_warning",
    "alert_info",
    "fill",
    "session_status",
    "channel_status",
    "risk_event",
    "reconciliation_mismatch",
    "backtest_completed",
    "sweep_completed",
    "kill_switch",
  ])
  .describe(
    "alert_<level>: a session's alerts of that level; fill: an order filled; session_status: a session started, paused, resumed or stopped; channel_status: one channel's own state change; risk_event: a limit breached, a daily reset, limits changed; reconciliation_mismatch: the broker account or the simulated account disagrees with the session's books; backtest_completed / sweep_completed: one ended (completed, stopped or failed); kill_switch: the kill switch tripped or was released",
  )
  .meta({ id: "WebhookEventKind" });
export type WebhookEventKind = z.infer<typeof WebhookEventKind>;

/** A delivery's kind: a subscribed kind, or `test` (`POST …/test`). */
export type DeliveryKind = WebhookEventKind | "test";

export const WebhookFormat = z
  .enum(["json", "slack", "telegram"])
  .describe(
    'json: the event as JSON, signed; slack: a Slack incoming webhook\'s body, `{"text": ...}`; telegram: the Bot API\'s sendMessage body, `{"chat_id": ..., "text": ...}` (the URL is `https://api.telegram.org/bot<token>/sendMessage`)',
  )
  .meta({ id: "WebhookFormat" });
export type WebhookFormat = z.infer<typeof WebhookFormat>;

/** A user holds at most this many webhooks. */
export const MAX_WEBHOOKS_PER_USER = 20;
/** Tries of one delivery in all, the first included. */
export const WEBHOOK_ATTEMPTS = 5;
/** The wait before the second try; each later wait is `WEBHOOK_RETRY_FACTOR` times the one before (1 s, 4 s, 16 s, 64 s). */
export const WEBHOOK_RETRY_BASE_MS = 1000;
export const WEBHOOK_RETRY_FACTOR = 4;
/** How long one try may take, connection and answer (ms). */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** How long a delivery's record is kept (its item's ttl). */
export const WEBHOOK_DELIVERY_RETENTION_DAYS = 30;
/** The queue deliveries go through (docs/operations.md "Webhook deliveries"). */
export const WEBHOOK_QUEUE = "webhook-delivery";

/** What the table keeps of a webhook: its URL and secret sealed (a Slack or Telegram URL is itself a credential). */
export interface StoredWebhook {
  id: string;
  user_id: string;
  name: string;
  url_sealed: string;
  /** What lists show of the URL: scheme, host and the first path segment. */
  url_hint: string;
  event_kinds: WebhookEventKind[];
  format: WebhookFormat;
  chat_id: string | null;
  enabled: boolean;
  secret_sealed: string;
  created_at: string;
  updated_at: string;
  version: number;
}

const Url = z.string().trim().min(1).max(2048).describe("Where deliveries are POSTed: an http or https URL the service's egress rules allow");
const EventKinds = z
  .array(WebhookEventKind)
  .min(1)
  .max(WebhookEventKind.options.length)
  .refine((kinds) => new Set(kinds).size === kinds.length, "Each kind at most once");
const ChatId = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^(-?\d+|@\w+)$/, "A Telegram chat id (a number) or @channelusername")
  .describe("The Telegram chat to send to (format telegram only)");

export const WebhookCreate = z
  .object({
    name: z.string().trim().min(1).max(64).optional().describe("What the webhook is for (default: the URL's host)"),
    url: Url,
    event_kinds: EventKinds,
    format: WebhookFormat.default("json"),
    chat_id: ChatId.optional(),
    enabled: z.boolean().default(true),
  })
  .meta({ id: "WebhookCreate" });
export type WebhookCreate = z.infer<typeof WebhookCreate>;

export const WebhookUpdate = z
  .object({
    name: z.string().trim().min(1).max(64).optional(),
    url: Url.optional(),
    event_kinds: EventKinds.optional(),
    format: WebhookFormat.optional(),
    chat_id: ChatId.nullable().optional(),
    enabled: z.boolean().optional(),
  })
  .meta({ id: "WebhookUpdate" });
export type WebhookUpdate = z.infer<typeof WebhookUpdate>;

export const WebhookResponse = z
  .object({
    id: z.string(),
    name: z.string(),
    url: z.string().describe("The URL's scheme, host and first path segment: the rest may be a credential (Slack, Telegram) and is never shown"),
    event_kinds: z.array(WebhookEventKind),
    format: WebhookFormat,
    chat_id: z.string().nullable(),
    enabled: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "WebhookResponse" });
export type WebhookResponse = z.infer<typeof WebhookResponse>;

export const WebhookCreated = WebhookResponse.extend({
  secret: z.string().describe("The signing secret: shown in this answer only (and when rotated). Verify X-TP-Signature with it (docs/security.md)"),
}).meta({ id: "WebhookCreated" });
export type WebhookCreated = z.infer<typeof WebhookCreated>;

export const WebhookList = z.object({ items: z.array(WebhookResponse), total: z.number().int() }).meta({ id: "WebhookList" });

export const DeliveryAttempt = z
  .object({
    attempt: z.number().int().describe("1 for the first try"),
    at: z.string().describe("When the try was sent (UTC)"),
    status_code: z.number().int().nullable().describe("The receiver's HTTP status; null when none came"),
    error: z.string().nullable().describe("Why the try failed without an answer (refused destination, timeout, connection)"),
    duration_ms: z.number().int(),
  })
  .meta({ id: "WebhookDeliveryAttempt" });
export type DeliveryAttempt = z.infer<typeof DeliveryAttempt>;

export const DeliveryStatus = z
  .enum(["pending", "delivered", "failed", "refused"])
  .describe(
    "pending: a retry is scheduled; delivered: a 2xx came; failed: every try failed, or the receiver refused it (4xx other than 408 and 429); refused: the URL is not an allowed destination",
  )
  .meta({ id: "WebhookDeliveryStatus" });

export const Delivery = z
  .object({
    id: z.string().describe("The delivery's id, sent as X-TP-Delivery and `id` in a json body: the same for every try"),
    webhook_id: z.string(),
    kind: z.string().describe("The event kind, or `test`"),
    status: DeliveryStatus,
    text: z.string().describe("The event in words (what slack and telegram formats send)"),
    session_id: z.string().nullable(),
    created_at: z.string().describe("When the event happened"),
    updated_at: z.string(),
    next_attempt_at: z.string().nullable().describe("When the next try is due (pending only)"),
    attempts: z.array(DeliveryAttempt).describe("Every try, first first"),
  })
  .meta({ id: "WebhookDelivery" });
export type Delivery = z.infer<typeof Delivery>;

export const DeliveryPage = z
  .object({
    items: z.array(Delivery).describe("Newest first"),
    next_cursor: z.string().nullable().describe("Pass as `cursor` for older deliveries; null on the last page"),
  })
  .meta({ id: "WebhookDeliveryPage" });

export const DeliveryQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(500).optional().describe("`next_cursor` of the page before"),
});

export const TestDeliveryQueued = z.object({ delivery_id: z.string(), status: z.literal("queued"), message: z.string() }).meta({ id: "WebhookTestQueued" });

/** Something that happened, as a webhook is told of it. */
export interface NotificationEvent {
  /** The kinds it is, most specific first: a webhook subscribed to any of them gets it (once, as the first it subscribes to). */
  kinds: DeliveryKind[];
  /** When it happened (ISO-8601 UTC). */
  occurred_at: string;
  session_id: string | null;
  /** The event in one line (the slack and telegram text). */
  text: string;
  data: Record<string, unknown>;
}

/** A delivery's queue message: one try of one event to one webhook. */
export const DeliveryMessage = z.object({
  delivery_id: z.string(),
  webhook_id: z.string(),
  user_id: z.string(),
  attempt: z.number().int().min(1),
  kind: z.string(),
  occurred_at: z.string(),
  session_id: z.string().nullable(),
  text: z.string(),
  data: z.record(z.string(), z.unknown()),
});
export type DeliveryMessage = z.infer<typeof DeliveryMessage>;

/** A stored delivery: what the list shows, with its owner and expiry. */
export interface StoredDelivery extends Delivery {
  user_id: string;
  /** Epoch seconds the item expires at. */
  expires_at: number;
}

/** Storage port for webhooks and their deliveries. */
export interface WebhookStore {
  create(webhook: StoredWebhook): Promise<void>;
  get(userId: string, id: string): Promise<StoredWebhook | undefined>;
  listByUser(userId: string): Promise<StoredWebhook[]>;
  /** Conditional on `expectedVersion`; 409 WEBHOOK_CHANGED when another writer got there first. */
  update(webhook: StoredWebhook, expectedVersion: number): Promise<void>;
  delete(userId: string, id: string): Promise<boolean>;
  getDelivery(webhookId: string, deliveryId: string): Promise<StoredDelivery | undefined>;
  putDelivery(delivery: StoredDelivery): Promise<void>;
  /** A webhook's deliveries, newest first. */
  listDeliveries(webhookId: string, limit: number, cursor?: string): Promise<{ items: StoredDelivery[]; cursor?: string }>;
}

/** Where a URL may be reached: null when allowed, else why not (the broker tests' egress rules). */
export interface Destinations {
  refusal(host: string): Promise<string | null>;
}

/** One try's outcome, as the sender reports it. */
export interface SendOutcome {
  status_code: number | null;
  error: string | null;
  /** The destination is not allowed (checked again at every try: DNS may have changed). */
  refused: boolean;
  duration_ms: number;
}

/** Posts a body to a URL whose host it checks and pins first (docs/security.md "Outbound connections"). */
export interface WebhookSender {
  post(url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<SendOutcome>;
}

/** What the API's use cases need. */
export interface WebhookDeps {
  store: WebhookStore;
  secrets: SecretBox;
  destinations: Destinations;
  queue: JobQueue;
  now: () => number;
  /** Told when a user's webhooks change, so this process's cached list is read again. */
  onChanged?: (userId: string) => void;
}

/** What the delivery worker needs. */
export interface DeliveryDeps {
  store: WebhookStore;
  secrets: SecretBox;
  sender: WebhookSender;
  queue: JobQueue;
  now: () => number;
}
