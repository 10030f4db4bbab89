import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { longportLimiters } from "../../packages/adapters/src/provider/longport/connection";
import { LongportMarketData } from "../../packages/adapters/src/provider/longport/longport-market-data";
import type { CalcIndex } from "../../packages/core/src/provider/quote-enums";
import type { PushCandlestickEvent, PushDepthEvent, PushQuoteEvent, PushTradesEvent } from "../../packages/core/src/provider/quote-types";
import { Command, type FakeLongport, Period, startFakeLongport } from "../support/fake-longport/index";
import { failureOf, settingsFor, sleep, until } from "./adapter-harness";

/**
 * The `MarketData` port's contract, through the project's LongportMarketData and the real
 * longport 3.0.18 SDK against the fake LongPort: every method answers the port's plain JSON
 * (decimal strings, ISO instants, enum names), pushes arrive converted, and each fault is the
 * DomainError the port documents. Each describe has a fake of its own (an SDK context cannot be
 * closed, and its credentials must not reach another fake); `quoteRateLimit: null` spares the
 * SDK's ~1 s wait on connecting.
 */

const minuteBar = (timestamp: string, open: string, high: string, low: string, close: string, volume: number, turnover: string) => ({
  close,
  open,
  low,
  high,
  volume,
  turnover,
  timestamp,
  trade_session: "Intraday",
});

