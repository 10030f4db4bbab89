import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import type { AuthConfig, RevocationStore } from "@tp/core/auth";
import { tokenSeconds } from "@tp/core/util/time";
import type { User } from "@tp/core/users";
import { PrincipalCache } from "./principal-cache";

const config = {
  jwtSecret: new TextEncoder().encode("principal-cache-test-secret-principal!"),
  tokenTtlSeconds: 3600,
  captchaTtlSeconds: 60,
  maxFailures: 5,
  failureWindowSeconds: 60,
  lockSeconds: 60,
  trustedAddresses: [],
} as unknown as AuthConfig;

const user = { id: "u1", username: "ann", user_type: "user", status: "active", tokens_valid_after: 0 } as unknown as User;

/** A sign-in token for `user`, as Auth.login signs one. */
const tokenOf = (jti: string) =>
  new SignJWT({ role: "user" })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(user.id)
    .setJti(jti)
    .setIssuer("trading-platform")
    .setIssuedAt(tokenSeconds())
    .setExpirationTime(tokenSeconds() + 3600)
    .sign(config.jwtSecret);

describe("PrincipalCache", () => {
  it("re-reads a token's user and revocation at most every recheckMs, a burst sharing one re-read, and sees a revocation at the next", async () => {
    let now = 1_000_000;
    let revoked = false;
    const loads: string[] = [];
    const store: RevocationStore = {
      revoke: async () => {},
      loadPrincipal: async (_userId, jti) => {
        loads.push(jti);
        await new Promise((settle) => setTimeout(settle, 10));
        return { user, revoked };
      },
    };
    const cache = new PrincipalCache(config, store, () => now, 5000);
    const token = await tokenOf("j1");
    await cache.resolve(token);
    expect(loads).toEqual(["j1"]);
    now += 5000;
    await cache.resolve(token);
    expect(loads).toEqual(["j1"]);
    // Past recheckMs: a burst of the token's requests shares one re-read.
    now += 1;
    const burst = await Promise.all(Array.from({ length: 10 }, () => cache.resolve(token)));
    expect(burst.map((p) => p.user.id)).toEqual(Array(10).fill("u1"));
    expect(loads).toEqual(["j1", "j1"]);
    revoked = true;
    now += 5001;
    await expect(cache.resolve(token)).rejects.toMatchObject({ status: 401 });
    expect(loads).toEqual(["j1", "j1", "j1"]);
  });
});
