import { createHash, randomUUID } from "node:crypto";
import { GetCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../packages/adapters/src/dynamo/db";
import { DynamoKeyRateStore } from "../../packages/adapters/src/stores/auth-stores";
import { KeyRateLimit, type KeyWindow } from "../../packages/core/src/api-keys";
import { ManualClock } from "../../packages/core/src/provider/clock";
import { Realtime } from "../../packages/core/src/realtime";
import { createTestApi, type TestApi } from "../support/harness";

/** Tuesday 13 April 2027, 10:35:30 in New York: the US regular session (after real time, so sign-in tokens issued now stay valid). */
const US_OPEN = "2027-04-13T14:35:30Z";
const DAY_MS = 86_400_000;
const KEYS = "/api/v1/auth/api-keys";
const PAPER_ORDER = { symbol: "AAPL.US", side: "buy", quantity: "1" };

const clock = new ManualClock(US_OPEN);
let api: TestApi;
let user: { id: string; token: string };

beforeAll(async () => {
  api = await createTestApi({}, { now: () => clock.now() });
  user = await api.createUser();
});

const sessionBody = (name: string) => ({
  session_name: name,
  trading_mode: "simulation",
  asset_mode: "simulated",
  initial_capital: 100000,
  tradable_symbols: ["aapl.us"],
  config: { strategy_name: "ma_crossover", parameters: { fast_period: 5 } },
});

/** A new key of `token`'s user with `scopes` (and whatever else `extra` sets); its secret and id. */
async function createKey(scopes: string[], extra: Record<string, unknown> = {}, token = user.token): Promise<{ key: string; id: string }> {
  const created = await api.json("POST", KEYS, 201, { token, body: { name: `bot ${scopes.join("+")}`, scopes, ...extra } });
  return { key: created.key, id: created.id };
}

describe("API keys", () => {
  it("shows the key once, lists it without its secret, and stores only the secret's SHA-256", async () => {
    const created = await api.json("POST", KEYS, 201, { token: user.token, body: { name: "reporting bot", scopes: ["read"], expires_in_days: 30 } });
    expect(created.key).toMatch(/^tpk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(created).toMatchObject({
      name: "reporting bot",
      user_id: user.id,
      prefix: `tpk_${created.id}`,
      scopes: ["read"],
      session_ids: null,
      status: "active",
      revoked_at: null,
      created_at: new Date(clock.now()).toISOString(),
      expires_at: new Date(clock.now() + 30 * DAY_MS).toISOString(),
    });
    expect(created.key.startsWith(created.prefix)).toBe(true);

    const listed = await api.json("GET", KEYS, 200, { token: user.token });
    const mine = listed.items.find((item: { id: string }) => item.id === created.id);
    const { key: _shown, ...withoutKey } = created;
    expect(mine).toEqual(withoutKey);
    expect(JSON.stringify(listed)).not.toContain(created.key.slice(21));

    // The stored item: the hash, never the key or its secret part.
    const stored = await api.services.db.client.send(
      new QueryCommand({
        TableName: api.services.db.tableName,
        KeyConditionExpression: "pk = :pk",
        ExpressionAttributeValues: { ":pk": `APIKEY#${created.id}` },
      }),
    );
    expect(stored.Items).toHaveLength(1);
    const item = stored.Items![0]!;
    expect(item.secret_hash).toBe(createHash("sha256").update(created.key).digest("hex"));
    expect(JSON.stringify(item)).not.toContain(created.key.slice(21));
    // Kept 30 days past its expiry, then dropped by DynamoDB.
    expect(item.ttl).toBe(Math.floor((clock.now() + 60 * DAY_MS) / 1000));
  });

  it("refuses an order from a read-only key with 403 naming the trade scope, and lets a trade key order", async () => {
    const reader = await createKey(["read"]);
    for (const [path, body] of [
      ["/api/v1/trading/simulation/orders", PAPER_ORDER],
      ["/api/v1/trading/orders", { session_id: "any", channel_id: "main", symbol: "AAPL.US", side: "buy", quantity: "1" }],
    ] as const) {
      const refused = await api.json("POST", path, 403, { token: reader.key, body });
      expect(refused.error_code).toBe("ACCESS_DENIED");
      expect(refused.required_scope).toBe("trade");
      expect(refused.detail).toContain("`trade` scope");
    }
    for (const path of ["/api/v1/trading/orders/o-1/cancel"]) {
      expect((await api.json("POST", path, 403, { token: reader.key })).required_scope).toBe("trade");
    }
    expect((await api.json("PUT", "/api/v1/trading/orders/o-1", 403, { token: reader.key, body: { quantity: "2" } })).required_scope).toBe("trade");
    // What the key may do: read.
    expect((await api.json("GET", "/api/v1/me", 200, { token: reader.key })).id).toBe(user.id);

    const trader = await createKey(["trade"]);
    const order = await api.json("POST", "/api/v1/trading/simulation/orders", 201, { token: trader.key, body: PAPER_ORDER });
    expect(order).toMatchObject({ account_id: user.id, status: "filled", quantity: "1" });
    // A trade key without read cannot read, and backtests need their own scope.
    expect((await api.json("GET", "/api/v1/me", 403, { token: trader.key })).required_scope).toBe("read");
    expect((await api.json("GET", "/api/v1/backtest/sweeps/s-1", 403, { token: trader.key })).required_scope).toBe("backtest");
  });

  it("takes the key as X-API-Key as well as a bearer", async () => {
    const reader = await createKey(["read"]);
    const answer = await api.request("GET", "/api/v1/me", { headers: { "X-API-Key": reader.key } });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { id: string }).id).toBe(user.id);
  });

  it("refuses a revoked key and an expired key with 401, and a wrong secret for a real id", async () => {
    const revoked = await createKey(["read"]);
    await api.json("GET", "/api/v1/me", 200, { token: revoked.key });
    const answer = await api.json("DELETE", `${KEYS}/${revoked.id}`, 200, { token: user.token });
    expect(answer).toMatchObject({ id: revoked.id, status: "revoked", revoked_at: new Date(clock.now()).toISOString() });
    expect((await api.json("GET", "/api/v1/me", 401, { token: revoked.key })).detail).toBe("API key has been revoked");

    const expiring = await createKey(["read"], { expires_at: new Date(clock.now() + DAY_MS).toISOString() });
    await api.json("GET", "/api/v1/me", 200, { token: expiring.key });
    clock.advance(DAY_MS + 10_000);
    try {
      expect((await api.json("GET", "/api/v1/me", 401, { token: expiring.key })).detail).toBe("API key has expired");
      const listed = await api.json("GET", KEYS, 200, { token: user.token });
      expect(listed.items.find((item: { id: string }) => item.id === expiring.id).status).toBe("expired");
    } finally {
      clock.set(US_OPEN);
    }

    const forged = `${revoked.key.slice(0, 21)}${"A".repeat(43)}`;
    expect((await api.json("GET", "/api/v1/me", 401, { token: forged })).detail).toBe("Invalid API key");
    expect((await api.json("GET", "/api/v1/me", 401, { token: "tpk_not-a-key" })).detail).toBe("Invalid API key");
  });

  it("limits a key with sessions to those: the others are 403 and the list shows only its own", async () => {
    const allowed = await api.json("POST", "/api/v1/trading/sessions", 201, { token: user.token, body: sessionBody("allowed") });
    const other = await api.json("POST", "/api/v1/trading/sessions", 201, { token: user.token, body: sessionBody("other") });
    const limited = await createKey(["read", "trade"], { session_ids: [allowed.id] });
    await api.json("GET", `/api/v1/trading/sessions/${allowed.id}`, 200, { token: limited.key });
    const refused = await api.json("GET", `/api/v1/trading/sessions/${other.id}`, 403, { token: limited.key });
    expect(refused.detail).toContain("limited to other sessions");
    await api.json("POST", `/api/v1/trading/sessions/${other.id}/start`, 403, { token: limited.key });
    await api.json("GET", "/api/v1/trading/sessions/no-such-session", 404, { token: limited.key });
    const listed = await api.json("GET", "/api/v1/trading/sessions", 200, { token: limited.key });
    expect(listed.map((session: { id: string }) => session.id)).toEqual([allowed.id]);
    // The user's own sign-in still sees both.
    expect((await api.json("GET", "/api/v1/trading/sessions", 200, { token: user.token })).length).toBeGreaterThanOrEqual(2);
  });

  it("lets a key watch only its sessions' streams, and only with the read scope", async () => {
    const allowed = await api.json("POST", "/api/v1/trading/sessions", 201, { token: user.token, body: sessionBody("watched") });
    const other = await api.json("POST", "/api/v1/trading/sessions", 201, { token: user.token, body: sessionBody("not watched") });
    const reader = await createKey(["read"], { session_ids: [allowed.id] });
    const backtester = await createKey(["backtest"]);
    const connect = (sessionId: string, token: string) =>
      Realtime.connect(api.services.realtime, { connectionId: `c-${randomUUID()}`, path: `/ws/trading/${sessionId}`, query: { token } });

    expect(await connect(allowed.id, reader.key)).toMatchObject({ topic: `session:${allowed.id}`, user_id: user.id });
    await expect(connect(other.id, reader.key)).rejects.toMatchObject({ status: 403, message: expect.stringContaining("limited to other sessions") });
    await expect(connect(allowed.id, backtester.key)).rejects.toMatchObject({ status: 403, extra: { required_scope: "read" } });
    // The user's sign-in token watches either.
    expect(await connect(other.id, user.token)).toMatchObject({ topic: `session:${other.id}` });
  });

  it("grants the admin scope to administrators only, and a key never manages keys", async () => {
    const refused = await api.json("POST", KEYS, 403, { token: user.token, body: { name: "root", scopes: ["admin"] } });
    expect(refused.detail).toContain("Only administrators");
    const admin = await api.adminToken();
    const adminKey = await createKey(["admin"], {}, admin);
    expect((await api.json("GET", "/api/v1/users", 200, { token: adminKey.key })).length).toBeGreaterThanOrEqual(2);
    // An administrator's key without the admin scope acts as a plain user.
    const plain = await createKey(["read"], {}, admin);
    await api.json("GET", "/api/v1/users", 403, { token: plain.key });

    const reader = await createKey(["read", "trade"]);
    expect((await api.json("POST", KEYS, 403, { token: reader.key, body: { name: "child", scopes: ["read"] } })).required_scope).toBe("sign-in token");
    await api.json("GET", KEYS, 403, { token: adminKey.key });
    await api.json("DELETE", `${KEYS}/${reader.id}`, 403, { token: reader.key });
  });

  it("answers 422 listing every problem of a bad key request, and 404 or 403 for a key not the caller's", async () => {
    const bad = await api.json("POST", KEYS, 422, { token: user.token, body: { name: "", scopes: ["read", "read"], expires_in_days: 400, session_ids: [] } });
    expect(bad.detail.map((issue: { loc: string[] }) => issue.loc.join(".")).sort()).toEqual([
      "body.expires_in_days",
      "body.name",
      "body.scopes",
      "body.session_ids",
    ]);
    const unknownScope = await api.json("POST", KEYS, 422, { token: user.token, body: { name: "x", scopes: ["fly"] } });
    expect(unknownScope.detail.map((issue: { loc: string[] }) => issue.loc.join("."))).toEqual(["body.scopes.0"]);
    const both = await api.json("POST", KEYS, 422, {
      token: user.token,
      body: { name: "x", scopes: ["read"], expires_in_days: 5, expires_at: new Date(clock.now() - 1000).toISOString() },
    });
    expect(both.detail.map((issue: { loc: string[] }) => issue.loc.join(".")).sort()).toEqual(["body.expires_at", "body.expires_in_days"]);
    await api.json("DELETE", `${KEYS}/0000000000000000`, 404, { token: user.token });
    const stranger = await api.createUser();
    const theirs = await createKey(["read"], {}, stranger.token);
    await api.json("DELETE", `${KEYS}/${theirs.id}`, 403, { token: user.token });
  });
});

