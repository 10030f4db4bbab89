import { describe, expect, it } from "vitest";
import { Fees } from "../fees/index";
import { defaults as riskDefaults } from "../risk/risk";
import type { Bar, BarColumns } from "../strategies/strategy";
import { TradingEngine } from "./engine";
import type { EngineEvent } from "./events";
import type { EngineSetup, ProtectiveExits } from "./setup";
import { EXIT_VARIANTS, exitCase, referenceCase, referenceSetup } from "./testing/reference";
import { singleStrategySetup } from "./testing/setups";
import { seededRandom } from "../indicators/testing/random-bars";

/** Minute bars of one symbol whose log price reverts to 100 (trends and reversals at every scale). */
function minuteBars(count: number, seed: number): Bar[] {
  const random = seededRandom(seed);
  const bars: Bar[] = [];
  let log = Math.log(100);
  let close = 100;
  for (let i = 0; i < count; i++) {
    const open = close;
    log += 0.0005 * (Math.log(100) - log) + (random() - 0.5) * 0.004;
    close = Math.round(Math.exp(log) * 100) / 100;
    const high = Math.max(open, close) + Math.round(random() * 5) / 100;
    const low = Math.min(open, close) - Math.round(random() * 5) / 100;
    bars.push({ symbol: "AAPL.US", timestamp: Date.UTC(2024, 0, 2, 14, 30) + i * 60_000, open, high, low, close, volume: 1000 });
  }
  return bars;
}

/** The bars as columns, timestamps in seconds as the candle store keeps them. */
function columnsOf(bars: Bar[]): BarColumns {
  const column = (pick: (bar: Bar) => number) => Float64Array.from(bars, pick);
  return {
    symbol: bars[0].symbol,
    msPerUnit: 1000,
    timestamp: column((b) => b.timestamp / 1000),
    open: column((b) => b.open),
    high: column((b) => b.high),
    low: column((b) => b.low),
    close: column((b) => b.close),
    volume: column((b) => b.volume),
  };
}

const risky = { ...riskDefaults(), max_position_size: 1, max_loss_per_trade: 1, max_daily_trades: 40 };

/** `setup` with protective exits on every strategy's entries. */
function withExits(setup: EngineSetup, exits: ProtectiveExits): EngineSetup {
  return { ...setup, channels: setup.channels.map((channel) => ({ ...channel, strategies: channel.strategies.map((slot) => ({ ...slot, exits })) })) };
}

const setups: [string, EngineSetup, "1m" | "1d"][] = [
  [
    "SMA 10/30, percent commission, risk rules, fills at the close",
    singleStrategySetup({
      symbols: ["AAPL.US"],
      timeframe: "1m",
      parameters: { fast_period: 10, slow_period: 30 },
      risk: risky,
      execution: { commission: { model: "percent", rate: 0.001 }, fill: "close" },
    }),
    "1m",
  ],
  [
    "SMA 10/30, fills capped at 30 % of each bar's volume (orders filled in parts across bars and chunks)",
    singleStrategySetup({
      symbols: ["AAPL.US"],
      timeframe: "1m",
      parameters: { fast_period: 10, slow_period: 30 },
      risk: risky,
      execution: { commission: { model: "percent", rate: 0.001 }, max_participation: 0.3 },
    }),
    "1m",
  ],
  [
    "EMA 5/20 with shorts, LongPort fees, slippage, next-open fills",
    {
      ...singleStrategySetup({
        symbols: ["AAPL.US"],
        timeframe: "1m",
        parameters: { fast_period: 5, slow_period: 20, ma_type: "ema", allow_short: true },
        risk: { ...risky, allow_short: true },
        execution: { commission: { model: "broker", broker_type: "longport" }, fill: "next_open", slippage_bps: 3 },
      }),
      fees: Fees.defaults("longport"),
    },
    "1m",
  ],
  [
    "EMA 5/20 with shorts and a protective stop, target and trailing stop on every entry (OCO, trails, exits by signal)",
    withExits(
      singleStrategySetup({
        symbols: ["AAPL.US"],
        timeframe: "1m",
        parameters: { fast_period: 5, slow_period: 20, ma_type: "ema", allow_short: true },
        risk: { ...risky, allow_short: true },
        execution: { commission: { model: "percent", rate: 0.001 }, exits: { priority: "take_profit", trailing_reference: "extreme" } },
      }),
      { stop_loss_pct: 0.002, take_profit_pct: 0.004, trailing_stop_pct: 0.003 },
    ),
    "1m",
  ],
  [
    "SMA 10/30 whose entries and protective exits fill in parts (30 % of each bar's volume)",
    withExits(
      singleStrategySetup({
        symbols: ["AAPL.US"],
        timeframe: "1m",
        parameters: { fast_period: 10, slow_period: 30 },
        risk: risky,
        execution: { commission: { model: "percent", rate: 0.001 }, max_participation: 0.3 },
      }),
      { stop_loss_pct: 0.003, take_profit_pct: null, trailing_stop_pct: 0.004 },
    ),
    "1m",
  ],
  [
    "three sleeves on one symbol in two channels (two without a batch loop of their own)",
    (() => {
      const base = singleStrategySetup({ symbols: ["AAPL.US"], timeframe: "1m", risk: risky, execution: { commission: { model: "percent", rate: 0.0005 } } });
      const channel = base.channels[0];
      return {
        ...base,
        channels: [
          {
            ...channel,
            capital_allocation: 0.5,
            strategies: [
              { ...channel.strategies[0], weight: 0.5, parameters: { fast_period: 8, slow_period: 21 } },
              { strategy_name: "rsi_mean_reversion", parameters: {}, weight: 0.5, symbols: ["AAPL.US"], timeframe: "1m" as const },
            ],
          },
          {
            ...channel,
            channel_id: "second",
            capital_allocation: 0.5,
            strategies: [
              {
                strategy_name: "momentum",
                parameters: { lookback_period: 10, entry_threshold: 0.2, exit_threshold: 0 },
                weight: 1,
                symbols: ["AAPL.US"],
                timeframe: "1m" as const,
              },
            ],
          },
        ],
      };
    })(),
    "1m",
  ],
  [
    "a traced director and executor on one timeframe, which the batch path feeds bar by bar (they read each other's bias)",
    (() => {
      const base = singleStrategySetup({ symbols: ["AAPL.US"], timeframe: "1m", risk: risky, execution: { commission: { model: "percent", rate: 0.001 } } });
      const slot = { weight: 1, symbols: ["AAPL.US"], timeframe: "1m" as const };
      const strategies = [
        { ...slot, strategy_name: "trend_director", parameters: { fast_period: 20, slow_period: 60, band_pct: 0.05 }, role: "director" as const },
        { ...slot, strategy_name: "pullback_executor", parameters: {}, role: "executor" as const },
      ];
      return { ...base, trace: true, channels: [{ ...base.channels[0], strategies }] };
    })(),
    "1m",
  ],
];

