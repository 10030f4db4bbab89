import { describe, expect, it } from "vitest";
import fc from "fast-check";
import type { DomainError } from "@tp/core/errors";
import { ManualClock } from "@tp/core/provider/clock";
import type { PushCandlestickEvent, PushDepthEvent, PushQuoteEvent, PushTradesEvent } from "@tp/core/provider/quote-types";
import { SimulatedMarketData } from "./simulated-market-data";
import { SimulationEngine } from "./simulation-engine";

// One engine shared by all markets in this file: the cache only speeds things up, results are pure.
const engine = new SimulationEngine();

function market(at: string | number, options: { overnight?: boolean } = {}) {
  const clock = new ManualClock(at);
  return { clock, md: new SimulatedMarketData({ clock, engine, overnight: options.overnight }) };
}

async function rejection(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (error) {
    return error as DomainError;
  }
  throw new Error("expected a rejection");
}

const FROM = Date.parse("2020-01-06T00:00:00Z");
const TO = Date.parse("2028-12-20T00:00:00Z");

describe("realtime continues the history without a seam", () => {
  it("quotes the last completed 1-minute close, the day's candle and the last regular trade at any instant", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: FROM, max: TO }), fc.constantFrom("AAPL.US", "700.HK", "3988.HK", "SPY.US", "2800.HK"), async (t, symbol) => {
        const { md } = market(t);
        const [quote] = await md.quote([symbol]);
        const [minute] = await md.candlesticks(symbol, "1m", 1, "NoAdjust", "Intraday");
        const [day] = await md.candlesticks(symbol, "1d", 1, "NoAdjust", "Intraday");
        expect(quote.last_done).toBe(minute.close);
        expect(Date.parse(minute.timestamp) + 60_000).toBe(Date.parse(quote.timestamp));
        expect(Date.parse(quote.timestamp)).toBeLessThanOrEqual(t);
        expect([day.open, day.high, day.low, day.close, day.volume, day.turnover]).toEqual([
          quote.open,
          quote.high,
          quote.low,
          quote.last_done,
          quote.volume,
          quote.turnover,
        ]);
        const lines = await md.intraday(symbol, "Intraday");
        expect(lines[lines.length - 1].price).toBe(quote.last_done);
        expect(lines.reduce((sum, line) => sum + line.volume, 0)).toBe(quote.volume);
      }),
      { numRuns: 60 },
    );
  });

  it("moves the quote minute by minute with the clock during a session", async () => {
    const { clock, md } = market("2026-03-10T14:00:30Z");
    const [before] = await md.quote(["NVDA.US"]);
    clock.advance(60_000);
    const [after] = await md.quote(["NVDA.US"]);
    const [minute] = await md.candlesticks("NVDA.US", "1m", 1, "NoAdjust", "Intraday");
    expect(after.timestamp).toBe("2026-03-10T14:01:00.000Z");
    expect(before.timestamp).toBe("2026-03-10T14:00:00.000Z");
    expect(minute.open).toBe(before.last_done);
    expect(after.volume).toBe(before.volume + minute.volume);
  });

  it("keeps yesterday's close as prev_close and shows the US pre-market quote before the open", async () => {
    const { md } = market("2026-03-10T12:00:00Z"); // 08:00 EDT
    const [quote] = await md.quote(["AAPL.US"]);
    const [yesterday] = await md.historyCandlesticksByDate("AAPL.US", "1d", "NoAdjust", "2026-03-09", "2026-03-09", "Intraday");
    expect(quote.last_done).toBe(yesterday.close);
    expect(quote.timestamp).toBe("2026-03-09T20:00:00.000Z");
    expect(quote.pre_market_quote?.prev_close).toBe(yesterday.close);
    expect(quote.pre_market_quote?.timestamp).toBe("2026-03-10T12:00:00.000Z");
    expect(quote.post_market_quote?.prev_close).toBe(yesterday.close);
    expect(quote.overnight_quote).toBeNull();
  });

  it("exposes the overnight session only when enabled, counted toward the next trading day", async () => {
    const at = "2026-03-10T02:00:30Z"; // 22:00 EDT on 2026-03-09, overnight session of 2026-03-10
    const withOvernight = market(at, { overnight: true }).md;
    const without = market(at).md;
    const [quote] = await withOvernight.quote(["TSLA.US"]);
    expect(quote.overnight_quote?.timestamp).toBe("2026-03-10T02:00:00.000Z");
    expect((await without.quote(["TSLA.US"]))[0].overnight_quote).toBeNull();
    const [bar] = await withOvernight.candlesticks("TSLA.US", "1h", 1, "NoAdjust", "All");
    expect(bar.trade_session).toBe("Overnight");
    // 20:00 EDT is 00:00 UTC; the 02:00 bar has no completed minute until 02:01.
    expect(bar.timestamp).toBe("2026-03-10T01:00:00.000Z");
    const [lastWithout] = await without.candlesticks("TSLA.US", "1h", 1, "NoAdjust", "All");
    expect(lastWithout.trade_session).toBe("Post");
    const [day] = await withOvernight.candlesticks("TSLA.US", "1d", 1, "NoAdjust", "All");
    expect(day.timestamp).toBe("2026-03-10T04:00:00.000Z");
    const sessions = await withOvernight.tradingSession();
    expect(sessions[0].trade_sessions[0]).toEqual({ begin_time: "20:00:00", end_time: "03:50:00", trade_session: "Overnight" });
  });

  it("lists the latest trades ending with the last regular close, four per minute in whole lots", async () => {
    const { md } = market("2026-03-10T06:00:10Z"); // 14:00 HKT
    const trades = await md.trades("1810.HK", 10);
    expect(trades).toHaveLength(10);
    const [quote] = await md.quote(["1810.HK"]);
    expect(trades[9].price).toBe(quote.last_done);
    expect(trades.every((t) => t.volume % 200 === 0 && t.volume > 0)).toBe(true);
    expect(trades.map((t) => t.timestamp.slice(11, 19)).slice(-4)).toEqual(["05:59:05", "05:59:20", "05:59:40", "05:59:55"]);
    const [minute] = await md.candlesticks("1810.HK", "1m", 1, "NoAdjust", "Intraday");
    expect(trades.slice(-4).reduce((sum, t) => sum + t.volume, 0)).toBe(minute.volume);
  });

  it("builds a five-level book a tick apart around the last price", async () => {
    const { md } = market("2026-03-10T06:00:10Z");
    const depth = await md.depth("700.HK");
    const [quote] = await md.quote(["700.HK"]);
    expect(depth.bids[0].price).toBe(quote.last_done);
    expect(depth.asks).toHaveLength(5);
    const tick = Number(depth.asks[0].price) - Number(depth.bids[0].price);
    expect(tick).toBeCloseTo(Number(quote.last_done) < 500 ? 0.2 : 0.5, 9);
    expect(depth.asks.every((level) => level.volume % 100 === 0 && level.order_num >= 1)).toBe(true);
  });
});

