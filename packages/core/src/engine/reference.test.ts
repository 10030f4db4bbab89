import { describe, expect, it } from "vitest";
import { TradingEngine } from "./engine";
import type { FillData } from "./events";
import { referenceCase, REFERENCE_SYMBOLS } from "./testing/reference";
import { singleStrategySetup } from "./testing/setups";

describe("engine against the reference backtests", () => {
  for (const symbol of REFERENCE_SYMBOLS) {
    it(`reproduces every fill and the final value of ${symbol} (SMA 10/30, 0.1 % commission, 95 % sizing, next-open fills)`, () => {
      const ref = referenceCase(symbol);
      const engine = new TradingEngine(
        singleStrategySetup({
          symbols: [symbol],
          parameters: { fast_period: ref.rules.fast, slow_period: ref.rules.slow, ma_type: "sma" },
          capital: String(ref.rules.initial_cash),
          execution: {
            commission: { model: "percent", rate: ref.rules.commission_rate },
            sizing: { model: "cash_fraction", fraction: ref.rules.allocation },
            fill: "next_open",
          },
          lots: { [symbol]: ref.rules.lot },
        }),
      );
      for (const bar of ref.bars) engine.onBar(bar, "1d");
      engine.endDay();
      const fills = engine
        .drainEvents()
        .filter((e) => e.type === "order_filled")
        .map((e) => e.data as unknown as FillData);
      expect(fills.length).toBe(ref.fills.length);
      ref.fills.forEach((expected, i) => {
        const fill = fills[i];
        expect({ side: fill.side, quantity: fill.quantity }).toEqual({ side: expected.side, quantity: expected.quantity });
        expect(Number(fill.price)).toBeCloseTo(expected.price, 9);
        expect(Math.abs(Number(fill.commission) - expected.commission)).toBeLessThan(1e-6);
      });
      const view = engine.view(null);
      const cash = Number(Object.values(view.cash)[0]);
      expect(Math.abs(cash - ref.final_cash)).toBeLessThan(1e-6);
      expect(Math.abs(view.equity - ref.final_value)).toBeLessThan(1e-6);
      expect(Math.abs(Number(view.stats.fees) - ref.total_commission)).toBeLessThan(1e-6);
    });
  }
});