describe("the batch path (onColumns) against the streaming path (onBar)", () => {
  for (const [name, setup, timeframe] of setups) {
    it(`gives identical events and snapshots: ${name}`, () => {
      const bars = minuteBars(20_000, 3);
      const streaming = new TradingEngine(setup);
      for (const bar of bars) streaming.onBar(bar, timeframe);
      streaming.endDay();
      const expected = streaming.drainEvents();
      expect(expected.filter((e) => e.type === "order_filled").length).toBeGreaterThan(setup.trace ? 10 : 100);
      expect(expected.some((e) => e.type === (setup.trace ? "strategy_output" : "order_denied"))).toBe(true);
      const exits = setup.channels[0].strategies[0].exits;
      if (exits) {
        // Every exit the setup asks for fills, and fills cancel their partners.
        const reasons = new Set(expected.filter((e) => e.type === "order_filled").map((e) => e.data.exit_reason));
        for (const [reason, pct] of [
          ["stop_loss", exits.stop_loss_pct],
          ["take_profit", exits.take_profit_pct],
          ["trailing_stop", exits.trailing_stop_pct],
        ] as const)
          expect(reasons.has(reason)).toBe(pct !== null);
        expect(expected.filter((e) => e.type === "order_cancelled" && String(e.data.reason).startsWith("ONE_CANCELS_OTHER")).length).toBeGreaterThan(10);
        expect(expected.filter((e) => e.type === "order_cancelled" && String(e.data.reason).startsWith("EXIT_BY_SIGNAL")).length).toBeGreaterThan(10);
      }
      if (setup.execution.max_participation !== undefined) {
        // Orders do fill in parts, and some stay part-filled across a chunk's end (38 → 1000 …).
        expect(expected.filter((e) => e.type === "order_filled" && Number(e.data.remaining) > 0).length).toBeGreaterThan(100);
      }

      // In uneven chunks, each through a JSON snapshot, as the backtest's chunk tasks run.
      const columns = columnsOf(bars);
      let batch = new TradingEngine(setup);
      const events = [];
      const cuts = [0, 1, 37, 38, 1000, 4321, 9999, 15000, bars.length];
      for (let c = 1; c < cuts.length; c++) {
        batch.onColumns(columns, cuts[c - 1], cuts[c], timeframe);
        events.push(...batch.drainEvents());
        batch = TradingEngine.restore(setup, JSON.parse(JSON.stringify(batch.snapshot())));
      }
      batch.endDay();
      events.push(...batch.drainEvents());
      expect(events).toEqual(expected);
      expect(JSON.parse(JSON.stringify(batch.snapshot()))).toEqual(JSON.parse(JSON.stringify(streaming.snapshot())));
    });
  }

  it("reproduces the reference backtest's fills and final value over columns, and those of its protective-exit fixtures", () => {
    const exitCases = EXIT_VARIANTS.map((variant) => {
      const ref = exitCase("AAPL.US", variant);
      const { stop_loss_pct, take_profit_pct, trailing_stop_pct } = ref.rules;
      return { ref, exits: { stop_loss_pct, take_profit_pct, trailing_stop_pct } };
    });
    for (const { ref, exits } of [{ ref: referenceCase("AAPL.US"), exits: undefined }, ...exitCases]) {
      const engine = new TradingEngine(referenceSetup(ref, exits));
      engine.onColumns(columnsOf(ref.bars), 0, ref.bars.length, "1d");
      engine.endDay();
      const fills = engine.drainEvents().filter((e) => e.type === "order_filled");
      const reasonOf = (f: (typeof ref.fills)[number]) => ("exit_reason" in f && f.exit_reason !== "crossover" ? f.exit_reason : null);
      expect(fills.map((e) => [e.data.side, e.data.quantity, e.data.exit_reason ?? null])).toEqual(ref.fills.map((f) => [f.side, f.quantity, reasonOf(f)]));
      expect(Math.abs(engine.view(null).equity - ref.final_value)).toBeLessThan(1e-6);
    }
  });
});