describe("history", () => {
  it("returns the trading days of the requested dates only, HK half days morning only", async () => {
    const { md } = market("2027-06-01T00:00:00Z");
    const bars = await md.historyCandlesticksByDate("5.HK", "1d", "NoAdjust", "2026-12-22", "2027-01-05", "Intraday");
    expect(bars.map((b) => b.timestamp)).toEqual([
      "2026-12-21T16:00:00.000Z",
      "2026-12-22T16:00:00.000Z",
      "2026-12-23T16:00:00.000Z",
      "2026-12-27T16:00:00.000Z",
      "2026-12-28T16:00:00.000Z",
      "2026-12-29T16:00:00.000Z",
      "2026-12-30T16:00:00.000Z",
      "2027-01-03T16:00:00.000Z",
      "2027-01-04T16:00:00.000Z",
    ]);
    const halfDay = await md.historyCandlesticksByDate("5.HK", "1h", "NoAdjust", "2026-12-24", "2026-12-24", "Intraday");
    expect(halfDay.map((b) => b.timestamp.slice(11, 16))).toEqual(["01:30", "02:30", "03:30"]);
  });

  it("stops at the clock: no bars from the future", async () => {
    const { md } = market("2026-03-10T14:00:00Z");
    const bars = await md.historyCandlesticksByDate("MSFT.US", "1h", "NoAdjust", "2026-03-10", "2026-12-31", "Intraday");
    expect(bars.map((b) => b.timestamp)).toEqual(["2026-03-10T13:30:00.000Z"]);
  });

  it("answers the same request identically on a second instance", async () => {
    const a = market("2026-05-01T00:00:00Z").md;
    const b = new SimulatedMarketData({ clock: new ManualClock("2026-05-01T00:00:00Z") });
    const request = ["META.US", "15m", "NoAdjust", "2026-04-01", "2026-04-03", "All"] as const;
    expect(await b.historyCandlesticksByDate(...request)).toEqual(await a.historyCandlesticksByDate(...request));
  });

  it("reports trading days as LongPort does, half days separately", async () => {
    const { md } = market("2026-01-01T00:00:00Z");
    expect(await md.tradingDays("US", "2026-11-25", "2026-11-30")).toEqual({
      trading_days: ["2026-11-25", "2026-11-30"],
      half_trading_days: ["2026-11-27"],
    });
  });
});

