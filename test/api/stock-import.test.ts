import { beforeAll, describe, expect, it } from "vitest";
import { Candles, StoredPeriods } from "../../packages/core/src/candles/index";
import { Imports, screenCandles, type ImportDeps, type ImportMessage } from "../../packages/core/src/imports/index";
import type { MarketData } from "../../packages/core/src/provider/market-data";
import { Calendar } from "../../packages/core/src/market/calendar";
import type { TableQueue } from "../../packages/adapters/src/queues/table-queue";
import { stockImportHandler } from "../../packages/functions/src/queue/stock-import";
import { LocalQueueRunner } from "../../packages/local/src/queue-runner";
import { createTestApi, type TestApi } from "../support/harness";

let api: TestApi;
let token: string;
let userId: string;

/** The worker as Lambda would run it; `remainingMs` just above the safety margin makes it stop after every chunk. */
function runner(options: { oneChunkPerMessage?: boolean } = {}) {
  const handler = stockImportHandler(() => Promise.resolve(api.services));
  const context = options.oneChunkPerMessage ? { getRemainingTimeInMillis: () => 60_001 } : undefined;
  return new LocalQueueRunner(api.services.jobs as TableQueue, { "stock-import": (event) => handler(event, context) });
}

const status = (taskId: string) => api.json("GET", `/api/v1/stock-import/import/${taskId}/status`, 200, { token });
const startImport = (body: object, expected = 200) => api.json("POST", "/api/v1/stock-import/import", expected, { token, body });

beforeAll(async () => {
  api = await createTestApi();
  const user = await api.createUser();
  token = user.token;
  userId = user.id;
});

