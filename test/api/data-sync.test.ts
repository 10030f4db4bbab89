import { beforeAll, describe, expect, it } from "vitest";
import { CandleBatches } from "../../packages/core/src/candles/candle-batch";
import type { TableQueue } from "../../packages/adapters/src/queues/table-queue";
import { dataSyncHandler } from "../../packages/functions/src/queue/data-sync";
import { stockImportHandler } from "../../packages/functions/src/queue/stock-import";
import { dataSyncPollHandler } from "../../packages/functions/src/schedule/data-sync-poll";
import { LocalQueueRunner } from "../../packages/local/src/queue-runner";
import { createTestApi, type TestApi } from "../support/harness";

/**
 * The data sync service over HTTP, its queue worker and its schedule against DynamoDB Local,
 * on a manual clock (Friday 2024-03-15, 21:00 UTC: the US session of that day has closed).
 */
let api: TestApi;
let token: string;
let runner: LocalQueueRunner;
let clock = Date.parse("2024-03-15T21:00:00Z");
let pinned = false;
const pushed: { connection: string; message: any }[] = [];

beforeAll(async () => {
  // Signed in on the real clock, then the clock is pinned (as the other market tests do).
  api = await createTestApi({}, { now: () => (pinned ? clock : Date.now()) });
  token = (await api.createUser()).token;
  pinned = true;
  const services = () => Promise.resolve(api.services);
  runner = new LocalQueueRunner(api.services.jobs as TableQueue, {
    "data-sync": dataSyncHandler(services),
    "stock-import": (event) => stockImportHandler(services)(event, undefined),
  });
  // A listener on the AAPL.US log stream, with a pusher that records what it would send.
  api.services.realtime.pusher = { post: async (connection, data) => (pushed.push({ connection, message: JSON.parse(data) }), "sent") };
  await api.services.realtime.connections.add({
    connection_id: "listener",
    topic: "logs:AAPL.US",
    connected_at: new Date(clock).toISOString(),
    expires_at: Math.floor(Date.now() / 1000) + 7200,
  });
});

const status = () => api.json("GET", "/api/v1/data-sync/status", 200, { token });

/** Runs the workers (the clock moving past each re-check delay) until the state settles. */
async function settle(): Promise<any> {
  for (let round = 0; round < 50; round++) {
    await runner.drain("data-sync");
    await runner.drain("stock-import");
    const current = await status();
    if (current.sync_state === "ready" || current.sync_state === "stopped") return current;
    clock += 3_000;
  }
  throw new Error("data sync did not settle");
}