describe("pushes driven by the clock", () => {
  it("pushes quotes, depth, trades and candlesticks for minutes completed since the last tick", async () => {
    const { clock, md } = market("2026-03-10T14:00:30Z");
    const quotes: PushQuoteEvent[] = [];
    const depths: PushDepthEvent[] = [];
    const trades: PushTradesEvent[] = [];
    const candles: PushCandlestickEvent[] = [];
    md.setOnQuote((e) => quotes.push(e));
    md.setOnDepth((e) => depths.push(e));
    md.setOnTrades((e) => trades.push(e));
    md.setOnCandlestick((e) => candles.push(e));
    await md.subscribe(["AAPL.US"], ["Quote", "Depth", "Trade"], false);
    await md.subscribeCandlesticks("AAPL.US", "5m", "Intraday");

    md.tick(clock.now());
    expect(quotes).toHaveLength(0);

    clock.advance(3 * 60_000); // 14:03:30: the minutes starting 14:00, 14:01 and 14:02 have completed
    md.advance();
    const minutes = await md.candlesticks("AAPL.US", "1m", 3, "NoAdjust", "Intraday");
    expect(quotes).toHaveLength(1);
    expect(quotes[0].symbol).toBe("AAPL.US");
    expect(quotes[0].data.current_volume).toBe(minutes.reduce((sum, m) => sum + m.volume, 0));
    expect(quotes[0].data.last_done).toBe(minutes[2].close);
    expect(quotes[0].data.trade_session).toBe("Intraday");
    expect(depths).toHaveLength(1);
    expect(trades[0].data.trades).toHaveLength(12);
    expect(candles.map((c) => [c.data.candlestick.timestamp, c.data.is_confirmed])).toEqual([["2026-03-10T14:00:00.000Z", false]]);

    clock.advance(3 * 60_000); // 14:06:30: the 14:00 bar is finished, the 14:05 bar has its first minute
    md.advance();
    const [finished, forming] = await md.candlesticks("AAPL.US", "5m", 2, "NoAdjust", "Intraday");
    expect(candles.slice(1).map((c) => [c.data.candlestick, c.data.is_confirmed])).toEqual([
      [finished, true],
      [forming, false],
    ]);
    const [quote] = await md.realtimeQuote(["AAPL.US"]);
    expect(quote.last_done).toBe(forming.close);
  });

  it("pushes the current state at once with is_first_push and nothing after unsubscribing", async () => {
    const { clock, md } = market("2026-03-10T02:00:30Z");
    const quotes: PushQuoteEvent[] = [];
    md.setOnQuote((e) => quotes.push(e));
    await md.subscribe(["9988.HK", "388.HK"], ["Quote"], true);
    expect(quotes.map((q) => q.symbol)).toEqual(["9988.HK", "388.HK"]);
    expect(await md.subscriptions()).toEqual([
      { symbol: "9988.HK", sub_types: ["Quote"], candlesticks: [] },
      { symbol: "388.HK", sub_types: ["Quote"], candlesticks: [] },
    ]);
    await md.unsubscribe(["9988.HK"], ["Quote"]);
    clock.advance(120_000);
    md.advance();
    expect(quotes.slice(2).map((q) => q.symbol)).toEqual(["388.HK"]);
    expect(await md.realtimeQuote(["9988.HK", "388.HK"])).toHaveLength(1);
    expect(await md.realtimeDepth("388.HK")).toEqual({ asks: [], bids: [] });
  });

  it("pushes nothing while the market is closed", async () => {
    const { clock, md } = market("2026-03-14T15:00:00Z"); // Saturday
    const quotes: PushQuoteEvent[] = [];
    md.setOnQuote((e) => quotes.push(e));
    await md.subscribe(["700.HK", "AAPL.US"], ["Quote"], false);
    clock.advance(6 * 3_600_000);
    md.advance();
    expect(quotes).toEqual([]);
  });
});

