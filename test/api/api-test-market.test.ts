import { beforeAll, describe, expect, it } from "vitest";
import { Calendar } from "../../packages/core/src/market/calendar";
import { HkStockTicksPhase1 } from "../../packages/core/src/market/tick-size";
import { createTestApi, type TestApi } from "../support/harness";

/**
 * The simulated market is a pure function of symbol and time, so the clock is pinned to a
 * Tuesday when both markets have history: 2026-03-10 11:00 in Hong Kong (03:00 UTC), the US
 * market closed since Monday's session. Tokens are issued before pinning (they are checked
 * against real time).
 */
const PINNED = Date.parse("2026-03-10T03:00:00Z");
const clock = { pinned: undefined as number | undefined };

let api: TestApi;
let token: string;

beforeAll(async () => {
  api = await createTestApi({}, { now: () => clock.pinned ?? Date.now() });
  token = (await api.createUser()).token;
  clock.pinned = PINNED;
});

type ApiTestBody = { success: boolean; message: string; data: any; error: any };
const pull = (name: string, body?: unknown) => api.json<ApiTestBody>("POST", `/api/v1/api-test/pull/${name}`, 200, { token, body });
const subscription = (name: string, body?: unknown) => api.json<ApiTestBody>("POST", `/api/v1/api-test/subscription/${name}`, 200, { token, body });
const invalid = (path: string, body: unknown) => api.json("POST", `/api/v1/api-test/${path}`, 422, { token, body });
const locs = (body: { detail: { loc: (string | number)[] }[] }) => body.detail.map((issue) => issue.loc.join("."));

