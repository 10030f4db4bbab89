import { describe, expect, it } from "vitest";
import { TradingEngine } from "./engine";
import type { EngineEvent, FillData } from "./events";
import type { ProtectiveExits } from "./setup";
import { EXIT_VARIANTS, exitCase, referenceCase, referenceSetup, REFERENCE_SYMBOLS, type ReferenceCase } from "./testing/reference";

/** The reference rules' engine with `exits` on its entries. */
const referenceEngine = (ref: Pick<ReferenceCase, "symbol" | "rules">, exits?: ProtectiveExits) => new TradingEngine(referenceSetup(ref, exits));

type Fill = FillData & { order_type: string; exit_reason?: string; trigger_price?: number; gap?: boolean };

function run(engine: TradingEngine, ref: Pick<ReferenceCase, "bars">): EngineEvent[] {
  for (const bar of ref.bars) engine.onBar(bar, "1d");
  engine.endDay();
  return engine.drainEvents();
}

const fillsOf = (events: EngineEvent[]) => events.filter((e) => e.type === "order_filled").map((e) => e.data as unknown as Fill);

/** The final cash, value and commission within the fixtures' 1e-6. */
function expectFinal(engine: TradingEngine, ref: { final_cash: number; final_value: number; total_commission: number }) {
  const view = engine.view(null);
  const cash = Number(Object.values(view.cash)[0]);
  expect(Math.abs(cash - ref.final_cash)).toBeLessThan(1e-6);
  expect(Math.abs(view.equity - ref.final_value)).toBeLessThan(1e-6);
  expect(Math.abs(Number(view.stats.fees) - ref.total_commission)).toBeLessThan(1e-6);
}

describe("engine against the reference backtests", () => {
  for (const symbol of REFERENCE_SYMBOLS) {
    it(`reproduces every fill and the final value of ${symbol} (SMA 10/30, 0.1 % commission, 95 % sizing, next-open fills)`, () => {
      const ref = referenceCase(symbol);
      const engine = referenceEngine(ref);
      const fills = fillsOf(run(engine, ref));
      expect(fills.length).toBe(ref.fills.length);
      ref.fills.forEach((expected, i) => {
        const fill = fills[i];
        expect({ side: fill.side, quantity: fill.quantity }).toEqual({ side: expected.side, quantity: expected.quantity });
        expect(Number(fill.price)).toBeCloseTo(expected.price, 9);
        expect(Math.abs(Number(fill.commission) - expected.commission)).toBeLessThan(1e-6);
      });
      expectFinal(engine, ref);
    });

    for (const variant of EXIT_VARIANTS) {
      it(`reproduces every fill, exit reason and level of ${symbol} with protective exits (${variant})`, () => {
        const ref = exitCase(symbol, variant);
        const { stop_loss_pct, take_profit_pct, trailing_stop_pct } = ref.rules;
        const engine = referenceEngine(ref, { stop_loss_pct, take_profit_pct, trailing_stop_pct });
        const events = run(engine, ref);
        const fills = fillsOf(events);
        const times = ref.bars.map((bar) => bar.timestamp);
        expect(fills.length).toBe(ref.fills.length);
        ref.fills.forEach((expected, i) => {
          const fill = fills[i];
          const at = events.find((e) => e.type === "order_filled" && e.data.order_id === fill.order_id && e.data === (fill as unknown))!.time;
          const reason = fill.exit_reason ?? (fill.side === "sell" ? "crossover" : null);
          expect({ bar: times.indexOf(at), side: fill.side, quantity: fill.quantity, order_type: fill.order_type, exit_reason: reason }).toEqual({
            bar: expected.bar_index,
            side: expected.side,
            quantity: expected.quantity,
            order_type: expected.order_type,
            exit_reason: expected.exit_reason,
          });
          expect(Math.abs(Number(fill.price) - expected.price)).toBeLessThan(1e-6);
          expect(Math.abs(Number(fill.commission) - expected.commission)).toBeLessThan(1e-6);
          if (expected.trigger_price !== undefined) {
            expect(fill.trigger_price).toBe(expected.trigger_price);
            expect(fill.gap).toBe(expected.gap);
          }
        });
        const closed = events.filter((e) => e.type === "trade_closed").map((e) => e.data.exit_reason);
        const counts = { stop_loss: 0, take_profit: 0, trailing_stop: 0, crossover: 0 };
        for (const reason of closed) counts[reason === "signal" ? "crossover" : (reason as keyof typeof counts)] += 1;
        expect({ ...counts, open_at_end: engine.view(null).positions.length }).toEqual(ref.exit_counts);
        expectFinal(engine, ref);
      });
    }
  }
});
