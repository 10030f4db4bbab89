import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { DomainError, ValidationError, conflict, forbidden, notFound, parseOrThrow, unauthorized, type ValidationIssue } from "./errors";
import type { Actor, User } from "./users";

/**
 * API keys for bots (docs/security.md "API keys"): a user's credential with scopes, an expiry and
 * optionally a list of sessions. The secret is shown once; the table keeps its SHA-256 (the secret
 * is 256 random bits, so a plain hash cannot be searched backwards) under the key's id, which the
 * key itself carries: `tpk_<id>_<secret>`.
 */
export const ApiKeyScope = z
  .enum(["read", "trade", "backtest", "admin"])
  .describe(
    "read: GET requests; trade: every other command (orders, sessions, channels, risk, settings, brokers...); backtest: backtests and sweeps (reading and running); admin: everything an administrator may do (administrators only)",
  );
export type ApiKeyScope = z.infer<typeof ApiKeyScope>;

/** What the table keeps of a key: never its secret. */
export interface ApiKey {
  id: string;
  user_id: string;
  name: string;
  /** The key's first characters, `tpk_<id>`: how a user tells their keys apart. */
  prefix: string;
  /** SHA-256 (hex) of the whole key. */
  secret_hash: string;
  scopes: ApiKeyScope[];
  /** The sessions the key may act on; null: every session of its user. */
  session_ids: string[] | null;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
}

/** What a request made with a key may do: the principal carries it beside the user. */
export interface ApiKeyGrant {
  id: string;
  scopes: readonly ApiKeyScope[];
  session_ids: readonly string[] | null;
}

export const MAX_KEY_DAYS = 365;
export const DEFAULT_KEY_DAYS = 90;
/** Keys a user may hold at once (revoked and expired ones included until their item expires). */
export const MAX_KEYS_PER_USER = 50;
/** How long an expired or revoked key stays listed before its item expires. */
export const KEY_KEPT_DAYS = 30;

const DAY_MS = 86_400_000;

export const ApiKeyCreate = z
  .object({
    name: z.string().trim().min(1).max(64).describe("What the key is for (shown in the list)"),
    scopes: z
      .array(ApiKeyScope)
      .min(1)
      .max(4)
      .refine((scopes) => new Set(scopes).size === scopes.length, "Each scope at most once"),
    expires_at: z.iso.datetime({ offset: true }).optional().describe(`When the key stops working (at most ${MAX_KEY_DAYS} days ahead)`),
    expires_in_days: z
      .number()
      .int()
      .min(1)
      .max(MAX_KEY_DAYS)
      .optional()
      .describe(`Days until the key stops working, instead of expires_at (default ${DEFAULT_KEY_DAYS})`),
    session_ids: z
      .array(z.string().min(1).max(128))
      .min(1)
      .max(50)
      .optional()
      .describe("The trading sessions the key may act on; left out: every session of its user"),
  })
  .meta({ id: "ApiKeyCreate" });
export type ApiKeyCreate = z.infer<typeof ApiKeyCreate>;

export const ApiKeyResponse = z
  .object({
    id: z.string(),
    user_id: z.string(),
    name: z.string(),
    prefix: z.string().describe("The key's first characters (tpk_<id>)"),
    scopes: z.array(ApiKeyScope),
    session_ids: z.array(z.string()).nullable(),
    created_at: z.string(),
    expires_at: z.string(),
    revoked_at: z.string().nullable(),
    status: z.enum(["active", "expired", "revoked"]),
  })
  .meta({ id: "ApiKeyResponse" });
export type ApiKeyResponse = z.infer<typeof ApiKeyResponse>;

export const ApiKeyCreated = ApiKeyResponse.extend({
  key: z.string().describe("The key itself: shown this once, never again. Send it as `Authorization: Bearer <key>` or `X-API-Key: <key>`"),
}).meta({ id: "ApiKeyCreated" });
export type ApiKeyCreated = z.infer<typeof ApiKeyCreated>;

export const ApiKeyList = z.object({ items: z.array(ApiKeyResponse), total: z.number().int() }).meta({ id: "ApiKeyList" });

/** Storage port for API keys. */
export interface ApiKeyStore {
  create(key: ApiKey): Promise<void>;
  get(id: string): Promise<ApiKey | undefined>;
  /** A user's keys, newest first. */
  listByUser(userId: string): Promise<ApiKey[]>;
  /** Marks the key revoked (kept, listed, refused). */
  revoke(id: string, at: string): Promise<ApiKey | undefined>;
  /** The key and its user, in one round trip when the user is known. */
  loadWithUser(id: string, userId?: string): Promise<{ key?: ApiKey; user?: User }>;
}

