import { z } from "zod";
import { ValidationError, forbidden, type ValidationIssue } from "./errors";
import type { Actor } from "./users";

/**
 * The audit trail (docs/security.md "Audit trail"): one entry per command that changes state,
 * refused ones included, with who sent it, when, what and how it ended. The HTTP layer records
 * every mutating request through one middleware; other commands (a kill switch tripped by a risk
 * breach) record through `AuditTrail.record` with their own `kind`.
 */
export const AuditKind = z
  .enum([
    "order",
    "session",
    "channel",
    "risk",
    "backtest",
    "settings",
    "user",
    "broker",
    "assets",
    "key",
    "auth",
    "configuration",
    "data",
    "kill-switch",
    "webhook",
    "other",
  ])
  .describe("What the command acted on (by its route: docs/security.md lists which routes are which)");
export type AuditKind = z.infer<typeof AuditKind>;

export const AuditEntry = z
  .object({
    id: z.string().describe("The entry's id: its instant and a sequence, in the order entries are listed"),
    at: z.string().describe("When the command came in (UTC)"),
    user_id: z.string().describe("Who sent it: the user, or the owner of the key"),
    key_id: z.string().nullable().describe("The API key it came with; null for a sign-in token"),
    kind: AuditKind,
    method: z.string(),
    route: z.string().describe("The route's pattern, as the OpenAPI document names it"),
    path: z.string(),
    target_ids: z.record(z.string(), z.string()).describe("The ids the command named or made: path parameters, a body's session_id, the created resource's id"),
    session_id: z.string().nullable(),
    summary: z.record(z.string(), z.unknown()).describe("The body's fields, secrets and credentials replaced by [redacted], long values shortened"),
    request_id: z.string(),
    status: z.number().int().describe("The HTTP status it was answered with"),
    outcome: z.enum(["succeeded", "refused", "failed"]).describe("succeeded: 2xx and 3xx; refused: 4xx; failed: 5xx"),
    error_code: z.string().nullable(),
  })
  .meta({ id: "AuditEntry" });
export type AuditEntry = z.infer<typeof AuditEntry>;

/** How long entries are kept unless AUDIT_RETENTION_DAYS says otherwise: over a year, so a year's questions can be answered. */
export const AUDIT_RETENTION_DAYS = 400;
export const AUDIT_MAX_SPAN_DAYS = 31;
export const AUDIT_DEFAULT_SPAN_DAYS = 7;
const DAY_MS = 86_400_000;

export const AuditQuery = z
  .object({
    user_id: z.string().min(1).max(64).optional().describe("Whose commands (administrators: anyone's; others: their own, the default)"),
    session_id: z.string().min(1).max(128).optional(),
    kind: AuditKind.optional(),
    from: z.iso.datetime({ offset: true }).optional().describe(`From this instant (default: ${AUDIT_DEFAULT_SPAN_DAYS} days before \`to\`)`),
    to: z.iso.datetime({ offset: true }).optional().describe("Up to this instant (default: now)"),
    limit: z.coerce.number().int().min(1).max(200).default(50),
    cursor: z.string().max(200).optional().describe("`next_cursor` of the page before"),
  })
  .meta({ id: "AuditQuery" });
export type AuditQuery = z.infer<typeof AuditQuery>;

export const AuditPage = z
  .object({
    items: z.array(AuditEntry).describe("Newest first"),
    next_cursor: z.string().nullable().describe("Pass as `cursor` for the older entries; null on the last page"),
  })
  .meta({ id: "AuditPage" });
export type AuditPage = z.infer<typeof AuditPage>;

/** What the store reads: the filters resolved (instants in ms), newest first, entries before `before` (an entry id). */
export interface AuditFilter {
  userId?: string;
  sessionId?: string;
  kind?: AuditKind;
  fromMs: number;
  toMs: number;
  limit: number;
  before?: string;
}

/** Storage port for the audit trail. */
export interface AuditStore {
  append(entry: AuditEntry, expiresAt: number): Promise<void>;
  list(filter: AuditFilter): Promise<{ items: AuditEntry[]; more: boolean }>;
}

export interface AuditDeps {
  store: AuditStore;
  now: () => number;
  /** How long an entry is kept (AUDIT_RETENTION_DAYS). */
  retentionDays: number;
}

const ENTRY_ID = /^\d{13}-\d{6}-[0-9a-f]{8}$/;
let sequence = 0;