describe("reference data and indexes", () => {
  it("describes Tencent with its board lot and currency", async () => {
    const { md } = market("2026-03-10T00:00:00Z");
    const [info] = await md.staticInfo(["00700.hk"]);
    expect(info).toMatchObject({ symbol: "700.HK", name_en: "Tencent Holdings Ltd.", name_hk: "騰訊控股", currency: "HKD", lot_size: 100, board: "HKEquity" });
  });

  it("computes calc indexes from the quote and static data", async () => {
    const { md } = market("2026-03-10T15:00:00Z");
    const [quote] = await md.quote(["AAPL.US"]);
    const [index] = await md.calcIndexes(["AAPL.US"], ["LastDone", "ChangeValue", "ChangeRate", "TotalMarketValue", "PeTtmRatio", "Delta"]);
    const last = Number(quote.last_done);
    expect(index).toEqual({
      symbol: "AAPL.US",
      last_done: quote.last_done,
      change_value: (last - Number(quote.prev_close)).toFixed(3),
      change_rate: ((last / Number(quote.prev_close) - 1) * 100).toFixed(2),
      total_market_value: (last * 14_900_000_000).toFixed(3),
      pe_ttm_ratio: (last / 6.6).toFixed(2),
      delta: null,
    });
  });
});

describe("clear errors", () => {
  it("answers an unknown symbol with SYMBOL_NOT_FOUND (404)", async () => {
    const { md } = market("2026-03-10T15:00:00Z");
    const error = await rejection(md.quote(["AAPL.US", "ZZZZ.US"]));
    expect([error.status, error.code]).toEqual([404, "SYMBOL_NOT_FOUND"]);
    expect(error.message).toContain("ZZZZ.US");
  });

  it("declares CN and SG symbols unsupported", async () => {
    const { md } = market("2026-03-10T15:00:00Z");
    expect((await rejection(md.depth("600519.SH"))).code).toBe("MARKET_NOT_SUPPORTED");
    expect((await rejection(md.tradingDays("SG", "2026-01-01", "2026-01-31"))).code).toBe("MARKET_NOT_SUPPORTED");
  });

  it("rejects counts outside 1–1000, unknown periods and the broker queue", async () => {
    const { md } = market("2026-03-10T15:00:00Z");
    expect((await rejection(md.trades("AAPL.US", 0))).code).toBe("INVALID_PARAMETER");
    expect((await rejection(md.candlesticks("AAPL.US", "7m" as never, 10, "NoAdjust", "Intraday"))).code).toBe("INVALID_PARAMETER");
    expect((await rejection(md.subscribe(["700.HK"], ["Brokers"], false))).code).toBe("SUB_TYPE_NOT_SUPPORTED");
  });

  it("says there is no data before the calendar starts", async () => {
    const { md } = market("2019-06-01T00:00:00Z");
    expect((await rejection(md.quote(["AAPL.US"]))).code).toBe("NO_MARKET_DATA");
    expect(await md.candlesticks("AAPL.US", "1d", 5, "NoAdjust", "Intraday")).toEqual([]);
  });
});
