import { describe, expect, it } from "vitest";
import { defaults as riskDefaults } from "../risk/risk";
import type { Bar, BarColumns } from "../strategies/strategy";
import { TradingEngine } from "./engine";
import type { EngineEvent } from "./events";
import type { ProtectiveExits } from "./setup";
import { singleStrategySetup } from "./testing/setups";

/**
 * `execution.intrabar: "1m"` (docs/trading-engine.md "Protective exits", "Intrabar"): a daily
 * bar's fills read the stored minutes inside it, which say which of two levels the bar reaches
 * was touched first. A manual market entry, then daily bars chosen to put the levels in reach;
 * the manual sleeve takes the setup's exits.
 */

const DAY = 86_400_000;
const MINUTE = 60_000;
/** Daily bars open at local midnight (04:00 UTC in New York's summer), as the candle store keeps them. */
const T0 = Date.UTC(2024, 5, 3, 4);
/** The regular session's first minute of day `d`: 09:30 New York, 13:30 UTC. */
const sessionOpen = (d: number) => T0 + d * DAY + 9.5 * 3_600_000;

const bars = (rows: [number, number, number, number][]): Bar[] =>
  rows.map(([open, high, low, close], i) => ({ symbol: "AAPL.US", timestamp: T0 + i * DAY, open, high, low, close, volume: 1_000_000 }));

/** Minute bars of day `d` from [minutes after the open, open, high, low, close] rows, timestamps in seconds as stored. */
function minutesOf(d: number, rows: [number, number, number, number, number][]): BarColumns {
  const column = (pick: (row: [number, number, number, number, number]) => number) => Float64Array.from(rows, pick);
  return {
    symbol: "AAPL.US",
    msPerUnit: 1000,
    timestamp: column(([after]) => (sessionOpen(d) + after * MINUTE) / 1000),
    open: column((row) => row[1]),
    high: column((row) => row[2]),
    low: column((row) => row[3]),
    close: column((row) => row[4]),
    volume: column(() => 1000),
  };
}

function engineWith(exits: Partial<ProtectiveExits>, intrabar: boolean) {
  const setup = singleStrategySetup({
    symbols: ["AAPL.US"],
    // A strategy that never trades in these few bars: the orders are the test's own.
    parameters: { fast_period: 50, slow_period: 100 },
    risk: { ...riskDefaults(), max_position_size: 1, max_loss_per_trade: 1 },
    execution: { commission: { model: "percent", rate: 0 }, ...(intrabar ? { intrabar: "1m" as const } : {}) },
  });
  return new TradingEngine({ ...setup, exits: { stop_loss_pct: null, take_profit_pct: null, trailing_stop_pct: null, ...exits } });
}

/** Feeds a first bar, buys 100 at the next bar's open, then feeds the rest, handing `minutes` over first; the events after the first bar. */
function enter(engine: TradingEngine, rows: [number, number, number, number][], minutes?: BarColumns): EngineEvent[] {
  const all = bars(rows);
  if (minutes) engine.useMinutes("AAPL.US", minutes);
  engine.onBar(all[0], "1d");
  engine.drainEvents();
  engine.submit({ channel_id: "main", symbol: "AAPL.US", side: "buy", quantity: 100 }, all[0].timestamp + DAY / 2);
  for (const bar of all.slice(1)) engine.onBar(bar, "1d");
  return engine.drainEvents();
}

const fills = (events: EngineEvent[]) =>
  events
    .filter((e) => e.type === "order_filled")
    .map((e) => ({ time: new Date(e.time).toISOString(), side: e.data.side, price: Number(e.data.price), exit_reason: e.data.exit_reason ?? null }));

/** Day 2 reaches both the 5 % stop (95) and the 10 % target (110). */
const BOTH: [number, number, number, number][] = [
  [100, 100, 100, 100],
  [100, 101, 99, 100], // the entry at 100
  [100, 111, 94, 105],
];

