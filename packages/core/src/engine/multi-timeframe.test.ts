import { describe, expect, it } from "vitest";
import { seededRandom } from "../indicators/testing/random-bars";
import { limitsOf, defaults as riskDefaults } from "../risk/risk";
import { Strategies } from "../strategies/index";
import type { Timeframe } from "../strategies/definition";
import type { Bar } from "../strategies/strategy";
import { TradingEngine } from "./engine";
import type { EngineEvent } from "./events";
import { Execution, type EngineSetup } from "./setup";

/** A director on hourly bars and a pullback executor on 5-minute bars, one channel, traced. */
function mtfSetup(trace = true): EngineSetup {
  const symbols = ["AAPL.US"];
  return {
    session_id: "mtf1",
    base_currency: "USD",
    capital: { USD: "100000" },
    fx: {},
    channels: [
      {
        channel_id: "mtf",
        channel_type: "BALANCED",
        capital_allocation: 1,
        strategies: [
          {
            strategy_name: "trend_director",
            parameters: Strategies.validate("trend_director", { fast_period: 3, slow_period: 8, band_pct: 0.1, allow_short: true }).config!,
            weight: 1,
            symbols,
            timeframe: "1h",
            role: "director",
          },
          {
            strategy_name: "pullback_executor",
            parameters: Strategies.validate("pullback_executor", { rsi_period: 5, pullback_level: 45, exit_level: 55, trend_period: 10, allow_short: true })
              .config!,
            weight: 1,
            symbols,
            timeframe: "5m",
            role: "executor",
          },
        ],
        limits: limitsOf(riskDefaults()),
      },
    ],
    execution: Execution.parse({ commission: { model: "percent", rate: 0.0005 }, sizing: { model: "cash_fraction", fraction: 0.5 } }),
    risk: null,
    lots: {},
    fees: null,
    trading_days_per_year: 252,
    trace,
  };
}

/** Five-minute bars of 8 US sessions with a drift that turns every 2 days, and the hourly bars made of them, in close order (hourly first on ties). */
function bars(seed = 3): { bar: Bar; timeframe: Timeframe }[] {
  const random = seededRandom(seed);
  const out: { bar: Bar; timeframe: Timeframe; close: number; order: number }[] = [];
  let price = 50;
  for (let day = 0; day < 8; day++) {
    const open = Date.parse("2024-04-01T13:30:00Z") + day * 86_400_000;
    const drift = Math.floor(day / 2) % 2 === 0 ? 0.0015 : -0.0015;
    const fine: Bar[] = [];
    for (let i = 0; i < 78; i++) {
      const first = price;
      price *= 1 + drift + (random() - 0.5) * 0.006;
      fine.push({
        symbol: "AAPL.US",
        timestamp: open + i * 300_000,
        open: first,
        high: Math.max(first, price),
        low: Math.min(first, price),
        close: price,
        volume: 100,
      });
      out.push({ bar: fine[i]!, timeframe: "5m", close: open + (i + 1) * 300_000, order: 1 });
    }
    for (let h = 0; h < 78; h += 12) {
      const group = fine.slice(h, h + 12);
      const bar = {
        symbol: "AAPL.US",
        timestamp: group[0]!.timestamp,
        open: group[0]!.open,
        high: Math.max(...group.map((b) => b.high)),
        low: Math.min(...group.map((b) => b.low)),
        close: group.at(-1)!.close,
        volume: 1200,
      };
      out.push({ bar, timeframe: "1h", close: bar.timestamp + 3_600_000, order: 0 });
    }
  }
  return out.sort((a, b) => a.close - b.close || a.order - b.order).map(({ bar, timeframe }) => ({ bar, timeframe }));
}

function run(setup: EngineSetup): EngineEvent[] {
  const engine = new TradingEngine(setup);
  for (const { bar, timeframe } of bars()) engine.onBar(bar, timeframe);
  engine.endDay();
  return engine.drainEvents();
}

describe("multi-timeframe sessions in the engine", () => {
  const events = run(mtfSetup());

  it("hands the director's bias to the executor, which never trades against it, and lets the director place no orders", () => {
    const changes = events.filter((e) => e.type === "bias_changed");
    expect(changes.length).toBeGreaterThanOrEqual(2);
    expect(changes.map((e) => e.data.timeframe)).toEqual(changes.map(() => "1h"));
    // Each change starts where the previous one ended.
    changes.slice(1).forEach((change, i) => {
      expect(change.data.previous).toBe(changes[i]!.data.bias);
    });
    let bias = "flat";
    for (const event of events) {
      if (event.type === "bias_changed") bias = event.data.bias as string;
      if (event.type === "signal") {
        expect(event.data.bias).toBe(bias);
        const target = event.data.target_weight as number;
        if (target > 0) expect(bias).toBe("long");
        if (target < 0) expect(bias).toBe("short");
      }
    }
    const submitted = events.filter((e) => e.type === "order_submitted");
    expect(submitted.length).toBeGreaterThan(0);
    expect(submitted.every((e) => e.data.sleeve === "mtf/1")).toBe(true);
  });

  it("traces one strategy output per director and executor bar, with indicator values", () => {
    const outputs = events.filter((e) => e.type === "strategy_output");
    expect(outputs.filter((e) => e.data.timeframe === "5m")).toHaveLength(8 * 78);
    expect(outputs.filter((e) => e.data.timeframe === "1h")).toHaveLength(8 * 7);
    const last = outputs.filter((e) => e.data.role === "director").at(-1)!;
    expect(Object.keys(last.data.indicators as object)).toEqual(["fast_ma", "slow_ma"]);
    expect(typeof (last.data.indicators as Record<string, number>).fast_ma).toBe("number");
  });

  it("gives the same trading without the trace, only without its events", () => {
    const untraced = run(mtfSetup(false)).map((e) => ({ type: e.type, data: e.data, time: e.time }));
    const traced = events.filter((e) => e.type !== "strategy_output" && e.type !== "signal").map((e) => ({ type: e.type, data: e.data, time: e.time }));
    expect(untraced).toEqual(traced);
  });

  it("continues exactly after a snapshot restored at any cut, the director's state included", () => {
    const all = bars();
    for (const cut of [1, 13, 100, 333, all.length - 1]) {
      let engine = new TradingEngine(mtfSetup());
      const out: EngineEvent[] = [];
      all.forEach(({ bar, timeframe }, index) => {
        if (index === cut) {
          out.push(...engine.drainEvents());
          engine = TradingEngine.restore(mtfSetup(), JSON.parse(JSON.stringify(engine.snapshot())));
        }
        engine.onBar(bar, timeframe);
      });
      engine.endDay();
      out.push(...engine.drainEvents());
      expect(out).toEqual(events);
    }
  });
});