describe("API key rate limits", () => {
  /** A store that counts its writes, over the table. */
  const countingStore = (db: Db) => {
    const store = new DynamoKeyRateStore(db);
    const counted = { writes: 0 };
    return Object.assign(counted, {
      count: (...args: Parameters<DynamoKeyRateStore["count"]>) => {
        counted.writes++;
        return store.count(...args);
      },
    });
  };
  const fresh = (): KeyWindow => ({ window: -1, requests: 0 });

  it("two instances sharing the table refuse together the request past the limit in a window, and a new window admits again", async () => {
    // 5 requests a window of 5 s (1 a second); the clock starts on a window's first instant.
    const start = Math.ceil(Date.parse(US_OPEN) / 5000) * 5000;
    const window = start / 5000;
    const [storeA, storeB] = [countingStore(api.services.db), countingStore(api.services.db)];
    const [a, b] = [new KeyRateLimit(5, 1, storeA), new KeyRateLimit(5, 1, storeB)];
    const [seenA, seenB] = [fresh(), fresh()];
    const taken: number[] = [];
    for (const [limit, seen] of [
      [a, seenA],
      [b, seenB],
      [a, seenA],
      [b, seenB],
      [a, seenA],
    ] as const)
      taken.push(await limit.take("k1", seen, start + 100));
    expect(taken).toEqual([0, 0, 0, 0, 0]);
    // Each instance admitted fewer than 5 itself: the shared counter refuses the sixth, on either.
    expect(await a.take("k1", seenA, start + 1200)).toBe(4);
    expect(await b.take("k1", seenB, start + 4100)).toBe(1);
    expect([storeA.writes, storeB.writes]).toEqual([4, 3]);
    // Knowing the window full, neither writes again in it.
    expect(await a.take("k1", seenA, start + 4999)).toBe(1);
    expect(await b.take("k1", seenB, start + 2000)).toBe(3);
    expect([storeA.writes, storeB.writes]).toEqual([4, 3]);
    const item = await api.services.db.client.send(new GetCommand({ TableName: api.services.db.tableName, Key: { pk: "APIKEY#k1#RATE", sk: String(window) } }));
    expect(item.Item).toMatchObject({ requests: 5, ttl: (start + 5000) / 1000, _type: "ApiKeyRate" });
    // Another key has its own counter.
    expect(await b.take("k2", fresh(), start + 4200)).toBe(0);

    // The next window admits 5 again, counted afresh.
    expect(await b.take("k1", seenB, start + 5000)).toBe(0);
    expect(await a.take("k1", seenA, start + 5001)).toBe(0);
    expect(seenA).toEqual({ window: window + 1, requests: 1 });

    // Requests arriving together on both instances: exactly the limit is admitted.
    const together = await Promise.all(
      Array.from({ length: 12 }, (_, index) => (index % 2 ? a.take("k3", seenA, start + 10_000) : b.take("k3", seenB, start + 10_000))),
    );
    expect(together.filter((wait) => wait === 0)).toHaveLength(5);
    expect(together.filter((wait) => wait === 5)).toHaveLength(7);
  });

  it("answers 429 API_KEY_RATE_LIMITED with Retry-After past the key's requests in a window on either of two instances; another key and the sign-in token are unaffected", async () => {
    // 3 requests a window of 6 s; two apps on one table, as two Lambda instances.
    const start = Math.ceil(Date.parse(US_OPEN) / 6000) * 6000;
    const limitedClock = new ManualClock(new Date(start).toISOString());
    const env = { API_KEY_BURST: "3", API_KEY_RATE_PER_SECOND: "0.5", TABLE_NAME: `test-${randomUUID()}` };
    const one = await createTestApi(env, { now: () => limitedClock.now() });
    const two = await createTestApi(env, { now: () => limitedClock.now() });
    const owner = await one.createUser();
    const busy = await one.json("POST", KEYS, 201, { token: owner.token, body: { name: "busy bot", scopes: ["read"] } });
    const other = await one.json("POST", KEYS, 201, { token: owner.token, body: { name: "quiet bot", scopes: ["read"] } });
    for (const instance of [one, two, one]) await instance.json("GET", "/api/v1/me", 200, { token: busy.key });
    limitedClock.advance(1000);
    for (const instance of [two, one]) {
      const refused = await instance.request("GET", "/api/v1/me", { token: busy.key });
      expect(refused.status).toBe(429);
      expect(refused.headers.get("Retry-After")).toBe("5");
      expect(await refused.json()).toMatchObject({ error_code: "API_KEY_RATE_LIMITED", retry_after: 5, key_id: busy.id });
    }
    // Another key of the same user, and the user's sign-in token, are not limited by it.
    for (const instance of [one, two]) {
      await instance.json("GET", "/api/v1/me", 200, { token: other.key });
      await instance.json("GET", "/api/v1/me", 200, { token: owner.token });
    }
    // The next window serves the key again, up to 3 requests across both.
    limitedClock.advance(5000);
    for (const instance of [two, one, two]) await instance.json("GET", "/api/v1/me", 200, { token: busy.key });
    expect((await one.json("GET", "/api/v1/me", 429, { token: busy.key })).retry_after).toBe(6);
  });
});