export interface ApiKeyDeps {
  keys: ApiKeyStore;
  now: () => number;
}

const KEY_PATTERN = /^tpk_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

const hashOf = (key: string) => createHash("sha256").update(key).digest("hex");

const statusOf = (key: ApiKey, nowMs: number): ApiKeyResponse["status"] =>
  key.revoked_at ? "revoked" : Date.parse(key.expires_at) <= nowMs ? "expired" : "active";

export const ApiKeys = {
  /** Whether a credential is an API key rather than a sign-in token (keys begin with `tpk_`). */
  isKey(credential: string): boolean {
    return credential.startsWith("tpk_");
  },

  /** The key's id, or a 401 for anything not shaped like a key. */
  idOf(credential: string): string {
    const match = KEY_PATTERN.exec(credential);
    if (!match) throw unauthorized("Invalid API key");
    return match[1]!;
  },

  toResponse(key: ApiKey, nowMs: number): ApiKeyResponse {
    const { secret_hash: _hash, ...shown } = key;
    return { ...shown, status: statusOf(key, nowMs) };
  },

  /** Creates a key for `actor`; the answer carries the key, which nothing stores. */
  async create(deps: ApiKeyDeps, actor: Actor, input: unknown): Promise<ApiKeyCreated> {
    const body = parseOrThrow(ApiKeyCreate, input, ["body"]);
    const nowMs = deps.now();
    const problems: ValidationIssue[] = [];
    if (body.expires_at !== undefined && body.expires_in_days !== undefined)
      problems.push({ loc: ["body", "expires_in_days"], msg: "Send expires_at or expires_in_days, not both", type: "invalid_value" });
    let expiresMs = nowMs + (body.expires_in_days ?? DEFAULT_KEY_DAYS) * DAY_MS;
    if (body.expires_at !== undefined) {
      expiresMs = Date.parse(body.expires_at);
      if (expiresMs <= nowMs) problems.push({ loc: ["body", "expires_at"], msg: "The expiry must be in the future", type: "too_small" });
      else if (expiresMs > nowMs + MAX_KEY_DAYS * DAY_MS)
        problems.push({ loc: ["body", "expires_at"], msg: `The expiry must be at most ${MAX_KEY_DAYS} days ahead`, type: "too_big" });
    }
    if (problems.length) throw new ValidationError(problems);
    if (body.scopes.includes("admin") && actor.user_type !== "admin") throw forbidden("Only administrators may create keys with the admin scope");
    const existing = await deps.keys.listByUser(actor.id);
    if (existing.length >= MAX_KEYS_PER_USER)
      throw conflict("TOO_MANY_API_KEYS", `A user holds at most ${MAX_KEYS_PER_USER} keys (revoked and expired ones count until they are dropped)`);
    const id = randomBytes(8).toString("hex");
    const secret = `tpk_${id}_${randomBytes(32).toString("base64url")}`;
    const key: ApiKey = {
      id,
      user_id: actor.id,
      name: body.name,
      prefix: `tpk_${id}`,
      secret_hash: hashOf(secret),
      scopes: body.scopes,
      session_ids: body.session_ids ? [...new Set(body.session_ids)] : null,
      created_at: new Date(nowMs).toISOString(),
      expires_at: new Date(expiresMs).toISOString(),
      revoked_at: null,
    };
    await deps.keys.create(key);
    return { ...ApiKeys.toResponse(key, nowMs), key: secret };
  },

  /** The caller's keys (an administrator may name another user), newest first, without secrets. */
  async list(deps: ApiKeyDeps, actor: Actor, userId = actor.id): Promise<ApiKeyResponse[]> {
    if (userId !== actor.id && actor.user_type !== "admin") throw forbidden("You may only list your own keys");
    const nowMs = deps.now();
    return (await deps.keys.listByUser(userId)).map((key) => ApiKeys.toResponse(key, nowMs));
  },

  /** Revokes a key of the caller's (an administrator: anyone's); it stops working at once here, within the recheck interval elsewhere. */
  async revoke(deps: ApiKeyDeps, actor: Actor, id: string): Promise<ApiKeyResponse> {
    const key = await deps.keys.get(id);
    if (!key) throw notFound("API_KEY_NOT_FOUND", `API key ${id} does not exist`);
    if (key.user_id !== actor.id && actor.user_type !== "admin") throw forbidden(`API key ${id} belongs to another user`);
    const nowMs = deps.now();
    const revoked = key.revoked_at ? key : ((await deps.keys.revoke(id, new Date(nowMs).toISOString())) ?? key);
    return ApiKeys.toResponse(revoked, nowMs);
  },

  /** Whether `credential` is the key whose hash is stored (constant time). */
  matches(key: ApiKey, credential: string): boolean {
    const given = Buffer.from(hashOf(credential), "hex");
    const stored = Buffer.from(key.secret_hash, "hex");
    return given.length === stored.length && timingSafeEqual(given, stored);
  },

  /** Whether a loaded key may act now: present, matching, not revoked, not expired; every failure is a 401. */
  check(key: ApiKey | undefined, credential: string, nowMs: number): ApiKey {
    if (!key || !ApiKeys.matches(key, credential)) throw unauthorized("Invalid API key");
    if (key.revoked_at) throw unauthorized("API key has been revoked");
    if (Date.parse(key.expires_at) <= nowMs) throw unauthorized("API key has expired");
    return key;
  },

  /**
   * The user a key acts as: its own, with `user_type` `user` unless the key has the admin scope
   * (an administrator's key without it cannot do what only administrators may), and limited to
   * the key's sessions (`Actor.session_ids`, checked where sessions are owned).
   */
  actingUser(user: User, key: ApiKey): User & Actor {
    const userType = key.scopes.includes("admin") && user.user_type === "admin" ? "admin" : "user";
    return { ...user, user_type: userType, ...(key.session_ids ? { session_ids: key.session_ids } : {}) };
  },

  grantOf(key: ApiKey): ApiKeyGrant {
    return { id: key.id, scopes: key.scopes, session_ids: key.session_ids };
  },
};