describe("pull endpoints answer the simulated market's data wrapped as ApiTestResponse", () => {
  it("static-info takes a comma-separated string or an array and answers reference data of 700.HK and AAPL.US", async () => {
    const fromString = await pull("static-info", { symbols: "700.HK, AAPL.US" });
    expect(fromString).toMatchObject({ success: true, error: null, message: "Static info of 2 securities from the simulated market" });
    expect(fromString.data).toEqual([
      expect.objectContaining({ symbol: "700.HK", name_en: "Tencent Holdings Ltd.", currency: "HKD", lot_size: 100, exchange: "SEHK" }),
      expect.objectContaining({ symbol: "AAPL.US", name_en: "Apple Inc.", currency: "USD", lot_size: 1, exchange: "NASD" }),
    ]);
    expect(fromString.data[0].eps_ttm).toMatch(/^\d+(\.\d+)?$/);
    expect(await pull("static-info", { symbols: ["700.HK", "AAPL.US"] })).toEqual(fromString);
  });

  it("quote answers decimal-string prices equal to the close of the last completed minute", async () => {
    const { data: quotes } = await pull("quote", { symbols: ["700.HK", "AAPL.US"] });
    expect(quotes.map((quote: any) => quote.symbol)).toEqual(["700.HK", "AAPL.US"]);
    const tencent = quotes[0];
    expect(tencent).toMatchObject({ trade_status: "Normal", pre_market_quote: null, timestamp: "2026-03-10T03:00:00.000Z" });
    for (const field of ["last_done", "prev_close", "open", "high", "low", "turnover"]) expect(tencent[field]).toMatch(/^\d+\.\d+$/);
    expect(Number(tencent.low)).toBeLessThanOrEqual(Number(tencent.last_done));
    expect(Number(tencent.high)).toBeGreaterThanOrEqual(Number(tencent.last_done));
    const { data: minutes } = await pull("candlesticks", { symbol: "700.HK", period: "1m", count: 1 });
    expect(minutes).toHaveLength(1);
    expect(minutes[0]).toMatchObject({ timestamp: "2026-03-10T02:59:00.000Z", trade_session: "Intraday" });
    expect(Number(minutes[0].close)).toBe(Number(tencent.last_done));
    // AAPL.US shows Monday's regular session, with its after-hours quote beside it.
    expect(quotes[1].timestamp).toBe("2026-03-09T20:00:00.000Z");
    expect(quotes[1].post_market_quote).toEqual(expect.objectContaining({ prev_close: quotes[1].last_done }));
  });

  it("depth answers five levels each side, the best ask one HKEX tick above the best bid", async () => {
    const { data, message } = await pull("depth", { symbol: "700.HK" });
    expect(message).toBe("Order book of 700.HK: 5 ask and 5 bid levels from the simulated market");
    expect(data.asks.map((level: any) => level.position)).toEqual([1, 2, 3, 4, 5]);
    const bestBid = Number(data.bids[0].price);
    const bestAsk = Number(data.asks[0].price);
    expect(bestAsk).toBe(HkStockTicksPhase1.up(bestBid));
    for (const level of [...data.asks, ...data.bids]) expect(level.volume % 100).toBe(0);
  });

  it("trades answers the latest trades oldest first, `count` of them, in whole lots", async () => {
    const { data } = await pull("trades", { symbol: "700.HK", count: 10 });
    expect(data).toHaveLength(10);
    const times = data.map((trade: any) => Date.parse(trade.timestamp));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(times.at(-1)).toBeLessThan(PINNED);
    for (const trade of data) {
      expect(trade).toMatchObject({ trade_session: "Intraday", trade_type: "" });
      expect(["Up", "Down", "Neutral"]).toContain(trade.direction);
      expect(trade.volume % 100).toBe(0);
    }
  });

  it("intraday answers one line per completed minute since the 09:30 open", async () => {
    const { data } = await pull("intraday", { symbol: "700.HK", trade_sessions: "intraday" });
    expect(data).toHaveLength(90);
    expect(data[0].timestamp).toBe("2026-03-10T01:30:00.000Z");
    expect(data.at(-1).timestamp).toBe("2026-03-10T02:59:00.000Z");
  });

  it("candlesticks answers daily bars stamped at local midnight of each trading day, the last one forming", async () => {
    const { data } = await pull("candlesticks", { symbol: "AAPL.US", period: "Day", count: 3, adjust_type: "forward_adjust", trade_sessions: "Intraday" });
    expect(data.map((bar: any) => bar.timestamp)).toEqual(["2026-03-05T05:00:00.000Z", "2026-03-06T05:00:00.000Z", "2026-03-09T04:00:00.000Z"]);
    const { data: hk } = await pull("candlesticks", { symbol: "700.HK", period: "1d", count: 2 });
    expect(hk.map((bar: any) => bar.timestamp)).toEqual(["2026-03-08T16:00:00.000Z", "2026-03-09T16:00:00.000Z"]);
  });

  it("history-candlesticks answers the bars of the trading days in [start, end]", async () => {
    const { data, message } = await pull("history-candlesticks", { symbol: "700.HK", start: "2026-03-02", end: "2026-03-06", period: "1d" });
    expect(message).toBe("5 1d candlesticks of 700.HK from 2026-03-02 to 2026-03-06 from the simulated market");
    expect(data.map((bar: any) => bar.timestamp.slice(0, 10))).toEqual(["2026-03-01", "2026-03-02", "2026-03-03", "2026-03-04", "2026-03-05"]);
  });

  it("trading-days answers the exchange calendar: US skips Good Friday 2026", async () => {
    const { data } = await pull("trading-days", { market: "us", begin: "2026-03-30", end: "2026-04-10" });
    expect(data.trading_days).toEqual(Calendar.for("US").tradingDays("2026-03-30", "2026-04-10"));
    expect(data.trading_days).not.toContain("2026-04-03");
    expect(data.half_trading_days).toEqual([]);
    const hk = await pull("trading-days", { market: "HK", begin: "2026-03-01", end: "2026-03-31" });
    expect(hk.data.trading_days).toHaveLength(22);
  });

  it("trading-session answers the US and HK timetables in local time", async () => {
    const { data } = await pull("trading-session");
    expect(data.map((entry: any) => entry.market)).toEqual(["US", "HK"]);
    const hk = data.find((entry: any) => entry.market === "HK");
    expect(hk.trade_sessions).toContainEqual({ begin_time: "09:30:00", end_time: "12:00:00", trade_session: "Intraday" });
    const us = data.find((entry: any) => entry.market === "US");
    expect(us.trade_sessions).toContainEqual({ begin_time: "09:30:00", end_time: "16:00:00", trade_session: "Intraday" });
  });

  it("calc-indexes answers exactly the requested indexes, accepting LongPort names and snake_case fields", async () => {
    const { data } = await pull("calc-indexes", { symbols: "700.HK", indexes: "LastDone,change_rate,PeTtmRatio,Delta" });
    expect(Object.keys(data[0]).sort()).toEqual(["change_rate", "delta", "last_done", "pe_ttm_ratio", "symbol"]);
    expect(data[0].delta).toBeNull();
    const { data: quotes } = await pull("quote", { symbols: ["700.HK"] });
    expect(data[0].last_done).toBe(quotes[0].last_done);
  });
});

describe("provider failures are answers, not HTTP errors", () => {
  it("answers an unknown symbol with success false and SYMBOL_NOT_FOUND", async () => {
    const body = await pull("quote", { symbols: ["ZZZZ.US"] });
    expect(body).toMatchObject({ success: false, data: null, error: { code: "SYMBOL_NOT_FOUND", status: 404 } });
    expect(body.message).toMatch(/^quote failed at the simulated market: /);
  });

  it("answers a Shanghai symbol and the CN calendar with MARKET_NOT_SUPPORTED", async () => {
    expect((await pull("static-info", { symbols: "600519.SH" })).error).toMatchObject({ code: "MARKET_NOT_SUPPORTED", status: 400 });
    expect((await pull("trading-days", { market: "CN", begin: "2026-03-02", end: "2026-03-06" })).error.code).toBe("MARKET_NOT_SUPPORTED");
  });

  it("answers a malformed symbol with INVALID_SYMBOL", async () => {
    expect((await pull("depth", { symbol: "TENCENT" })).error).toMatchObject({ code: "INVALID_SYMBOL", status: 400 });
  });
});