describe("API keys limited to sessions, on backtests", () => {
  it("reaches the backtests of its sessions only, and starts none on another", async () => {
    const backtestApi = await createTestApi({}, { workflows: { start: async () => undefined } });
    const owner = await backtestApi.createUser();
    const session = (name: string) =>
      backtestApi.json("POST", "/api/v1/trading/sessions", 201, {
        token: owner.token,
        body: { session_name: name, trading_mode: "backtest", asset_mode: "simulated", initial_capital: 100000, config: {} },
      });
    const [allowed, other] = [await session("allowed"), await session("other")];
    const request = (sessionId: string) => ({
      session_id: sessionId,
      strategy_name: "ma_crossover",
      strategy_config: { fast_period: 10, slow_period: 30 },
      symbols: ["AAPL.US"],
      start_date: "2024-01-01",
      end_date: "2024-03-31",
      initial_capital: 100000,
    });
    const theirs = await backtestApi.json("POST", "/api/v1/backtest/start", 200, { token: owner.token, body: request(other.id) });
    const { key } = await backtestApi.json("POST", KEYS, 201, {
      token: owner.token,
      body: { name: "tester", scopes: ["backtest"], session_ids: [allowed.id] },
    });
    const mine = await backtestApi.json("POST", "/api/v1/backtest/start", 200, { token: key, body: request(allowed.id) });
    await backtestApi.json("GET", `/api/v1/backtest/${mine.backtest_id}/progress`, 200, { token: key });
    const refused = await backtestApi.json("GET", `/api/v1/backtest/${theirs.backtest_id}/progress`, 403, { token: key });
    expect(refused.detail).toContain("limited to other sessions");
    await backtestApi.json("POST", "/api/v1/backtest/start", 403, { token: key, body: request(other.id) });
  });
});