describe("stock imports", () => {
  it("imports a month of all four periods through the queue, matching the provider's bars", async () => {
    const { task_id } = await startImport({ symbol: "700.HK", start_date: "2024-03-01", end_date: "2024-03-31" });
    expect((await status(task_id)).status).toBe("pending");
    await runner().drain("stock-import");
    const done = await status(task_id);
    expect(done).toMatchObject({ status: "completed", progress: 100, periods: ["1m", "5m", "1h", "1d"], filtered_count: 0 });
    const calendar = Calendar.for("HK");
    const tradingDays = calendar.tradingDays("2024-03-01", "2024-03-31");
    expect(done.trading_days).toBe(tradingDays.length);
    const marketData = await api.services.marketData();
    const window: [number, number] = [Date.UTC(2024, 1, 29, 16) / 1000, Date.UTC(2024, 2, 31, 16) / 1000 - 1];
    let total = 0;
    for (const period of StoredPeriods) {
      const bars = await marketData.historyCandlesticksByDate("700.HK", period, "NoAdjust", "2024-03-01", "2024-03-31", "All");
      const expected = screenCandles(bars, period, calendar, window).batch;
      const stored = await Candles.read(api.services.candles, "700.HK", period, window[0], window[1]);
      expect(stored.length).toBe(expected.length);
      expect(Array.from(stored.timestamp)).toEqual(Array.from(expected.timestamp));
      expect(Array.from(stored.close)).toEqual(Array.from(expected.close));
      expect(Array.from(stored.volume)).toEqual(Array.from(expected.volume));
      expect(done.period_results[period]).toMatchObject({ status: "completed", new_count: expected.length, overwritten_count: 0, data_count: expected.length });
      total += expected.length;
    }
    expect(done).toMatchObject({ data_count: total, new_count: total, overwritten_count: 0, avg_daily_count: Math.round(total / tradingDays.length) });
    // A second import of the same range overwrites every candle and adds none.
    const again = await startImport({ symbol: "700.HK", start_date: "2024-03-01", end_date: "2024-03-31", periods: ["1d"] });
    await runner().drain("stock-import");
    expect(await status(again.task_id)).toMatchObject({ status: "completed", new_count: 0, overwritten_count: tradingDays.length });
  });

  it("refuses a second import of a symbol while one runs, naming the running task", async () => {
    const first = await startImport({ symbol: "9988.HK", start_date: "2024-04-01", end_date: "2024-04-05", periods: ["1d"] });
    const refused = await startImport({ symbol: "9988.hk", start_date: "2024-05-01", end_date: "2024-05-05" }, 409);
    expect(refused).toMatchObject({ error_code: "IMPORT_ALREADY_RUNNING", running_task_id: first.task_id });
    expect(refused.detail).toContain(first.task_id);
    await runner().drain("stock-import");
    await startImport({ symbol: "9988.HK", start_date: "2024-05-01", end_date: "2024-05-03", periods: ["1d"] });
  });

  it("stops a cancelled import at its next chunk and keeps what it wrote", async () => {
    const { task_id } = await startImport({ symbol: "3690.HK", start_date: "2024-01-02", end_date: "2024-06-28", periods: ["1m"] });
    const worker = runner({ oneChunkPerMessage: true });
    await worker.pollOnce("stock-import");
    await worker.pollOnce("stock-import");
    const midway = await status(task_id);
    expect(midway.status).toBe("running");
    expect(midway.progress).toBeGreaterThan(0);
    expect(midway.progress).toBeLessThan(100);
    const cancel = await api.json("DELETE", `/api/v1/stock-import/import/${task_id}`, 200, { token });
    expect(cancel.success).toBe(true);
    await worker.drain("stock-import");
    const cancelled = await status(task_id);
    expect(cancelled.status).toBe("cancelled");
    expect(cancelled.data_count).toBe(midway.data_count);
    const stored = await Candles.read(api.services.candles, "3690.HK", "1m", 0, 2e9);
    expect(stored.length).toBe(cancelled.data_count);
    // Ended tasks cannot be cancelled again, and the symbol is free.
    await api.json("DELETE", `/api/v1/stock-import/import/${task_id}`, 409, { token });
    await startImport({ symbol: "3690.HK", start_date: "2024-01-02", end_date: "2024-01-03", periods: ["1d"] });
  });

  it("does nothing twice when a message is delivered twice", async () => {
    const { task_id } = await startImport({ symbol: "1810.HK", start_date: "2024-06-03", end_date: "2024-06-28", periods: ["5m", "1d"] });
    const queue = api.services.jobs as TableQueue;
    await queue.send("stock-import", { task_id, chunk: 0 }); // the duplicate
    await runner().drain("stock-import");
    const done = await status(task_id);
    const stored5m = await Candles.read(api.services.candles, "1810.HK", "5m", 0, 2e9);
    expect(done).toMatchObject({ status: "completed", new_count: stored5m.length + done.period_results["1d"].data_count, overwritten_count: 0 });
  });

  it("resumes a chunk that crashed after writing without double counting", async () => {
    const { task_id } = await startImport({ symbol: "5.HK", start_date: "2024-07-02", end_date: "2024-09-30", periods: ["1m"] });
    const candles = api.services.candles;
    const original = candles.prepareUpsert.bind(candles);
    let commits = 0;
    // The second chunk's commit writes its candles, then the worker dies before recording the chunk.
    candles.prepareUpsert = async (...args) => {
      const prepared = await original(...args);
      return {
        ...prepared,
        commit: async () => {
          await prepared.commit();
          if (commits++ === 1) throw new Error("crashed after writing");
        },
      };
    };
    try {
      const queue = api.services.jobs as TableQueue;
      const worker = runner({ oneChunkPerMessage: true });
      await worker.drain("stock-import");
      expect((await status(task_id)).status).toBe("running");
      // The failed message comes back after its visibility timeout; simulate that by receiving it again.
      const depth = await queue.depth("stock-import");
      expect(depth.pending).toBe(1);
      (queue as unknown as { now: () => number }).now = () => Date.now() + 120_000;
      await worker.drain("stock-import");
    } finally {
      candles.prepareUpsert = original;
    }
    const done = await status(task_id);
    const stored = await Candles.read(candles, "5.HK", "1m", 0, 2e9);
    expect(done).toMatchObject({ status: "completed", new_count: stored.length, overwritten_count: 0, data_count: stored.length });
  });

  it("answers 422 for bad requests, listing every problem, and 404 for unknown tasks", async () => {
    const bad = await startImport({ symbol: "", start_date: "someday", end_date: "2024-01-01", periods: ["2m", "1m", "1m"] }, 422);
    expect(bad.detail.map((issue: any) => issue.loc.slice(1).join(".")).sort()).toEqual(["periods.0", "start_date", "symbol"]);
    const reversed = await startImport({ symbol: "700.HK", start_date: "2024-02-01", end_date: "2024-01-01" }, 422);
    expect(reversed.detail[0].loc).toEqual(["body", "end_date"]);
    const unknown = await startImport({ symbol: "NOPE.HK", start_date: "2024-01-02", end_date: "2024-01-05" }, 404);
    expect(unknown.error_code).toBe("SYMBOL_NOT_FOUND");
    await api.json("GET", "/api/v1/stock-import/import/nope/status", 404, { token });
  });

  it("says it stores actual prices, and learns a 5-for-1 split from the provider's forward-adjusted daily candles", async () => {
    const simulated = await api.services.marketData();
    // A provider whose forward-adjusted prices before 2024-03-12 are a fifth of the actual ones (a 5-for-1 split that day).
    const provider: MarketData = Object.assign(Object.create(simulated) as MarketData, {
      async historyCandlesticksByDate(...args: Parameters<MarketData["historyCandlesticksByDate"]>) {
        const candles = await simulated.historyCandlesticksByDate(...args);
        if (args[2] !== "ForwardAdjust") return candles;
        const scale = (price: string) => (Number(price) * 0.2).toFixed(3);
        return candles.map((c) =>
          Date.parse(c.timestamp) < Date.parse("2024-03-11T16:00:00Z")
            ? { ...c, open: scale(c.open), high: scale(c.high), low: scale(c.low), close: scale(c.close) }
            : c,
        );
      },
    });
    const sent: ImportMessage[] = [];
    const deps: ImportDeps = {
      ...api.services.imports,
      marketData: async () => provider,
      jobs: { send: async (_queue, body) => void sent.push(body as ImportMessage) },
    };
    const actor = { id: userId, user_type: "user" as const };
    const request = { symbol: "2318.HK", start_date: "2024-03-01", end_date: "2024-03-28", periods: ["1d" as const] };
    const task = await Imports.start(deps, actor, request);
    await Imports.work(deps, sent[0]!, Date.now() + 60_000, 1);
    const done = await status(task.task_id);
    expect(done).toMatchObject({
      status: "completed",
      price_adjustment: "none",
      corporate_actions: [{ symbol: "2318.HK", ex_date: "2024-03-12", ratio: expect.closeTo(0.2, 3) }],
    });
    expect(done.message).toContain("1 corporate action learnt");
    const stored = await deps.corporateActions.get("2318.HK");
    expect(stored).toMatchObject({ symbol: "2318.HK", actions: [{ ex_date: "2024-03-12", ratio: expect.closeTo(0.2, 3) }], version: 1 });
    // The stored candles are the actual prices, whatever the provider adjusts.
    const candles = await Candles.read(api.services.candles, "2318.HK", "1d", Date.UTC(2024, 1, 29, 16) / 1000, Date.UTC(2024, 2, 8, 16) / 1000 - 1);
    const actual = await simulated.historyCandlesticksByDate("2318.HK", "1d", "NoAdjust", "2024-03-01", "2024-03-08", "Intraday");
    expect(Array.from(candles.close)).toEqual(actual.map((c) => Number(c.close)));
    // A second import over the same days merges: the same ex-date is replaced, not repeated.
    sent.length = 0;
    const again = await Imports.start(deps, actor, { ...request, start_date: "2024-03-11" });
    await Imports.work(deps, sent[0]!, Date.now() + 60_000, 1);
    expect((await status(again.task_id)).corporate_actions).toHaveLength(1);
    expect(await deps.corporateActions.get("2318.HK")).toMatchObject({ actions: [{ ex_date: "2024-03-12" }], version: 2 });
  });

  it("learns no corporate action from the simulated market, whose adjusted prices are its actual ones", async () => {
    const { task_id } = await startImport({ symbol: "388.HK", start_date: "2024-01-02", end_date: "2024-12-31", periods: ["1d"] });
    await runner().drain("stock-import");
    expect(await status(task_id)).toMatchObject({ status: "completed", price_adjustment: "none", corporate_actions: [] });
    expect(await api.services.imports.corporateActions.get("388.HK")).toBeUndefined();
  });
});
