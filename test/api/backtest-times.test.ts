import { beforeAll, describe, expect, it } from "vitest";
import { Backtests } from "../../packages/core/src/backtests/index";
import { readBars, REFERENCE_RISK } from "../../packages/core/src/engine/testing/reference";
import { seededRandom } from "../../packages/core/src/indicators/testing/random-bars";
import { Calendar } from "../../packages/core/src/market/calendar";
import { marketOf } from "../../packages/core/src/market/market";
import { dayNumberOf, isoDateOf } from "../../packages/core/src/market/zoned-time";
import type { StoredEvent } from "../../packages/core/src/trading/run/runs";
import type { Bar } from "../../packages/core/src/strategies/strategy";
import { allOf } from "../../packages/core/src/util/pages";
import { createTestApi, type TestApi } from "../support/harness";
import { storeBars } from "../support/stored-bars";

/**
 * A backtest's clock (docs/backtests.md "Progress and result", docs/trading-engine.md "Days"):
 * its events never go back in time, every `day_end` is stamped at its market's regular close
 * (16:00 New York, 16:00 Hong Kong, 13:00 on a US half day), whatever the bars' period, and a
 * progress's `current_time` is the close of the last bar fed. A year of 1-minute bars and years
 * of daily bars, run in chunks as the workflow runs them.
 */
let api: TestApi;
let user: { id: string; token: string };

/** Regular-session 1-minute bars of `symbol` on every trading day from `first` to `last`: a random walk, prices to the cent. */
function minuteBars(symbol: string, first: string, last: string, seed: number): Bar[] {
  const calendar = Calendar.for(marketOf(symbol));
  const random = seededRandom(seed);
  const bars: Bar[] = [];
  let price = 100;
  for (const day of calendar.tradingDays(first, last)) {
    for (const session of calendar.sessionsOf(day).filter((s) => s.session === "Intraday")) {
      for (let at = session.start; at < session.end; at += 60_000) {
        const open = price;
        price = Math.max(1, price * (1 + (random() - 0.5) * 0.004));
        const round = (v: number) => Math.round(v * 100) / 100;
        bars.push({
          symbol,
          timestamp: at,
          open: round(open),
          high: round(Math.max(open, price) * (1 + random() * 0.0005)),
          low: round(Math.min(open, price) * (1 - random() * 0.0005)),
          close: round(price),
          volume: 1000 + Math.floor(random() * 1000),
        });
      }
    }
  }
  return bars;
}

beforeAll(async () => {
  // The workflow's tasks are run by hand, in chunks.
  api = await createTestApi({}, { workflows: { start: async () => undefined } });
  user = await api.createUser();
  await storeBars(api.services, "1m", minuteBars("SPY.US", "2024-01-01", "2024-12-31", 36));
  await storeBars(api.services, "1d", readBars("AAPL.US"));
  await storeBars(api.services, "1d", readBars("700.HK"));
}, 300_000);

/** Starts a backtest of a fast SMA crossover (many signals, some on a day's last bar) and runs its tasks to the end in chunks of `chunkBars`. */
async function runBacktest(symbol: string, timeframe: "1m" | "1d", start_date: string, end_date: string, chunkBars: number) {
  const session = await api.json("POST", "/api/v1/trading/sessions", 201, {
    token: user.token,
    body: { session_name: `times ${symbol}`, trading_mode: "backtest", asset_mode: "simulated", initial_capital: 100000, config: {} },
  });
  const { backtest_id } = await api.json("POST", "/api/v1/backtest/start", 200, {
    token: user.token,
    body: {
      session_id: session.id,
      strategy_name: "ma_crossover",
      strategy_config: { fast_period: 3, slow_period: 8, execution: { timeframe }, risk_config: REFERENCE_RISK },
      symbols: [symbol],
      start_date,
      end_date,
      initial_capital: 100000,
    },
  });
  const deps = api.services.trading.backtests;
  let step = await Backtests.prepare(deps, { backtest_id });
  expect(step.status).toBe("running");
  while (step.status === "running") step = await Backtests.runChunk(deps, { backtest_id }, Date.now() + 60_000, chunkBars);
  expect(step.status).toBe("done");
  await Backtests.finalize(deps, { backtest_id });
  const events = await allOf((cursor) => deps.runs.events(backtest_id, { limit: 5_000, cursor }));
  const progress = await api.json("GET", `/api/v1/backtest/${backtest_id}/progress`, 200, { token: user.token });
  return { backtest_id, events, progress };
}

