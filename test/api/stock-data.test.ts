import { beforeAll, describe, expect, it } from "vitest";
import { CandleBatches, type Candle } from "../../packages/core/src/candles/candle-batch";
import { createTestApi, type TestApi } from "../support/harness";

let api: TestApi;
let token: string;

/** Candles every minute from `start` (UNIX seconds), with closes 1, 2, 3... */
function minutes(start: number, count: number, session: Candle["trade_session"] = "Intraday"): Candle[] {
  return Array.from({ length: count }, (_, index) => ({
    timestamp: start + index * 60,
    open: index + 1,
    high: index + 2,
    low: index + 0.5,
    close: index + 1,
    volume: 100 * (index + 1),
    turnover: 100 * (index + 1) * (index + 1),
    trade_session: session,
  }));
}

const DAY1 = Date.UTC(2024, 0, 2, 1, 30) / 1000; // 2024-01-02 09:30 HKT
const DAY2 = Date.UTC(2024, 0, 3, 1, 30) / 1000;

beforeAll(async () => {
  api = await createTestApi();
  token = (await api.createUser()).token;
  // 300 candles on each of two UTC days for 700.HK; 10 post-market candles on day 2.
  await api.services.candles.upsert("700.HK", "1m", CandleBatches.fromCandles([...minutes(DAY1, 300), ...minutes(DAY2, 300)]));
  await api.services.candles.upsert("700.HK", "1m", CandleBatches.fromCandles(minutes(DAY2 + 400 * 60, 10, "Post")));
  await api.services.candles.upsert("AAPL.US", "1d", CandleBatches.fromCandles([{ ...minutes(DAY1, 1)[0]!, timestamp: Date.UTC(2024, 0, 2) / 1000 }]));
});

const list = (query: string, status = 200) => api.json("GET", `/api/v1/stock-data?${query}`, status, { token });

describe("creating candles", () => {
  it("lists every OHLC and volume problem in one 422", async () => {
    const body = await api.json("POST", "/api/v1/stock-data", 422, {
      token,
      body: { code: "700.HK", open: 10, high: 9, low: 11, close: 10, volume: -5, turnover: 0, timestamp: DAY1, trade_session: "Intraday" },
    });
    const locations = body.detail.map((issue: any) => issue.loc.join("."));
    expect(locations.sort()).toEqual(["body.high", "body.low", "body.low", "body.volume"]);
    const again = await api.json("POST", "/api/v1/stock-data", 422, {
      token,
      body: { code: "700.HK", open: 10, high: 9, low: 11, close: 10, volume: 5, turnover: 0, timestamp: DAY1, trade_session: "Intraday" },
    });
    expect(again.detail.map((issue: any) => issue.loc.join(".")).sort()).toEqual(["body.high", "body.low", "body.low"]);
  });

  it("upserts by code, period and timestamp: 201 when new, 200 when an administrator overwrites, 403 when a user would", async () => {
    const candle = {
      code: "9988.hk",
      open: 80,
      high: 81,
      low: 79.5,
      close: 80.5,
      volume: 1000,
      turnover: 80_500,
      timestamp: DAY1,
      trade_session: "Intraday",
      period: "5m",
    };
    const first = await api.json("POST", "/api/v1/stock-data", 201, { token, body: candle });
    expect(first).toMatchObject({ created: true, period: "5m", data: { code: "9988.HK", close: 80.5 } });
    // Candles are shared: a user may add them, not change someone's.
    const refused = await api.json("POST", "/api/v1/stock-data", 403, { token, body: { ...candle, close: 1, high: 81, low: 1 } });
    expect(refused.error_code).toBe("ACCESS_DENIED");
    expect((await api.json("GET", `/api/v1/stock-data/9988.HK/${DAY1}`, 200, { token })).close).toBe(80.5);
    const second = await api.json("POST", "/api/v1/stock-data", 200, { token: await api.adminToken(), body: { ...candle, close: 80.9, high: 81 } });
    expect(second.created).toBe(false);
    const stored = await api.json("GET", `/api/v1/stock-data/9988.HK/${DAY1}`, 200, { token });
    expect(stored).toMatchObject({ close: 80.9, period: "5m" });
  });
});