describe("invalid bodies answer 422 listing every problem", () => {
  it("lists each bad candlesticks field", async () => {
    const body = await invalid("pull/candlesticks", { symbol: "", period: "7m", count: 0, adjust_type: "backward", trade_sessions: "night" });
    expect(locs(body).sort()).toEqual(["body.adjust_type", "body.count", "body.period", "body.symbol", "body.trade_sessions"]);
  });

  it("refuses a history range that ends before it starts, and a bad date", async () => {
    expect(locs(await invalid("pull/history-candlesticks", { symbol: "700.HK", start: "2026-03-06", end: "2026-03-02" }))).toEqual(["body.end"]);
    expect(locs(await invalid("pull/history-candlesticks", { symbol: "700.HK", start: "March 2", end: "2026-03-02", period: "1M" }))).toEqual([
      "body.start",
      "body.period",
    ]);
  });

  it("lists a missing market and dates for trading-days, and an unknown market", async () => {
    expect(locs(await invalid("pull/trading-days", {})).sort()).toEqual(["body.begin", "body.end", "body.market"]);
    expect(locs(await invalid("pull/trading-days", { market: "JP", begin: "2026-03-02", end: "2026-03-06" }))).toEqual(["body.market"]);
  });

  it("refuses empty symbol lists, unknown sub types and indexes, and more than 500 symbols", async () => {
    expect(locs(await invalid("subscription/subscribe", { symbols: "", sub_types: "Quote,Level2" })).sort()).toEqual(["body.sub_types.1", "body.symbols"]);
    expect(locs(await invalid("pull/calc-indexes", { symbols: ["700.HK"], indexes: ["LastDone", "Beta"] }))).toEqual(["body.indexes.1"]);
    const many = Array.from({ length: 501 }, (_, index) => `${index + 1}.HK`);
    expect(locs(await invalid("pull/quote", { symbols: many }))).toEqual(["body.symbols"]);
  });

  it("answers a request without a body with 422 naming each required field", async () => {
    const body = await api.json("POST", "/api/v1/api-test/subscription/subscribe", 422, { token });
    expect(body.detail).toEqual([
      { loc: ["body", "symbols"], msg: "Field required", type: "invalid_union" },
      { loc: ["body", "sub_types"], msg: "Field required", type: "invalid_union" },
    ]);
  });

  it("answers a body that is not JSON with 422 and a missing token with 401", async () => {
    expect(locs(await invalid("pull/quote", "{not json"))).toEqual(["body"]);
    const response = await api.request("POST", "/api/v1/api-test/pull/quote", { body: { symbols: "700.HK" } });
    expect(response.status).toBe(401);
  });
});

describe("subscription endpoints keep the process's subscriptions", () => {
  it("subscribes, answers realtime data only for subscribed types, and unsubscribes", async () => {
    expect((await subscription("subscriptions")).data).toEqual([]);
    const subscribed = await subscription("subscribe", { symbols: "700.HK,AAPL.US", sub_types: ["quote", "Depth"], is_first_push: true });
    expect(subscribed).toMatchObject({ success: true, error: null });
    expect(subscribed.data).toEqual([
      { symbol: "700.HK", sub_types: ["Quote", "Depth"], candlesticks: [] },
      { symbol: "AAPL.US", sub_types: ["Quote", "Depth"], candlesticks: [] },
    ]);

    const realtime = await subscription("realtime-quote", { symbols: ["700.HK", "AAPL.US", "9988.HK"] });
    expect(realtime.data.map((quote: any) => quote.symbol)).toEqual(["700.HK", "AAPL.US"]);
    const { data: pulled } = await pull("quote", { symbols: ["700.HK"] });
    expect(realtime.data[0].last_done).toBe(pulled[0].last_done);

    const depth = await subscription("realtime-depth", { symbol: "700.HK" });
    expect(depth.data).toEqual((await pull("depth", { symbol: "700.HK" })).data);
    expect((await subscription("realtime-trades", { symbol: "700.HK", count: 4 })).data).toEqual([]);

    await subscription("subscribe", { symbols: ["700.HK"], sub_types: "Trade" });
    const trades = await subscription("realtime-trades", { symbol: "700.HK", count: 4 });
    expect(trades.data).toEqual((await pull("trades", { symbol: "700.HK", count: 4 })).data);

    const after = await subscription("unsubscribe", { symbols: "AAPL.US", sub_types: "Quote,Depth" });
    expect(after.data).toEqual([{ symbol: "700.HK", sub_types: ["Quote", "Depth", "Trade"], candlesticks: [] }]);
    expect((await subscription("realtime-quote", { symbols: "AAPL.US" })).data).toEqual([]);
  });

  it("answers a Brokers subscription, which the simulated market has no data for, with success false", async () => {
    const body = await subscription("subscribe", { symbols: "700.HK", sub_types: "Brokers" });
    expect(body).toMatchObject({ success: false, error: { code: "SUB_TYPE_NOT_SUPPORTED", status: 400 } });
  });
});