describe("MarketData through LongPort: every method's plain JSON, subscriptions and pushes", () => {
  let fake: FakeLongport;
  let market: LongportMarketData;

  beforeAll(async () => {
    fake = await startFakeLongport({ start: "2024-01-02T14:31:10Z", quoteRateLimit: null }); // Tuesday 09:31:10 New York
    fake.market.calendar.holidays.US.add("2024-01-01");
    fake.market.calendar.halfDays.US.add("2024-01-05");
    fake.market.setDepth("AAPL.US", [{ price: 190.1, volume: 300, orders: 2 }], [{ price: 189.9, volume: 500 }]);
    fake.market.seedCandles("AAPL.US", Period.day, [{ time: "2023-12-29T05:00:00Z", open: 188, high: 191, low: 187, close: 190, volume: 1_000_000 }]);
    fake.pushTrade("AAPL.US", { price: 190.5, volume: 200, direction: 2 });
    fake.clock.set("2024-01-02T14:59:10Z");
    fake.pushTrade("AAPL.US", { price: 191, volume: 100, direction: 1 });
    market = new LongportMarketData({ settings: settingsFor(fake), timeoutMs: 5_000, limiter: longportLimiters().quote });
  });
  afterAll(() => fake.close());

  it("reference data: static info (unknown symbols left out), trading days and half days, every market's sessions", async () => {
    expect(await market.staticInfo(["aapl.us", "700.HK", "NOPE.US"])).toEqual([
      {
        symbol: "AAPL.US",
        name_cn: "苹果",
        name_en: "Apple Inc.",
        name_hk: "Apple Inc.",
        exchange: "NASD",
        currency: "USD",
        lot_size: 1,
        total_shares: 1_000_000_000,
        circulating_shares: 1_000_000_000,
        hk_shares: 0,
        eps: "1.5",
        eps_ttm: "1.6",
        bps: "4.2",
        dividend_yield: "0.5",
        stock_derivatives: [],
        board: "USMain",
      },
      expect.objectContaining({ symbol: "700.HK", name_en: "TENCENT", currency: "HKD", lot_size: 100, hk_shares: 1_000_000_000, board: "HKEquity" }),
    ]);
    expect(await market.tradingDays("US", "2024-01-01", "2024-01-08")).toEqual({
      trading_days: ["2024-01-02", "2024-01-03", "2024-01-04", "2024-01-08"],
      half_trading_days: ["2024-01-05"],
    });
    const session = (begin_time: string, end_time: string, trade_session: string) => ({ begin_time, end_time, trade_session });
    expect(await market.tradingSession()).toEqual([
      {
        market: "US",
        trade_sessions: [
          session("09:30:00", "16:00:00", "Intraday"),
          session("04:00:00", "09:30:00", "Pre"),
          session("16:00:00", "20:00:00", "Post"),
          session("20:00:00", "04:00:00", "Overnight"),
        ],
      },
      { market: "HK", trade_sessions: [session("09:30:00", "12:00:00", "Intraday"), session("13:00:00", "16:00:00", "Intraday")] },
      { market: "CN", trade_sessions: [session("09:30:00", "11:30:00", "Intraday"), session("13:00:00", "15:00:00", "Intraday")] },
      { market: "SG", trade_sessions: [session("09:00:00", "12:00:00", "Intraday"), session("13:00:00", "17:15:00", "Intraday")] },
    ]);
  });

  it("snapshots: quote, depth, trades with their directions, intraday lines, calc indexes (derivative fields null for a stock)", async () => {
    expect(await market.quote(["AAPL.US"])).toEqual([
      {
        symbol: "AAPL.US",
        last_done: "191",
        prev_close: "190",
        open: "190.5",
        high: "191",
        low: "190.5",
        timestamp: "2024-01-02T14:59:10.000Z",
        volume: 300,
        turnover: "57200",
        trade_status: "Normal",
        pre_market_quote: null,
        post_market_quote: null,
        overnight_quote: null,
      },
    ]);
    expect(await market.depth("AAPL.US")).toEqual({
      asks: [{ position: 1, price: "190.1", volume: 300, order_num: 2 }],
      bids: [{ position: 1, price: "189.9", volume: 500, order_num: 1 }],
    });
    expect(await market.trades("AAPL.US", 10)).toEqual([
      { price: "190.5", volume: 200, timestamp: "2024-01-02T14:31:10.000Z", trade_type: "", direction: "Up", trade_session: "Intraday" },
      { price: "191", volume: 100, timestamp: "2024-01-02T14:59:10.000Z", trade_type: "", direction: "Down", trade_session: "Intraday" },
    ]);
    expect(await market.intraday("AAPL.US", "Intraday")).toEqual([
      { price: "190.5", timestamp: "2024-01-02T14:31:00.000Z", volume: 200, turnover: "38100", avg_price: "190.5" },
      { price: "191", timestamp: "2024-01-02T14:59:00.000Z", volume: 100, turnover: "19100", avg_price: "190.6667" },
    ]);
    const indexes: CalcIndex[] = [
      "LastDone",
      "ChangeValue",
      "ChangeRate",
      "Volume",
      "Turnover",
      "TotalMarketValue",
      "Amplitude",
      "PeTtmRatio",
      "PbRatio",
      "ExpiryDate",
      "StrikePrice",
    ];
    expect(await market.calcIndexes(["AAPL.US"], indexes)).toEqual([
      {
        symbol: "AAPL.US",
        last_done: "191",
        change_value: "1",
        change_rate: "0.53",
        volume: 300,
        turnover: "57200",
        total_market_value: "191000000000",
        amplitude: "0.26",
        pe_ttm_ratio: "119.38",
        pb_ratio: null,
        expiry_date: null,
        strike_price: null,
      },
    ]);
  });

  it("candlesticks: the latest minute and day bars, and day bars by date (an open start, a closed range)", async () => {
    expect(await market.candlesticks("AAPL.US", "1m", 5, "NoAdjust", "Intraday")).toEqual([
      minuteBar("2024-01-02T14:31:00.000Z", "190.5", "190.5", "190.5", "190.5", 200, "38100"),
      minuteBar("2024-01-02T14:59:00.000Z", "191", "191", "191", "191", 100, "19100"),
    ]);
    // Day bars start at the exchange's midnight.
    const lastSession = minuteBar("2023-12-29T05:00:00.000Z", "188", "191", "187", "190", 1_000_000, "190000000");
    const today = minuteBar("2024-01-02T05:00:00.000Z", "190.5", "191", "190.5", "191", 300, "57200");
    expect(await market.candlesticks("AAPL.US", "1d", 10, "ForwardAdjust", "All")).toEqual([lastSession, today]);
    expect(await market.historyCandlesticksByDate("AAPL.US", "1d", "NoAdjust", "2023-12-28", "2024-01-02", "Intraday")).toEqual([lastSession, today]);
    expect(await market.historyCandlesticksByDate("AAPL.US", "1d", "NoAdjust", null, "2023-12-31", "Intraday")).toEqual([lastSession]);
  });

  it("subscribes: the first pushes, candlesticks with their history, subscriptions, then quote, depth, trade and candlestick pushes (unconfirmed, then confirmed by the next minute's trade)", async () => {
    const quotes: PushQuoteEvent[] = [];
    const depths: PushDepthEvent[] = [];
    const trades: PushTradesEvent[] = [];
    const candles: PushCandlestickEvent[] = [];
    market.setOnQuote((event) => quotes.push(event));
    market.setOnDepth((event) => depths.push(event));
    market.setOnTrades((event) => trades.push(event));
    market.setOnCandlestick((event) => candles.push(event));

    await market.subscribe(["aapl.us"], ["Quote", "Depth", "Trade"], true);
    await until(() => quotes.length >= 1 && depths.length >= 1);
    expect(quotes[0]).toEqual({
      symbol: "AAPL.US",
      data: {
        last_done: "191",
        open: "190.5",
        high: "191",
        low: "190.5",
        timestamp: "2024-01-02T14:59:10.000Z",
        volume: 300,
        turnover: "57200",
        trade_status: "Normal",
        trade_session: "Intraday",
        current_volume: 0,
        current_turnover: "0",
      },
    });
    expect(depths[0]).toEqual({ symbol: "AAPL.US", data: await market.depth("AAPL.US") });
    expect(await market.subscribeCandlesticks("AAPL.US", "1m", "Intraday")).toEqual([
      minuteBar("2024-01-02T14:31:00.000Z", "190.5", "190.5", "190.5", "190.5", 200, "38100"),
      minuteBar("2024-01-02T14:59:00.000Z", "191", "191", "191", "191", 100, "19100"),
    ]);
    expect(await market.subscriptions()).toEqual([{ symbol: "AAPL.US", sub_types: ["Quote", "Depth", "Trade"], candlesticks: ["1m"] }]);

    fake.market.setDepth("AAPL.US", [{ price: 190.2, volume: 100 }], [{ price: 190, volume: 50, orders: 3 }]);
    const book = { asks: [{ position: 1, price: "190.2", volume: 100, order_num: 1 }], bids: [{ position: 1, price: "190", volume: 50, order_num: 3 }] };
    await until(() => depths.length >= 2);
    expect(depths[1]).toEqual({ symbol: "AAPL.US", data: book });

    await fake.playTrades("AAPL.US", [
      { price: 191.2, volume: 10, at: "2024-01-02T15:00:05Z" },
      { price: 191.3, volume: 10, at: "2024-01-02T15:00:40Z" },
    ]);
    await until(() => candles.length >= 3);
    fake.pushTrade("AAPL.US", { price: 191.1, volume: 5, at: "2024-01-02T15:01:02Z" });
    await until(() => candles.length >= 5 && trades.length >= 3 && quotes.length >= 4);

    const trade = (price: string, volume: number, timestamp: string) => ({
      symbol: "AAPL.US",
      data: { trades: [{ price, volume, timestamp, trade_type: "", direction: "Neutral", trade_session: "Intraday" }] },
    });
    expect(trades).toEqual([
      trade("191.2", 10, "2024-01-02T15:00:05.000Z"),
      trade("191.3", 10, "2024-01-02T15:00:40.000Z"),
      trade("191.1", 5, "2024-01-02T15:01:02.000Z"),
    ]);
    expect(quotes.slice(1).map((event) => [event.data.last_done, event.data.volume, event.data.current_volume, event.data.current_turnover])).toEqual([
      ["191.2", 310, 10, "1912"],
      ["191.3", 320, 10, "1913"],
      ["191.1", 325, 5, "955.5"],
    ]);
    // The SDK builds the bars from the trades (its turnover keeps a decimal place) and confirms one when a later minute's trade arrives.
    const pushed = (bar: ReturnType<typeof minuteBar>, is_confirmed: boolean) => ({
      symbol: "AAPL.US",
      data: { period: "1m", candlestick: bar, is_confirmed },
    });
    const tenOClock = minuteBar("2024-01-02T15:00:00.000Z", "191.2", "191.3", "191.2", "191.3", 20, "3825.0");
    expect(candles).toEqual([
      pushed(minuteBar("2024-01-02T14:59:00.000Z", "191", "191", "191", "191", 100, "19100"), true),
      pushed(minuteBar("2024-01-02T15:00:00.000Z", "191.2", "191.2", "191.2", "191.2", 10, "1912.0"), false),
      pushed(tenOClock, false),
      pushed(tenOClock, true),
      pushed(minuteBar("2024-01-02T15:01:00.000Z", "191.1", "191.1", "191.1", "191.1", 5, "955.5"), false),
    ]);

    expect(await market.realtimeQuote(["AAPL.US", "700.HK"])).toEqual([
      {
        symbol: "AAPL.US",
        last_done: "191.1",
        open: "190.5",
        high: "191.3",
        low: "190.5",
        timestamp: "2024-01-02T15:01:02.000Z",
        volume: 325,
        turnover: "61980.5",
        trade_status: "Normal",
      },
    ]);
    expect(await market.realtimeDepth("AAPL.US")).toEqual(book);
    expect(await market.realtimeTrades("AAPL.US", 2)).toEqual(
      [trade("191.3", 10, "2024-01-02T15:00:40.000Z"), trade("191.1", 5, "2024-01-02T15:01:02.000Z")].map((t) => t.data.trades[0]),
    );

    // A handler set to null takes no more events; the others still do.
    market.setOnTrades(null);
    fake.pushTrade("AAPL.US", { price: 191, volume: 5, at: "2024-01-02T15:01:30Z" });
    await until(() => candles.length >= 6);
    expect(candles[5]).toEqual(pushed(minuteBar("2024-01-02T15:01:00.000Z", "191.1", "191.1", "191", "191", 10, "1910.5"), false));
    expect(trades).toHaveLength(3);
  });

  it("unsubscribes: candlesticks and sub types leave the subscriptions, and their pushes stop; a halt's trade status", async () => {
    await market.unsubscribeCandlesticks("AAPL.US", "1m");
    await market.unsubscribe(["aapl.us"], ["Depth"]);
    expect(await market.subscriptions()).toEqual([{ symbol: "AAPL.US", sub_types: ["Quote", "Trade"], candlesticks: [] }]);

    const quotes: PushQuoteEvent[] = [];
    const candles: PushCandlestickEvent[] = [];
    market.setOnQuote((event) => quotes.push(event));
    market.setOnCandlestick((event) => candles.push(event));
    fake.pushTrade("AAPL.US", { price: 191.4, volume: 5, at: "2024-01-02T15:02:00Z" });
    await until(() => quotes.length >= 1);
    await market.unsubscribe(["AAPL.US"], ["Quote", "Trade"]);
    fake.pushTrade("AAPL.US", { price: 191.5, volume: 5, at: "2024-01-02T15:03:00Z" });
    // Pushes arrive in order on the socket: one sent after this subscribe's, had it been delivered, would be here by then.
    await market.subscribe(["700.HK"], ["Quote"], true);
    await until(() => quotes.some((event) => event.symbol === "700.HK"));
    expect(quotes.map((event) => [event.symbol, event.data.last_done])).toEqual([
      ["AAPL.US", "191.4"],
      ["700.HK", "300"],
    ]);
    expect(candles).toEqual([]);

    // A halt (LongPort's trade status 1) is pushed and quoted by its member name.
    fake.market.setQuote("700.HK", { tradeStatus: 1 });
    await until(() => quotes.length >= 3);
    expect([quotes[2]!.data.trade_status, (await market.quote(["700.HK"]))[0]!.trade_status]).toEqual(["Halted", "Halted"]);
  });
});