describe("listing candles", () => {
  it("pages with exact totals across buckets", async () => {
    const first = await list("code=700.HK&period=1m&page_size=250");
    expect(first).toMatchObject({ total: 610, page: 1, page_size: 250, total_pages: 3 });
    expect(first.data[0]).toMatchObject({ code: "700.HK", timestamp: DAY1, close: 1, trade_session: "Intraday" });
    const second = await list("code=700.HK&period=1m&page_size=250&page=2");
    // Page 2 straddles the two days: the last 50 of day 1 then the first 200 of day 2.
    expect(second.data[0].timestamp).toBe(DAY1 + 250 * 60);
    expect(second.data[50].timestamp).toBe(DAY2);
    const third = await list("code=700.HK&period=1m&page_size=250&page=3");
    expect(third.data).toHaveLength(110);
    const beyond = await list("code=700.HK&period=1m&page_size=250&page=4");
    expect(beyond.data).toEqual([]);
  });

  it("reads dates in the request's timezone and counts partial days exactly", async () => {
    // 2024-01-02 in Hong Kong is 2024-01-01T16:00Z to 2024-01-02T16:00Z: all of day 1's candles.
    const hk = await list("code=700.HK&period=1m&start_date=2024-01-02&end_date=2024-01-02&timezone=Asia/Hong_Kong");
    expect(hk.total).toBe(300);
    const window = await list(`code=700.HK&period=1m&start_date=2024-01-02T09:35:00&end_date=2024-01-02T09:44:00&timezone=Asia/Hong_Kong`);
    expect(window.total).toBe(10);
    expect(window.data[0].timestamp).toBe(DAY1 + 5 * 60);
  });

  it("filters by trade session and sorts newest first", async () => {
    const post = await list("code=700.HK&period=1m&trade_session=Post");
    expect(post.total).toBe(10);
    const newest = await list("code=700.HK&period=1m&sort_order=desc&page_size=3");
    expect(newest.data.map((candle: any) => candle.timestamp)).toEqual([DAY2 + 409 * 60, DAY2 + 408 * 60, DAY2 + 407 * 60]);
  });

  it("sorts by another field on request", async () => {
    const byVolume = await list("code=700.HK&period=1m&sort_by=volume&sort_order=desc&page_size=2");
    expect(byVolume.data.map((candle: any) => candle.volume)).toEqual([30_000, 30_000]);
  });

  it("defaults to the 1h period and answers 422 for bad parameters, listing each", async () => {
    const hourly = await list("code=700.HK");
    expect(hourly.total).toBe(0);
    const bad = await list("period=2m&page=0&page_size=5000&sort_order=up&timezone=Mars/Base&start_date=yesterday", 422);
    expect(bad.detail.map((issue: any) => issue.loc[1]).sort()).toEqual(["page", "page_size", "period", "sort_order", "start_date", "timezone"]);
  });

  it("lists the stored codes", async () => {
    const { codes } = await api.json("GET", "/api/v1/stock-codes", 200, { token });
    expect(codes).toEqual(expect.arrayContaining(["700.HK", "AAPL.US", "9988.HK"]));
  });
});

describe("one candle and deletes", () => {
  it("finds a candle by timestamp in the finest period that has it, and 404s otherwise", async () => {
    const minute = await api.json("GET", `/api/v1/stock-data/700.HK/${DAY1 + 60}`, 200, { token });
    expect(minute).toMatchObject({ period: "1m", close: 2 });
    const daily = await api.json("GET", `/api/v1/stock-data/AAPL.US/${Date.UTC(2024, 0, 2) / 1000}`, 200, { token });
    expect(daily.period).toBe("1d");
    const missing = await api.json("GET", `/api/v1/stock-data/700.HK/${DAY1 + 30}`, 404, { token });
    expect(missing.error_code).toBe("CANDLE_NOT_FOUND");
    await api.json("GET", "/api/v1/stock-data/700.HK/not-a-number", 422, { token });
  });

  it("deletes a range of one period and reports the count", async () => {
    await api.services.candles.upsert("1810.HK", "1m", CandleBatches.fromCandles([...minutes(DAY1, 100), ...minutes(DAY2, 100)]));
    await api.services.candles.upsert("1810.HK", "5m", CandleBatches.fromCandles(minutes(DAY1, 20).map((c, i) => ({ ...c, timestamp: DAY1 + i * 300 }))));
    // Deleting shared candles is for administrators.
    expect((await api.json("DELETE", `/api/v1/stock-data/1810.HK?start_date=2024-01-02&end_date=2024-01-02`, 403, { token })).error_code).toBe("ACCESS_DENIED");
    const admin = await api.adminToken();
    const result = await api.json("DELETE", `/api/v1/stock-data/1810.HK?start_date=2024-01-02T01:30:00Z&end_date=2024-01-02T01:59:00Z&period=1m`, 200, {
      token: admin,
    });
    expect(result).toMatchObject({ deleted_count: 30, deleted_by_period: { "1m": 30 } });
    const left = await list("code=1810.HK&period=1m");
    expect(left.total).toBe(170);
    const all = await api.json("DELETE", `/api/v1/stock-data/1810.HK?start_date=2024-01-01&end_date=2024-01-31`, 200, { token: admin });
    expect(all).toMatchObject({ deleted_count: 190, deleted_by_period: { "1m": 170, "5m": 20, "1h": 0, "1d": 0 } });
    expect((await list("code=1810.HK&period=1m")).total).toBe(0);
    await api.json("DELETE", `/api/v1/stock-data/1810.HK?start_date=2024-01-05`, 422, { token: admin });
  });

  it("requires a token", async () => {
    await api.json("GET", "/api/v1/stock-data", 401);
  });
});
