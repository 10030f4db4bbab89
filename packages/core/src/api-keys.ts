import { createHash, timingSafeEqual } from "node:crypto";
import { DomainError, unauthorized } from "./errors";
import type { Actor, User } from "./users";

/*
 * API keys for bots (docs/security.md "API keys"): a user's credential with scopes, an expiry and
 * optionally a list of sessions. The secret is shown once; the table keeps its SHA-256 (the secret
 * is 256 random bits, so a plain hash cannot be searched backwards) under the key's id, which the
 * key itself carries: `tpk_<id>_<secret>`. This module holds what every request with a key goes
 * through (checks, scopes, the rate limit); creating, listing and revoking keys, which only the
 * keys' routes do, are in api-key-commands.ts, out of the other functions' bundles.
 */

/** What a key may do (`ApiKeyScope` in api-key-commands.ts describes each). */
export const API_KEY_SCOPES = ["read", "trade", "backtest", "admin"] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

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

/** How long an expired or revoked key stays listed before its item expires. */
export const KEY_KEPT_DAYS = 30;

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

/** The SHA-256 (hex) the table keeps of a key. */
export const hashOf = (key: string) => createHash("sha256").update(key).digest("hex");

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

/** Storage port of the per-key rate limit every instance shares: one counter per key per window. */
export interface KeyRateStore {
  /**
   * Counts one request of key `id` in window `window` unless `limit` are counted there already
   * (false then, nothing written); the counter may be dropped after `expiresAt` (epoch seconds).
   */
  count(id: string, window: number, limit: number, expiresAt: number): Promise<boolean>;
}

/** What an instance knows of a key's current window: its number and the requests counted there. */
export interface KeyWindow {
  window: number;
  requests: number;
}

/**
 * The per-key rate limit (docs/security.md "API keys"): at most `burst` requests of a key in each
 * fixed window of `burst / perSecond` seconds (windows aligned on the epoch), counted in the store
 * every instance shares. An instance that already knows the window full (its own requests, or a
 * refused count) answers without asking the store (time injected, so tests move it).
 */
export class KeyRateLimit {
  private readonly windowMs: number;
  constructor(
    private readonly burst: number,
    perSecond: number,
    private readonly store: KeyRateStore,
  ) {
    this.windowMs = (burst / perSecond) * 1000;
  }

  /** Counts a request of key `id` at `nowMs` (`seen`: this instance's view, updated): 0 when it may go, else the seconds to the window's end. */
  async take(id: string, seen: KeyWindow, nowMs: number): Promise<number> {
    const window = Math.floor(nowMs / this.windowMs);
    const endMs = (window + 1) * this.windowMs;
    if (seen.window !== window) {
      seen.window = window;
      seen.requests = 0;
    }
    const admitted = seen.requests < this.burst && (await this.store.count(id, window, this.burst, Math.ceil(endMs / 1000)));
    // A request counted while the window turned belongs to the old one.
    if (seen.window === window) seen.requests = admitted ? seen.requests + 1 : this.burst;
    return admitted ? 0 : Math.max(1, Math.ceil((endMs - nowMs) / 1000));
  }
}