describe("intrabar fills from the minutes inside a daily bar", () => {
  it("fills the target at its level when the minutes reach it before the stop; the stop wins the same bar without intrabar", () => {
    const minutes = minutesOf(2, [
      [0, 100, 101, 99.5, 100.5],
      [30, 104, 111, 103, 109], // 10:00: the target's 110 is reached
      [240, 99, 99.5, 94, 96], // 13:30: the stop's 95 would be, later
      [389, 104, 105, 104, 105],
    ]);
    const events = enter(engineWith({ stop_loss_pct: 0.05, take_profit_pct: 0.1 }, true), BOTH, minutes);
    expect(fills(events)).toEqual([
      { time: "2024-06-04T04:00:00.000Z", side: "buy", price: 100, exit_reason: null },
      { time: "2024-06-05T14:00:00.000Z", side: "sell", price: 110.00000000000001, exit_reason: "take_profit" },
    ]);
    const exit = events.find((e) => e.type === "order_filled" && e.data.exit_reason === "take_profit")!;
    expect(exit.data).toMatchObject({ trigger_price: 110.00000000000001, gap: false });
    const cancelled = events.find((e) => e.type === "order_cancelled")!;
    expect(String(cancelled.data.reason)).toMatch(/^ONE_CANCELS_OTHER: take_profit order /);
    expect(cancelled.time).toBe(Date.parse("2024-06-05T14:00:00.000Z"));

    const coarse = enter(engineWith({ stop_loss_pct: 0.05, take_profit_pct: 0.1 }, false), BOTH);
    expect(fills(coarse).slice(1)).toEqual([{ time: "2024-06-05T04:00:00.000Z", side: "sell", price: 95, exit_reason: "stop_loss" }]);
  });

  it("fills the stop at its level when the minutes reach it first, and at a minute's open when that minute opens through it", () => {
    const minutes = minutesOf(2, [
      [0, 100, 101, 99.5, 100.5],
      [60, 97, 97.5, 94.5, 96], // 10:30: the low reaches 95
      [200, 108, 111, 107, 110], // 12:50: the target's, after the stop filled
    ]);
    const events = enter(engineWith({ stop_loss_pct: 0.05, take_profit_pct: 0.1 }, true), BOTH, minutes);
    expect(fills(events).slice(1)).toEqual([{ time: "2024-06-05T14:30:00.000Z", side: "sell", price: 95, exit_reason: "stop_loss" }]);

    const gapped = minutesOf(2, [
      [0, 100, 101, 99.5, 100.5],
      [61, 94.2, 96, 94, 95.5], // opens below the stop: fills at that minute's open
      [200, 108, 111, 107, 110],
    ]);
    const gap = enter(engineWith({ stop_loss_pct: 0.05, take_profit_pct: 0.1 }, true), BOTH, gapped);
    const exit = gap.find((e) => e.type === "order_filled" && e.data.exit_reason === "stop_loss")!;
    expect(exit.data).toMatchObject({ price: "94.2", trigger_price: 95, gap: true });
    expect(new Date(exit.time).toISOString()).toBe("2024-06-05T14:31:00.000Z");
  });

  it("fills a market order at the first minute's open, and trails a trailing stop by the bar's close, not by the minutes", () => {
    const entryMinutes = minutesOf(1, [
      [0, 100.2, 100.4, 100, 100.1],
      [1, 100.1, 100.3, 99.9, 100],
    ]);
    const day2 = minutesOf(2, [
      [0, 105, 106, 104.5, 105.5],
      [100, 120, 130, 119, 129], // a trail by minutes would rise to 119.6 here
      [300, 118, 118.5, 117, 118], // and fill here; the level stays at the entry bar's close less 8 %
    ]);
    const minutes: BarColumns = {
      symbol: "AAPL.US",
      msPerUnit: 1000,
      timestamp: Float64Array.from([...Array.from(entryMinutes.timestamp), ...Array.from(day2.timestamp)]),
      open: Float64Array.from([...Array.from(entryMinutes.open), ...Array.from(day2.open)]),
      high: Float64Array.from([...Array.from(entryMinutes.high), ...Array.from(day2.high)]),
      low: Float64Array.from([...Array.from(entryMinutes.low), ...Array.from(day2.low)]),
      close: Float64Array.from([...Array.from(entryMinutes.close), ...Array.from(day2.close)]),
      volume: Float64Array.from([...Array.from(entryMinutes.volume), ...Array.from(day2.volume)]),
    };
    const engine = engineWith({ trailing_stop_pct: 0.08 }, true);
    const events = enter(
      engine,
      [
        [100, 100, 100, 100],
        [100, 101, 99, 100], // the entry: at the first minute's open, 100.2; the trail starts from the close, 100
        [105, 130, 104.5, 118],
      ],
      minutes,
    );
    expect(fills(events)).toEqual([{ time: "2024-06-04T13:30:00.000Z", side: "buy", price: 100.2, exit_reason: null }]);
    const trailing = engine.snapshot().pending.find((o) => o.order_type === "trailing_stop")!;
    // Not reached on day 2 (its level 92 is below every minute), then raised by day 2's close: 118 − 118 × 0.08.
    expect(trailing.stop_price).toBeCloseTo(108.56, 10);
  });

  it("fills by the bar's own prices where no minute is stored inside it, and counts those bars in a log warning", () => {
    const engine = engineWith({ stop_loss_pct: 0.05, take_profit_pct: 0.1 }, true);
    // Minutes of the entry's day only: day 2's fills fall back to the bar, the stop first.
    const events = enter(engine, BOTH, minutesOf(1, [[0, 100, 100.5, 99.8, 100.2]]));
    expect(fills(events)).toEqual([
      { time: "2024-06-04T13:30:00.000Z", side: "buy", price: 100, exit_reason: null },
      { time: "2024-06-05T04:00:00.000Z", side: "sell", price: 95, exit_reason: "stop_loss" },
    ]);
    engine.reportIntrabar();
    const [log] = engine.drainEvents();
    expect(log).toMatchObject({ type: "log", data: { level: "warning", intrabar: { bars_without_minutes: 1 } } });
    // Counted once: the next report has nothing to say.
    engine.reportIntrabar();
    expect(engine.drainEvents()).toEqual([]);
  });

  it("refuses minutes when the run's execution has no intrabar", () => {
    expect(() => engineWith({}, false).useMinutes("AAPL.US", minutesOf(1, [[0, 100, 100, 100, 100]]))).toThrow(/no intrabar/);
  });
});