/**
 * The scope a request needs, by its method and route pattern (`/api/v1/trading/orders/{order_id}`):
 * `none` for what a key may never do (manage keys, log out: the user's sign-in does that).
 * Backtests and sweeps need `backtest` for reads and commands alike; other reads `read`; every
 * other command `trade`. The admin scope passes every check.
 */
export function requiredScope(method: string, route: string): ApiKeyScope | "none" {
  if (route.startsWith("/api/v1/auth/api-keys") || route === "/api/v1/logout") return "none";
  if (route.startsWith("/api/v1/backtest/") || route === "/api/v1/backtest") return "backtest";
  return isCommand(method, route) ? "trade" : "read";
}

/**
 * The POST routes that only read or check (validations, the provider's reads, fee estimates,
 * connection tests): answered like a GET, needing `read`, and not commands for the audit trail.
 */
const QUERIES =
  /\/validate$|^\/api\/v1\/api-test\/pull\/|^\/api\/v1\/api-test\/subscription\/(subscriptions|realtime-)|^\/api\/v1\/api-test\/trade\/(today-|history-|order-detail|estimate-max-purchase|account-balance)|^\/api\/v1\/stock-calendar\/\{symbol\}\/verify$|\/fee-config\/calculate$|^\/api\/v1\/(brokers|data-sources)\/\{\w+\}\/test$|^\/api\/v1\/login$/;

/** Whether a request changes state (the audit trail records those): every POST, PUT, PATCH and DELETE but the `QUERIES`. */
export function isCommand(method: string, route: string): boolean {
  if (method !== "POST" && method !== "PUT" && method !== "PATCH" && method !== "DELETE") return false;
  return !QUERIES.test(route);
}

/** Refuses a request a key's scopes do not cover: 403 naming the scope (`required_scope`). */
export function checkScope(grant: ApiKeyGrant, method: string, route: string): void {
  const needed = requiredScope(method, route);
  if (needed === "none")
    throw new DomainError(403, "ACCESS_DENIED", "API keys cannot manage keys or log out: use a sign-in token", { required_scope: "sign-in token" });
  if (grant.scopes.includes("admin") || grant.scopes.includes(needed)) return;
  throw new DomainError(403, "ACCESS_DENIED", `This API key lacks the \`${needed}\` scope that ${method} ${route} needs (it has ${grant.scopes.join(", ")})`, {
    required_scope: needed,
  });
}

/**
 * A token bucket: `capacity` requests at once, refilled at `perSecond`; `take` answers 0 when a
 * request may go, else the seconds until one may (time injected, so tests move it).
 */
export class TokenBucket {
  private tokens: number;
  private at: number;
  constructor(
    private readonly capacity: number,
    private readonly perSecond: number,
    nowMs: number,
  ) {
    this.tokens = capacity;
    this.at = nowMs;
  }

  take(nowMs: number): number {
    this.tokens = Math.min(this.capacity, this.tokens + (Math.max(0, nowMs - this.at) / 1000) * this.perSecond);
    this.at = Math.max(this.at, nowMs);
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - this.tokens) / this.perSecond));
  }
}