describe("the batch path against the streaming path under execution.intrabar", () => {
  it("gives identical events and snapshots when hourly bars' fills walk the minutes inside them, some hours without minutes", () => {
    const minutes = minuteBars(60_000, 5);
    // Hourly bars aggregated from the minutes; every seventh hour's minutes are not stored (its fills use the bar's own prices).
    const hourly: Bar[] = [];
    for (let h = 0; h + 60 <= minutes.length; h += 60) {
      const group = minutes.slice(h, h + 60);
      hourly.push({
        symbol: "AAPL.US",
        timestamp: group[0].timestamp,
        open: group[0].open,
        high: Math.max(...group.map((b) => b.high)),
        low: Math.min(...group.map((b) => b.low)),
        close: group[59].close,
        volume: 60_000,
      });
    }
    const stored = columnsOf(minutes.filter((_, i) => Math.floor(i / 60) % 7 !== 3));
    const setupOf = (intrabar: boolean) =>
      withExits(
        singleStrategySetup({
          symbols: ["AAPL.US"],
          timeframe: "1h",
          parameters: { fast_period: 3, slow_period: 8 },
          risk: risky,
          execution: { commission: { model: "percent", rate: 0.001 }, ...(intrabar ? { intrabar: "1m" as const } : {}) },
        }),
        { stop_loss_pct: 0.004, take_profit_pct: 0.006, trailing_stop_pct: 0.005 },
      );
    const setup = setupOf(true);
    const intrabarLog = (e: { type: string; data: Record<string, unknown> }) => e.type === "log" && e.data.intrabar !== undefined;
    const missing = (events: { type: string; data: Record<string, unknown> }[]) =>
      events.filter(intrabarLog).reduce((sum, e) => sum + (e.data.intrabar as { bars_without_minutes: number }).bars_without_minutes, 0);

    const streaming = new TradingEngine(setup);
    streaming.useMinutes("AAPL.US", stored);
    for (const bar of hourly) streaming.onBar(bar, "1h");
    streaming.reportIntrabar();
    streaming.endDay();
    const expected = streaming.drainEvents();
    const exitFills = expected.filter((e) => e.type === "order_filled" && e.data.exit_reason !== undefined);
    expect(new Set(exitFills.map((e) => e.data.exit_reason))).toEqual(new Set(["stop_loss", "take_profit", "trailing_stop"]));
    // Fills are stamped at the minute that reached them, not only at the hours' opens.
    expect(expected.filter((e) => e.type === "order_filled" && e.time % 3_600_000 !== hourly[0].timestamp % 3_600_000).length).toBeGreaterThan(10);
    expect(missing(expected)).toBeGreaterThan(0);
    // The minutes decide: the same bars without them fill otherwise.
    const coarse = new TradingEngine(setupOf(false));
    for (const bar of hourly) coarse.onBar(bar, "1h");
    coarse.endDay();
    const coarseFills = coarse.drainEvents().filter((e) => e.type === "order_filled");
    expect(coarseFills.map((e) => [e.time, e.data.price])).not.toEqual(expected.filter((e) => e.type === "order_filled").map((e) => [e.time, e.data.price]));

    // In uneven chunks through JSON snapshots; the minutes are handed again to each restored engine, as a backtest's chunk does.
    const columns = columnsOf(hourly);
    let batch = new TradingEngine(setup);
    const events = [];
    const cuts = [0, 1, 7, 8, 50, 123, 600, hourly.length];
    for (let c = 1; c < cuts.length; c++) {
      batch.useMinutes("AAPL.US", stored);
      batch.onColumns(columns, cuts[c - 1], cuts[c], "1h");
      batch.reportIntrabar();
      events.push(...batch.drainEvents());
      batch = TradingEngine.restore(setup, JSON.parse(JSON.stringify(batch.snapshot())));
    }
    batch.endDay();
    events.push(...batch.drainEvents());
    expect(missing(events)).toBe(missing(expected));
    const withoutReports = (list: EngineEvent[]) => list.filter((e) => !intrabarLog(e)).map(({ sequence: _, ...rest }) => rest);
    expect(withoutReports(events)).toEqual(withoutReports(expected));
    // The same state but for the event counter (the batch path wrote a report per chunk).
    const state = (engine: TradingEngine) => ({ ...JSON.parse(JSON.stringify(engine.snapshot())), sequence: 0 });
    expect(state(batch)).toEqual(state(streaming));
  });
});