describe("the data sync service", () => {
  it("starts stopped with the default lookback and no subscriptions", async () => {
    expect(await status()).toMatchObject({ sync_state: "stopped", lookback_days: 30, subscribed_symbols: [], subscription_counts: {}, last_sync_time: null });
    // No session worker has ever run against this table.
    expect((await status()).worker).toEqual({ alive: false, last_heartbeat: null, sessions: 0, feeds: [], last_bar_at: null });
  });

  it("takes a lookback of 1 to 365 days: 400 INVALID_PARAMETER outside, 422 for a non-integer", async () => {
    for (const days of [0, 366, -3]) {
      const body = await api.json("PUT", `/api/v1/data-sync/config/lookback-days?days=${days}`, 400, { token });
      expect(body.error_code).toBe("INVALID_PARAMETER");
    }
    await api.json("PUT", "/api/v1/data-sync/config/lookback-days?days=abc", 422, { token });
    await api.json("PUT", "/api/v1/data-sync/config/lookback-days?days=2.5", 422, { token });
    expect(await api.json("PUT", "/api/v1/data-sync/config/lookback-days?days=5", 200, { token })).toEqual({
      success: true,
      message: "Lookback set to 5 days",
      lookback_days: 5,
    });
    expect((await status()).lookback_days).toBe(5);
  });

  it("refuses bad symbols and bodies with a 4xx", async () => {
    expect((await api.json("POST", "/api/v1/data-sync/NOTASYMBOL/start", 400, { token, body: { session_id: "s1" } })).error_code).toBe("INVALID_SYMBOL");
    expect((await api.json("POST", "/api/v1/data-sync/ZZZZ.US/start", 404, { token, body: { session_id: "s1" } })).error_code).toBe("SYMBOL_NOT_FOUND");
    await api.json("POST", "/api/v1/data-sync/AAPL.US/start", 422, { token, body: {} });
    await api.json("GET", "/api/v1/data-sync/status", 401);
    expect((await status()).sync_state).toBe("stopped");
  });

  it("subscribing starts the service; initialization settles the calendar and backfills the lookback, then it is ready", async () => {
    const first = await api.json("POST", "/api/v1/data-sync/aapl.us/start", 200, { token, body: { session_id: "s1" } });
    expect(first).toMatchObject({ success: true, sync_state: "initializing" });
    await api.json("POST", "/api/v1/data-sync/AAPL.US/start", 200, { token, body: { session_id: "s1" } });
    const second = await api.json("POST", "/api/v1/data-sync/AAPL.US/start", 200, { token, body: { session_id: "s2" } });
    expect(second.message).toContain("AAPL.US (2 sessions)");
    expect((await status()).subscription_counts).toEqual({ "AAPL.US": 2 });

    const ready = await settle();
    expect(ready).toMatchObject({ sync_state: "ready", subscribed_symbols: ["AAPL.US"], last_sync_time: new Date(clock).toISOString() });
    expect(ready.symbols["AAPL.US"]).toMatchObject({ status: "ready", sessions: ["s1", "s2"] });
    // Five days ending on Friday 2024-03-15: Monday to Friday, every period complete.
    const verify = await api.json("POST", "/api/v1/stock-calendar/AAPL.US/verify", 200, { token, body: { start_date: "2024-03-11", end_date: "2024-03-15" } });
    expect(verify).toMatchObject({ is_ready: true, total_trading_days: 5, ready_days: 5 });
    const calendar = await api.json("GET", "/api/v1/stock-calendar/AAPL.US?start_date=2024-03-11&end_date=2024-03-15", 200, { token });
    expect(calendar.entries).toHaveLength(5);

    // The log stream saw the run, numbered in order.
    const lines = pushed.filter((p) => p.connection === "listener").map((p) => p.message);
    expect(lines.map((line) => line.sequence)).toEqual(lines.map((_, i) => i + 1));
    expect(lines.some((line) => line.type === "success" && line.message.startsWith("Backfilled"))).toBe(true);
    expect(lines.at(-1)).toMatchObject({ type: "status", message: "Ready: 1 symbol in sync" });
  });

  it("a start while running changes nothing and returns the current state", async () => {
    expect(await api.json("POST", "/api/v1/data-sync/start", 200, { token })).toEqual({
      success: true,
      message: "Data sync is already ready",
      sync_state: "ready",
    });
  });

  it("the polling gap fill finds a missing day and imports it: ready → syncing → ready", async () => {
    await api.services.candles.replace("AAPL.US", "1m", "2024-03-13", CandleBatches.fromCandles([]));
    const missing = await api.json("GET", "/api/v1/stock-calendar/AAPL.US/missing?period=1m&start_date=2024-03-11&end_date=2024-03-15", 200, { token });
    expect(missing.missing_dates).toEqual(["2024-03-13"]);
    const poll = dataSyncPollHandler(() => Promise.resolve(api.services));
    const seen = pushed.length;
    expect(await poll()).toEqual({ sync_state: "syncing", started: true });
    expect(await status()).toMatchObject({ sync_state: "syncing", message: "Syncing: filling gaps" });
    // The log stream says what the status says, as it says it.
    expect(pushed.slice(seen).map((p) => p.message)).toEqual([expect.objectContaining({ type: "status", message: "Syncing: filling gaps" })]);
    expect((await settle()).sync_state).toBe("ready");
    const statuses = pushed
      .slice(seen)
      .map((p) => p.message)
      .filter((line) => line.type === "status")
      .map((line) => line.message);
    expect(statuses).toEqual(["Syncing: filling gaps", "Ready: 1 symbol in sync"]);
    const after = await api.json("GET", "/api/v1/stock-calendar/AAPL.US/missing?period=1m&start_date=2024-03-11&end_date=2024-03-15", 200, { token });
    expect(after.missing_dates).toEqual([]);
    // Nothing to do while it is not ready.
    await api.json("POST", "/api/v1/data-sync/stop", 200, { token });
    expect(await poll()).toEqual({ sync_state: "stopped", started: false });
  });

  it("counts holds per session: one session's stop leaves the others', the subscription ends at zero", async () => {
    const one = await api.json("POST", "/api/v1/data-sync/AAPL.US/stop", 200, { token, body: { session_id: "s1" } });
    expect(one).toEqual({ success: true, message: "Session s1 released AAPL.US; 1 session still holds it", remaining_count: 1 });
    expect((await api.json("POST", "/api/v1/data-sync/AAPL.US/stop", 404, { token, body: { session_id: "s1" } })).error_code).toBe("SUBSCRIPTION_NOT_FOUND");
    const last = await api.json("POST", "/api/v1/data-sync/AAPL.US/stop", 200, { token, body: { session_id: "s2" } });
    expect(last.remaining_count).toBe(0);
    expect(last.message).toContain("subscription ended");
    expect(await status()).toMatchObject({ subscribed_symbols: [], subscription_counts: {} });
  });

  it("stop then start again: stopped → initializing → ready, with nothing subscribed at once", async () => {
    expect(await api.json("POST", "/api/v1/data-sync/stop", 200, { token })).toEqual({ success: true, message: "Data sync is already stopped" });
    expect((await api.json("POST", "/api/v1/data-sync/start", 200, { token })).sync_state).toBe("initializing");
    expect((await settle()).sync_state).toBe("ready");
  });

  it("a symbol subscribed while ready settles and the status and the stream count it; a release counts it out", async () => {
    expect(await status()).toMatchObject({ sync_state: "ready", message: "Ready: 0 symbols in sync" });
    const seen = pushed.length;
    await api.json("POST", "/api/v1/data-sync/AAPL.US/start", 200, { token, body: { session_id: "s4" } });
    expect(await settle()).toMatchObject({ sync_state: "ready", message: "Ready: 1 symbol in sync", last_sync_time: new Date(clock).toISOString() });
    const lines = pushed.slice(seen).map((p) => p.message);
    expect(lines.filter((line) => line.type === "status").map((line) => line.message)).toEqual(["Session s4 subscribed", "Ready: 1 symbol in sync"]);
    await api.json("POST", "/api/v1/data-sync/AAPL.US/stop", 200, { token, body: { session_id: "s4" } });
    expect(await status()).toMatchObject({ sync_state: "ready", message: "Ready: 0 symbols in sync", subscribed_symbols: [] });
  });

  it("a failed initialization returns to stopped and says why", async () => {
    await api.json("POST", "/api/v1/data-sync/stop", 200, { token });
    expect((await api.json("POST", "/api/v1/data-sync/700.HK/start", 200, { token, body: { session_id: "s3" } })).sync_state).toBe("initializing");
    await runner.drain("data-sync");
    const importing = await status();
    expect(importing.symbols["700.HK"]).toMatchObject({ status: "importing" });
    // The backfill's import is cancelled before it runs: initialization cannot complete.
    await api.json("DELETE", `/api/v1/stock-import/import/${importing.symbols["700.HK"].import_task_id}`, 200, { token });
    const stopped = await settle();
    expect(stopped.sync_state).toBe("stopped");
    expect(stopped.message).toMatch(/^Initialization failed: 700\.HK: Import .* cancelled/);
    expect(stopped.symbols["700.HK"]).toMatchObject({ status: "failed", sessions: ["s3"] });
    // A later start settles the symbol again.
    expect((await api.json("POST", "/api/v1/data-sync/start", 200, { token })).sync_state).toBe("initializing");
    expect((await settle()).symbols["700.HK"].status).toBe("ready");
  });
});