describe("MarketData through LongPort: faults as the port reports them", () => {
  let fake: FakeLongport;
  let market: LongportMarketData;
  const trades: PushTradesEvent[] = [];

  beforeAll(async () => {
    fake = await startFakeLongport({ start: "2024-01-02T15:00:00Z", quoteRateLimit: null });
    market = new LongportMarketData({ settings: settingsFor(fake), timeoutMs: 5_000, limiter: longportLimiters().quote });
    // Set before the connection opens: installed when it does.
    market.setOnTrades((event) => trades.push(event));
  });
  afterAll(() => fake.close());

  it("a quote command LongPort refuses: 502 PROVIDER_ERROR with LongPort's code; the next call answers", async () => {
    await market.subscribe(["AAPL.US"], ["Trade"], false);
    fake.faults.failNextQuoteCommand(Command.quote, { status: 1, code: 301604, message: "no quote access" });
    expect(await failureOf(market.quote(["AAPL.US"]))).toEqual({ status: 502, code: "PROVIDER_ERROR", extra: { provider: "longport", provider_code: 301604 } });
    expect((await market.quote(["AAPL.US"])).map((quote) => quote.last_done)).toEqual(["190"]);
  });

  it("a second quote connection of the account: 503 PROVIDER_CONNECTION_LIMIT with retry_after; the first goes on", async () => {
    const second = new LongportMarketData({ settings: settingsFor(fake), timeoutMs: 5_000, limiter: longportLimiters().quote });
    expect(await failureOf(second.staticInfo(["AAPL.US"]))).toEqual({
      status: 503,
      code: "PROVIDER_CONNECTION_LIMIT",
      extra: { provider: "longport", retry_after: 2 },
    });
    expect(fake.openSockets("quote")).toBe(1);
    expect((await market.staticInfo(["AAPL.US"])).map((info) => info.symbol)).toEqual(["AAPL.US"]);
  });

  it("a bad signature: 502 PROVIDER_AUTH_FAILED with LongPort's code", async () => {
    const forged = new LongportMarketData({
      settings: settingsFor(fake, { app_secret: "not-the-secret" }),
      timeoutMs: 5_000,
      limiter: longportLimiters().quote,
    });
    expect(await failureOf(forged.quote(["AAPL.US"]))).toEqual({
      status: 502,
      code: "PROVIDER_AUTH_FAILED",
      extra: { provider: "longport", provider_code: 403201 },
    });
  });

  it("a dropped socket: a call made meanwhile waits for the SDK's reconnection and answers; the subscription's pushes flow again", async () => {
    const dropped = Date.now();
    expect(fake.dropSockets("quote")).toBe(1);
    // Once the SDK has seen the socket go (within milliseconds; a call sent while the drop is on its way can fail at once), well before it reconnects 2 s after the drop.
    await sleep(300);
    expect((await market.quote(["AAPL.US"])).map((quote) => quote.symbol)).toEqual(["AAPL.US"]);
    expect(Date.now() - dropped).toBeGreaterThanOrEqual(1_500);
    fake.pushTrade("AAPL.US", { price: 190.4, volume: 7 });
    await until(() => trades.length >= 1);
    expect(trades.map((event) => event.data.trades.map((trade) => [trade.price, trade.volume, trade.timestamp]))).toEqual([
      [["190.4", 7, "2024-01-02T15:00:00.000Z"]],
    ]);
  });

  it("an expired token (401003): the open socket goes on; a new connection is 503 PROVIDER_TOKEN_EXPIRED with retry_after", async () => {
    fake.expireToken();
    expect((await market.quote(["AAPL.US"])).map((quote) => quote.last_done)).toEqual(["190.4"]);
    const fresh = new LongportMarketData({ settings: settingsFor(fake), timeoutMs: 5_000, limiter: longportLimiters().quote });
    expect(await failureOf(fresh.quote(["AAPL.US"]))).toEqual({
      status: 503,
      code: "PROVIDER_TOKEN_EXPIRED",
      extra: { provider: "longport", provider_code: 401003, retry_after: 60 },
    });
  });
});

