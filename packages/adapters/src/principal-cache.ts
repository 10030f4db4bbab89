import { tokenSeconds } from "@tp/core/time";
import { Lru } from "./lru";
import { Auth, type AuthConfig, type RevocationStore, type TokenClaims } from "@tp/core/auth";
import { unauthorized } from "@tp/core/errors";
import type { User } from "@tp/core/users";

interface Entry {
  claims: TokenClaims;
  user?: User;
  revoked: boolean;
  checkedAt: number;
  /** The re-read under way: requests with the same token meanwhile wait for it instead of reading again. */
  rechecking?: Promise<void>;
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

  constructor(
    private readonly config: AuthConfig,
    private readonly store: RevocationStore,
    private readonly now: () => number,
    private readonly recheckMs = 5000,
    max = 20_000,
  ) {
    this.entries = new Lru(max);
  }

  async resolve(token: string): Promise<{ user: User; claims: TokenClaims }> {
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
    if (nowMs - entry.checkedAt > this.recheckMs) await (entry.rechecking ??= this.recheck(entry, nowMs));
    return { user: Auth.checkPrincipal(entry.claims, entry), claims: entry.claims };
  }

  private async recheck(entry: Entry, nowMs: number): Promise<void> {
    try {
      const loaded = await this.store.loadPrincipal(entry.claims.sub, entry.claims.jti);
      entry.user = loaded.user;
      entry.revoked = loaded.revoked;
      entry.checkedAt = nowMs;
    } finally {
      entry.rechecking = undefined;
    }
  }

  /** Marks a token revoked here at once (the table item tells the other instances). */
  revokeLocally(token: string): void {
    const entry = this.entries.get(token);
    if (entry) entry.revoked = true;
  }

  /** Forces a re-read of every cached session of a user on its next request. */
  invalidateUser(userId: string): void {
    for (const entry of this.entries.values()) if (entry.claims.sub === userId) entry.checkedAt = -Infinity;
  }
}
