import { tokenSeconds } from "@tp/core/util/time";
import { Lru } from "./lru";
import { API_KEY_RATE, Auth, type AuthConfig, type Principal, type RevocationStore, type TokenClaims } from "@tp/core/auth";
import { ApiKeys, KeyRateLimit, type ApiKey, type ApiKeyStore, type KeyRateStore, type KeyWindow } from "@tp/core/api-keys";
import { DomainError, unauthorized } from "@tp/core/errors";
import type { User } from "@tp/core/users";

/** What a cache entry re-reads: when it last did, and the re-read under way (requests with the same credential meanwhile wait for it instead of reading again). */
interface Rechecked {
  checkedAt: number;
  rechecking?: Promise<void>;
}

interface Entry extends Rechecked {
  claims: TokenClaims;
  user?: User;
  revoked: boolean;
}

/** A key as this instance last read it, its user, and what this instance knows of its rate window. */
interface KeyEntry extends KeyWindow, Rechecked {
  key?: ApiKey;
  user?: User;
}

/**
 * Resolves a bearer token to its user without paying for signature verification and two
 * reads on every request: a verified token is remembered until it expires, and its
 * revocation and user are re-read from the table at most every `recheckMs`. A logout or a
 * user change on this instance takes effect at once; on other instances within `recheckMs`.
 * Requests with one token while its re-read is under way share that read (a burst of a client's
 * requests costs one).
 */
export class PrincipalCache {
  private readonly entries: Lru<string, Entry>;
  private readonly keyEntries: Lru<string, KeyEntry>;
  private readonly keyRate?: KeyRateLimit;

  constructor(
    private readonly config: AuthConfig,
    private readonly store: RevocationStore,
    private readonly now: () => number,
    private readonly recheckMs = 5000,
    max = 20_000,
    private readonly keys?: ApiKeyStore,
    rates?: KeyRateStore,
  ) {
    this.entries = new Lru(max);
    this.keyEntries = new Lru(max);
    if (rates) this.keyRate = new KeyRateLimit(config.apiKeyBurst ?? API_KEY_RATE.burst, config.apiKeyRatePerSecond ?? API_KEY_RATE.perSecond, rates);
  }

  /**
   * The principal of a credential: a sign-in token, or an API key (`tpk_...`), which is checked
   * against its stored hash, re-read like a token's revocation every `recheckMs`, and counts one
   * request of the key's rate window shared by every instance (429 `API_KEY_RATE_LIMITED` with
   * `retry_after`, the seconds to the window's end, when it is full).
   */
  async resolve(token: string): Promise<Omit<Principal, "token">> {
    if (ApiKeys.isKey(token)) return this.resolveKey(token);
    return this.resolveToken(token);
  }

  private async resolveKey(credential: string): Promise<Omit<Principal, "token">> {
    if (!this.keys || !this.keyRate) throw unauthorized("API keys are not accepted here");
    const id = ApiKeys.idOf(credential);
    const nowMs = this.now();
    let entry = this.keyEntries.get(id);
    if (!entry) {
      entry = { checkedAt: -Infinity, window: -1, requests: 0 };
      this.keyEntries.set(id, entry);
    }
    await this.recheck(entry, nowMs, async () => {
      const { key, user } = await this.keys!.loadWithUser(id, entry.key?.user_id);
      return { key, user };
    });
    const key = ApiKeys.check(entry.key, credential, nowMs);
    const claims: TokenClaims = {
      sub: key.user_id,
      role: entry.user?.user_type ?? "user",
      jti: `key:${key.id}`,
      iat: Math.floor(Date.parse(key.created_at) / 1000),
      exp: Math.floor(Date.parse(key.expires_at) / 1000),
    };
    const user = Auth.checkPrincipal(claims, { user: entry.user, revoked: false });
    const wait = await this.keyRate.take(key.id, entry, nowMs);
    if (wait > 0)
      throw new DomainError(429, "API_KEY_RATE_LIMITED", `This API key's rate limit is spent; try again in ${wait} s`, { retry_after: wait, key_id: key.id });
    return { user: ApiKeys.actingUser(user, key), claims, key: ApiKeys.grantOf(key) };
  }

  /** Marks a key revoked here at once (its item tells the other instances within `recheckMs`). */
  revokeKeyLocally(id: string): void {
    const entry = this.keyEntries.get(id);
    if (entry?.key) entry.key = { ...entry.key, revoked_at: entry.key.revoked_at ?? new Date(this.now()).toISOString() };
  }

  private async resolveToken(token: string): Promise<{ user: User; claims: TokenClaims }> {
    const nowMs = this.now();
    let entry = this.entries.get(token);
    if (!entry) {
      const claims = await Auth.verifyToken(this.config, token);
      entry = { claims, revoked: false, checkedAt: -Infinity };
      this.entries.set(token, entry, { ttl: Math.max(1, (claims.exp - tokenSeconds()) * 1000) });
    }
    // Expiry is on the wall clock, as tokens are issued (core/time.ts `tokenSeconds`); rechecks on the service clock.
    if (entry.claims.exp <= tokenSeconds()) {
      this.entries.delete(token);
      throw unauthorized("Token has expired");
    }
    await this.recheck(entry, nowMs, async () => {
      const { user, revoked } = await this.store.loadPrincipal(entry.claims.sub, entry.claims.jti);
      return { user, revoked };
    });
    return { user: Auth.checkPrincipal(entry.claims, entry), claims: entry.claims };
  }

  /** `load`s what `entry` caches again when it was last read more than `recheckMs` ago, one re-read at a time. */
  private async recheck<E extends Rechecked>(entry: E, nowMs: number, load: () => Promise<Partial<E>>): Promise<void> {
    if (nowMs - entry.checkedAt <= this.recheckMs) return;
    entry.rechecking ??= load()
      .then((loaded) => {
        Object.assign(entry, loaded);
        entry.checkedAt = nowMs;
      })
      .finally(() => {
        entry.rechecking = undefined;
      });
    await entry.rechecking;
  }

  /** Marks a token revoked here at once (the table item tells the other instances). */
  revokeLocally(token: string): void {
    const entry = this.entries.get(token);
    if (entry) entry.revoked = true;
  }

  /** Forces a re-read of every cached session of a user on its next request. */
  invalidateUser(userId: string): void {
    for (const entry of this.entries.values()) if (entry.claims.sub === userId) entry.checkedAt = -Infinity;
    for (const entry of this.keyEntries.values()) if (entry.key?.user_id === userId) entry.checkedAt = -Infinity;
  }
}