describe("MarketData through LongPort: an outage", () => {
  it("while the quote gateway refuses connections, a call fails at the adapter's timeout (504 PROVIDER_TIMEOUT); once it is back, calls answer", async () => {
    const fake = await startFakeLongport({ start: "2024-01-02T15:00:00Z", quoteRateLimit: null });
    try {
      const market = new LongportMarketData({ settings: settingsFor(fake), timeoutMs: 1_500, limiter: longportLimiters().quote });
      expect((await market.quote(["AAPL.US"])).map((quote) => quote.symbol)).toEqual(["AAPL.US"]);
      fake.setSocketsDown(true, "quote");
      fake.dropSockets("quote", "close");
      // Once the SDK knows the socket is gone (it tries to reconnect): a call made while the close is still on its way fails at once instead.
      await until(() => fake.refusedUpgrades("quote") > 0);
      const started = Date.now();
      // The SDK would wait for the gateway as long as it is down; the adapter's timeout bounds the call.
      expect(await failureOf(market.quote(["AAPL.US"]))).toEqual({ status: 504, code: "PROVIDER_TIMEOUT", extra: { provider: "longport" } });
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
      fake.setSocketsDown(false, "quote");
      await until(() => fake.openSockets("quote") === 1);
      expect((await market.staticInfo(["700.HK"])).map((info) => [info.symbol, info.lot_size])).toEqual([["700.HK", 100]]);
    } finally {
      await fake.close();
    }
  });
});
