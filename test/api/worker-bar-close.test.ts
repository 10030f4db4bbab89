import { describe, expect, it } from "vitest";
import { CandleBatches, Candles } from "../../packages/core/src/candles/index";
import type { MarketData } from "../../packages/core/src/provider/market-data";
import type { PushCandlestickEvent } from "../../packages/core/src/provider/quote-types";
import { SessionWorker } from "../../packages/worker/src/session-worker";
import { WorkerHarness } from "../support/worker-harness";

/**
 * Bars close by the market's calendar, not by the provider's confirmation (issue 35): LongPort's
 * SDK confirms a candlestick only when a trade falls in a later one, so the day's last 1-minute
 * bar and the daily bar are confirmed at the next open, after the day rollover. Here the simulated
 * market's pushes are confirmed as the SDK confirms them, and the session still gets the close's
 * bar and the daily bar before its day ends.
 */
const h = WorkerHarness.forSuite("2024-03-15T19:45:00Z");

/** `market` with its candlesticks confirmed as LongPort's SDK confirms them: a bar when a push of a later bar of its feed arrives, never at its close. */
function confirmingLate(market: MarketData): MarketData & { confirmed: PushCandlestickEvent[]; push: (event: PushCandlestickEvent) => void } {
  const forming = new Map<string, PushCandlestickEvent>();
  const confirmed: PushCandlestickEvent[] = [];
  const wrapped = Object.assign(Object.create(market) as MarketData, {
    confirmed,
    /** Pushes an event to the worker as the provider would. */
    push: (_event: PushCandlestickEvent) => {},
    setOnCandlestick(handler: ((event: PushCandlestickEvent) => void) | null) {
      if (!handler) return market.setOnCandlestick(null);
      wrapped.push = handler;
      market.setOnCandlestick((event) => {
        const key = `${event.symbol}|${event.data.period}`;
        const before = forming.get(key);
        if (before && before.data.candlestick.timestamp !== event.data.candlestick.timestamp) {
          const done = { ...before, data: { ...before.data, is_confirmed: true } };
          confirmed.push(done);
          handler(done);
        }
        forming.set(key, event);
        handler({ ...event, data: { ...event.data, is_confirmed: false } });
      });
    },
  });
  return wrapped;
}

describe("bars closed by the calendar", () => {
  it("feeds the day's last 1-minute bar and the daily bar at the close, before the day ends, though the provider confirms neither", async () => {
    const config = {
      channels: [
        {
          channel_id: "minutes",
          capital_allocation: 0.5,
          strategies: [{ strategy_name: "ma_crossover", parameters: { fast_period: 3, slow_period: 8 }, symbols: ["AAPL.US"], timeframe: "1m" }],
        },
        {
          channel_id: "days",
          capital_allocation: 0.5,
          strategies: [{ strategy_name: "ma_crossover", parameters: { fast_period: 3, slow_period: 8 }, symbols: ["AAPL.US"], timeframe: "1d" }],
        },
      ],
      venue: "bars",
    };
    const session = await h.startSession("closes by the calendar", config);
    const market = confirmingLate(await h.api.services.marketData());
    const worker = new SessionWorker(h.api.services, { marketData: market, tickMs: 1e9, refreshMs: 1e9, beatMs: 0 });
    h.workers.push(worker);
    await worker.start();
    // From 19:45Z to 20:05Z, a step a minute: the close is 20:00Z (EDT).
    await h.minutes(worker, 20);
    const run = (await h.api.services.trading.sessions.runs.get(session.id))!;
    // The 19:59Z bar closes at 20:00Z: fed, and the daily bar with it, though nothing confirmed them.
    expect(run.progress?.cursor_ms).toBe(Date.parse("2024-03-15T20:00:00Z"));
    expect(market.confirmed.some((e) => e.data.period === "1d")).toBe(false);
    expect(market.confirmed.some((e) => e.data.candlestick.timestamp === "2024-03-15T19:59:00.000Z")).toBe(false);
    // Both stored as they stood at the close.
    const seconds = (iso: string) => Date.parse(iso) / 1000;
    const store = h.api.services.candles;
    expect((await Candles.read(store, "AAPL.US", "1m", seconds("2024-03-15T19:59:00Z"), seconds("2024-03-15T19:59:00Z"))).length).toBe(1);
    const dayOf = async () => {
      const batch = await Candles.read(store, "AAPL.US", "1d", seconds("2024-03-15T00:00:00Z"), seconds("2024-03-15T23:59:59Z"));
      expect(batch.length).toBe(1);
      return CandleBatches.get(batch, 0);
    };
    const day = await dayOf();

    // The provider's confirmation at the next open, with a trade the close did not see: the stored candle is corrected, the run is not fed again.
    const version = (await h.api.services.trading.sessions.runs.get(session.id))!.version;
    market.push({
      symbol: "AAPL.US",
      data: {
        period: "1d",
        is_confirmed: true,
        candlestick: {
          timestamp: new Date(day.timestamp * 1000).toISOString(),
          open: String(day.open),
          high: String(Math.max(day.high, day.close + 1)),
          low: String(day.low),
          close: String(day.close + 1),
          volume: day.volume + 100,
          turnover: String(day.turnover),
          trade_session: "Intraday",
        },
      },
    });
    await h.minutes(worker, 1);
    expect((await dayOf()).close).toBe(day.close + 1);
    expect((await h.api.services.trading.sessions.runs.get(session.id))!.version).toBe(version);
  });
});
