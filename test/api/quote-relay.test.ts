import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DynamoLeaseStore } from "../../packages/adapters/src/stores/lease-store";
import { SessionWorker } from "../../packages/worker/src/session-worker";
import { type FakeLongport, startFakeLongport } from "../support/fake-longport/index";
import { createTestApi, type TestApi } from "../support/harness";

/**
 * One quote connection per LongPort account (issue 35): the worker task holding the quote lease
 * opens it; a function (`QUOTE_CONNECTION=relay`) and another worker task ask it through the
 * table, and the other task's session is fed the bars it publishes. The fake refuses a second
 * quote connection, as LongPort does.
 */
let fake: FakeLongport;
const TABLE = `test-${randomUUID()}`;
let clock = Date.parse("2024-03-15T14:00:00Z");
let owner: TestApi;
let functions: TestApi;
let other: TestApi;
const workers: SessionWorker[] = [];

const env = (mode: string) => ({
  TABLE_NAME: TABLE,
  QUOTE_CONNECTION: mode,
  LONGPORT_HTTP_URL: fake.httpUrl,
  LONGPORT_QUOTE_WS_URL: fake.quoteWsUrl,
  LONGPORT_TRADE_WS_URL: fake.tradeWsUrl,
});

beforeAll(async () => {
  fake = await startFakeLongport({ start: clock, quoteRateLimit: null, quoteConnectionLimit: 1 });
  // Two worker tasks and the functions, each its own composition of the services, on one table.
  owner = await createTestApi(env("lease"), { now: () => clock });
  other = await createTestApi(env("lease"), { now: () => clock });
  functions = await createTestApi(env("relay"), { now: () => clock });
  const { appKey, appSecret, accessToken } = fake.credentials;
  await owner.json("PUT", "/api/v1/settings/data-source", 200, {
    token: await owner.adminToken(),
    body: { type: "longport", provider_config: { app_key: appKey, app_secret: appSecret, access_token: accessToken } },
  });
});
afterAll(async () => {
  for (const worker of workers) await worker.stop();
  await fake?.close();
});

const worker = async (api: TestApi, taskId: string) => {
  const started = new SessionWorker(api.services, { tickMs: 1e9, refreshMs: 1e9, beatMs: 0, taskId });
  workers.push(started);
  await started.start();
  return started;
};

describe("one quote connection per LongPort account", () => {
  it("is opened by the worker task that holds the quote lease; a function and another task are answered through it", async () => {
    await worker(owner, "task-a");
    expect(owner.services.providers.ownsQuoteConnection()).toBe(true);
    await worker(other, "task-b");
    expect(other.services.providers.ownsQuoteConnection()).toBe(false);
    const token = await functions.adminToken();
    const pulled = await functions.json("POST", "/api/v1/api-test/pull/quote", 200, { token, body: { symbols: "AAPL.US" } });
    expect(pulled.data[0]).toMatchObject({ symbol: "AAPL.US", prev_close: "190" });
    const fromTask = await (await other.services.marketData()).staticInfo(["AAPL.US"]);
    expect(fromTask[0]).toMatchObject({ symbol: "AAPL.US" });
    expect(fake.openSockets("quote")).toBe(1);
  });

  it("feeds another task's session the bars the holder publishes", async () => {
    const [a, b] = workers;
    const token = await other.adminToken();
    const session = await other.json("POST", "/api/v1/trading/sessions", 201, {
      token,
      body: {
        session_name: "fed through the relay",
        trading_mode: "simulation",
        asset_mode: "simulated",
        initial_capital: "100000",
        config: { strategy_name: "ma_crossover", parameters: { fast_period: 50, slow_period: 100 }, symbols: ["AAPL.US"], timeframe: "1m", venue: "bars" },
      },
    });
    await other.json("POST", `/api/v1/trading/sessions/${session.id}/start`, 200, { token });
    // Task b takes the session (task a has none of its own) and asks for its feed (its heartbeat lists it); a subscribes it at its next refresh.
    await b!.refresh();
    await b!.tick();
    await a!.refresh();
    expect((await new DynamoLeaseStore(other.services.db).leases()).find((lease) => lease.session_id === session.id)?.owner).toBe("task-b");
    // (Quiet bars' saves are held up to the fifth: docs/session-worker.md "Quiet bars".)
    for (let minute = 0; minute < 6; minute++) {
      const open = clock;
      for (const offset of [5_000, 30_000]) {
        clock = open + offset;
        fake.clock.set(clock);
        fake.pushTrade("AAPL.US", { price: 190 + minute / 10, volume: 100 });
      }
      await new Promise((resolve) => setTimeout(resolve, 60));
      clock = open + 62_000;
      fake.clock.set(clock);
      await a!.tick();
      await b!.tick();
      clock = open + 60_000;
    }
    const run = (await other.services.trading.sessions.runs.get(session.id))!;
    expect(run.progress?.bars).toBeGreaterThanOrEqual(5);
    expect(fake.openSockets("quote")).toBe(1);
  });

  it("moves with the tasks' heartbeats: the lease is kept by its live holder, taken from a dead one, and free once given up", async () => {
    const leases = new DynamoLeaseStore(other.services.db);
    const live = (...tasks: string[]) => new Set(tasks);
    expect(await leases.holdQuoteLease("task-a", live("task-a", "task-b"))).toBe(true);
    expect(await leases.holdQuoteLease("task-b", live("task-a", "task-b"))).toBe(false);
    // Task a's heartbeat ran out: b takes the lease.
    expect(await leases.holdQuoteLease("task-b", live("task-b"))).toBe(true);
    expect(await leases.holdQuoteLease("task-a", live("task-a", "task-b"))).toBe(false);
    await leases.releaseQuoteLease("task-b");
    expect(await leases.holdQuoteLease("task-c", live("task-b", "task-c"))).toBe(true);
  });
});