/** Which kind of command a route is, first match wins (a new feature's routes add a row). */
const KINDS: readonly [RegExp, AuditKind][] = [
  [/^\/api\/v1\/trading\/(simulation\/)?orders|^\/api\/v1\/api-test\/trade\//, "order"],
  [/kill-switch/, "kill-switch"],
  [/webhooks/, "webhook"],
  [/^\/api\/v1\/auth\/api-keys/, "key"],
  [/^\/api\/v1\/(login|logout)$/, "auth"],
  [/\/risk\/|\/risk-limits$/, "risk"],
  [/^\/api\/v1\/(channels\/)?sessions\/\{session_id\}\/(channels|alerts|config)\//, "channel"],
  [/^\/api\/v1\/(trading\/(mtf\/)?|channels\/)?sessions/, "session"],
  [/^\/api\/v1\/backtest/, "backtest"],
  [/^\/api\/v1\/settings/, "settings"],
  [/^\/api\/v1\/users/, "user"],
  [/^\/api\/v1\/(brokers|data-sources)/, "broker"],
  [/^\/api\/v1\/assets/, "assets"],
  [/^\/api\/v1\/(channel-presets|flows|strategies)/, "configuration"],
  [/^\/api\/v1\/(stock-import|stock-data|stock-calendar|data-sync|api-test)/, "data"],
];

/** Body fields whose values never reach the trail. */
const SECRET = /pass(word)?|secret|token|key|credential|authorization|signature|private/i;
const MAX_STRING = 120;
/** A URL: its scheme, any `user:password@` (left out), its host, and the rest. */
const URL_PARTS = /^([a-z][a-z0-9+.-]*:\/\/)(?:[^/?#@]*@)?([^/?#]*)(.*)$/is;
const MAX_FIELDS = 30;

const counted = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`;

function summarizeValue(value: unknown, depth: number): unknown {
  if (value === null || typeof value === "number" || typeof value === "boolean") return value;
  if (typeof value === "string") {
    // A URL keeps its scheme and host: its path and query may carry a token (Slack's and Telegram's webhook URLs do).
    const url = URL_PARTS.exec(value);
    if (url) return `${url[1]}${url[2]}${url[3] && url[3] !== "/" ? "/…" : ""}`;
    return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…` : value;
  }
  if (Array.isArray(value)) return depth > 0 ? `[${counted(value.length, "item")}]` : value.slice(0, 10).map((item) => summarizeValue(item, depth + 1));
  if (typeof value === "object")
    return depth > 0 ? `{${counted(Object.keys(value).length, "field")}}` : summarizeObject(value as Record<string, unknown>, depth + 1);
  return String(value);
}

function summarizeObject(body: Record<string, unknown>, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(body).slice(0, MAX_FIELDS)) out[name] = SECRET.test(name) ? "[redacted]" : summarizeValue(value, depth);
  return out;
}

export const AuditTrail = {
  /** The kind of a command by its route pattern. */
  kindOf(route: string): AuditKind {
    return KINDS.find(([pattern]) => pattern.test(route))?.[1] ?? "other";
  },

  /**
   * A body as the trail keeps it: top-level fields, each secret-looking one (password, secret,
   * token, key, credentials...) replaced by `[redacted]` at any depth, nested objects and arrays
   * one level deep (deeper ones counted), strings cut at 120 characters.
   */
  summarize(body: unknown): Record<string, unknown> {
    if (body === null || body === undefined) return {};
    if (typeof body !== "object" || Array.isArray(body)) return { body: summarizeValue(body, 1) };
    return summarizeObject(body as Record<string, unknown>, 0);
  },

  /** A new entry id: the instant (13 digits), this process's sequence, a random part, so ids sort as entries were recorded. */
  newId(atMs: number, random: string): string {
    sequence = (sequence + 1) % 1_000_000;
    return `${String(atMs).padStart(13, "0")}-${String(sequence).padStart(6, "0")}-${random.slice(0, 8)}`;
  },

  /** Records an entry, kept `retentionDays` (the item's ttl). */
  async record(deps: AuditDeps, entry: AuditEntry): Promise<void> {
    const expiresAt = Math.floor(Date.parse(entry.at) / 1000) + deps.retentionDays * 86_400;
    await deps.store.append(entry, expiresAt);
  },

  /**
   * A page of entries, newest first. Administrators see everyone's (or one user's with
   * `user_id`); others their own only (another's `user_id` is a 403). 422 lists every bad filter.
   */
  async list(deps: AuditDeps, actor: Actor, query: AuditQuery): Promise<AuditPage> {
    const problems: ValidationIssue[] = [];
    const toMs = query.to ? Date.parse(query.to) : deps.now();
    const fromMs = query.from ? Date.parse(query.from) : toMs - AUDIT_DEFAULT_SPAN_DAYS * DAY_MS;
    if (fromMs > toMs) problems.push({ loc: ["query", "from"], msg: "from must not be after to", type: "invalid_value" });
    else if (toMs - fromMs > AUDIT_MAX_SPAN_DAYS * DAY_MS)
      problems.push({ loc: ["query", "from"], msg: `At most ${AUDIT_MAX_SPAN_DAYS} days between from and to`, type: "too_big" });
    if (query.cursor !== undefined && !ENTRY_ID.test(query.cursor))
      problems.push({ loc: ["query", "cursor"], msg: "Not a cursor this service issued", type: "invalid_format" });
    if (problems.length) throw new ValidationError(problems);
    const admin = actor.user_type === "admin";
    if (!admin && query.user_id !== undefined && query.user_id !== actor.id) throw forbidden("You may only read your own audit entries");
    const userId = admin ? query.user_id : actor.id;
    const { items, more } = await deps.store.list({
      userId,
      sessionId: query.session_id,
      kind: query.kind,
      fromMs,
      toMs,
      limit: query.limit,
      before: query.cursor,
    });
    return { items, next_cursor: more && items.length ? items[items.length - 1]!.id : null };
  },
};