/** The regular session's close of local day `day` of `symbol`'s market. */
function closeOf(symbol: string, day: number): number {
  const sessions = Calendar.for(marketOf(symbol))
    .sessionsOf(isoDateOf(day))
    .filter((s) => s.session === "Intraday");
  return sessions.at(-1)!.end;
}

/** Each event whose time is before the one before it, with that one. */
function backwards(events: StoredEvent[]) {
  const out: string[] = [];
  for (let i = 1; i < events.length; i++) {
    if (events[i]!.time < events[i - 1]!.time) {
      out.push(`${events[i - 1]!.type} ${new Date(events[i - 1]!.time).toISOString()} → ${events[i]!.type} ${new Date(events[i]!.time).toISOString()}`);
    }
  }
  return out;
}

/** Day ends not stamped at their day's close. */
function offClose(symbol: string, events: StoredEvent[]) {
  return events
    .filter((e) => e.type === "day_end")
    .map((e) => ({
      day: isoDateOf(Number(e.data.day)),
      at: new Date(e.time).toISOString(),
      close: new Date(closeOf(symbol, Number(e.data.day))).toISOString(),
    }))
    .filter((d) => d.at !== d.close);
}

describe("a backtest's times", () => {
  it("over a year of 1-minute bars: never go back, every day_end at 16:00 New York (13:00 on half days), current_time the last bar's close", async () => {
    const { backtest_id, events, progress } = await runBacktest("SPY.US", "1m", "2024-01-01", "2024-12-31", 20_000);
    const submitted = events.filter((e) => e.type === "order_submitted");
    expect(submitted.length).toBeGreaterThan(1000);
    // Some orders are placed at a day's last close, the instant its day_end is stamped at.
    expect(submitted.some((e) => new Date(e.time).toISOString().endsWith(":00:00.000Z") && e.time === closeOf("SPY.US", dayOf("SPY.US", e.time)))).toBe(true);
    expect(backwards(events)).toEqual([]);
    const dayEnds = events.filter((e) => e.type === "day_end");
    expect(dayEnds).toHaveLength(Calendar.for("US").tradingDays("2024-01-01", "2024-12-31").length);
    expect(offClose("SPY.US", events)).toEqual([]);
    // Half days close at 13:00 New York (18:00 UTC in winter).
    expect(dayEnds.find((e) => isoDateOf(Number(e.data.day)) === "2024-11-29")!.time).toBe(Date.parse("2024-11-29T18:00:00Z"));
    expect(progress).toMatchObject({ status: "completed", current_time: "2024-12-31T21:00:00.000Z" });
    // Filled at the next minute's open with no slippage, and more signals than the default 50 orders a day: the result says so.
    const result = await api.json("GET", `/api/v1/backtest/${backtest_id}/result`, 200, { token: user.token });
    expect(result.warnings.map((w: { code: string; reason?: string }) => [w.code, w.reason])).toEqual([
      ["ORDERS_DENIED", "MAX_DAILY_TRADES_EXCEEDED"],
      ["NO_SLIPPAGE", undefined],
      ["FILLS_AT_NEXT_MINUTE_OPEN", undefined],
    ]);
    expect(result.warnings[0].count).toBe(events.filter((e) => e.type === "order_denied").length);
    expect(result.warnings[2].message).toBe(
      "Market orders fill at the open of the next 1-minute bar, a minute after their signal, at that bar's first price, whole, whatever the bar's volume (execution.max_participation caps an order's share of it): a real order waits in a queue and may not get that price",
    );
  }, 300_000);

  for (const symbol of ["AAPL.US", "700.HK"] as const) {
    it(`over years of daily bars of ${symbol}: never go back, every day_end at the market's close, signals at the close, current_time the last day's close`, async () => {
      const { events, progress } = await runBacktest(symbol, "1d", "2021-01-01", "2023-12-31", 97);
      expect(events.filter((e) => e.type === "order_submitted").length).toBeGreaterThan(20);
      expect(backwards(events)).toEqual([]);
      expect(offClose(symbol, events)).toEqual([]);
      // A daily bar's signal is read at its close, the day's regular close, not at the next midnight.
      for (const e of events.filter((e) => e.type === "order_submitted")) expect(e.time).toBe(closeOf(symbol, dayOf(symbol, e.time)));
      const last = Calendar.for(marketOf(symbol)).tradingDays("2023-12-01", "2023-12-31").at(-1)!;
      expect(progress.current_time).toBe(new Date(closeOf(symbol, dayNumberOf(last))).toISOString());
    }, 120_000);
  }
});

/** The local day number of an instant in `symbol`'s market. */
function dayOf(symbol: string, ms: number): number {
  return dayNumberOf(Calendar.for(marketOf(symbol)).localDateOf(ms));
}
