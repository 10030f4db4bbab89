import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Fees } from "../fees/index";
import { TradingEngine, type EngineSnapshot } from "./engine";
import type { EngineEvent } from "./events";
import { interleavedBars, twoChannelSetup } from "./testing/scenarios";

const BARS = 600;
const setup = twoChannelSetup(Fees.defaults("longport"));

function uninterrupted(seed: number): { events: EngineEvent[]; snapshot: EngineSnapshot } {
  const engine = new TradingEngine(setup);
  for (const bar of interleavedBars(BARS, seed)) engine.onBar(bar, "1d");
  engine.endDay();
  return { events: engine.drainEvents(), snapshot: engine.snapshot() };
}

describe("engine snapshots", () => {
  it("a run exercises fills, denials, closed trades, halts and day ends", () => {
    const types = new Set(uninterrupted(7).events.map((e) => e.type));
    for (const type of ["order_submitted", "order_filled", "order_denied", "trade_closed", "risk_event", "alert", "day_end"]) {
      expect(types).toContain(type);
    }
  });

  it("restoring the snapshot taken after any bar and continuing gives exactly the events of the uninterrupted run", () => {
    const runs = new Map<number, ReturnType<typeof uninterrupted>>();
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.array(fc.integer({ min: 1, max: BARS * 2 - 1 }), { minLength: 1, maxLength: 3 }), (seed, cuts) => {
        if (!runs.has(seed)) runs.set(seed, uninterrupted(seed));
        const expected = runs.get(seed)!;
        const bars = interleavedBars(BARS, seed);
        const stops = [...new Set(cuts)].sort((a, b) => a - b);
        let engine = new TradingEngine(setup);
        const events: EngineEvent[] = [];
        let next = 0;
        for (const stop of [...stops, bars.length]) {
          for (; next < stop; next++) engine.onBar(bars[next], "1d");
          events.push(...engine.drainEvents());
          // Through JSON, as the store keeps it.
          engine = TradingEngine.restore(setup, JSON.parse(JSON.stringify(engine.snapshot())));
        }
        engine.endDay();
        events.push(...engine.drainEvents());
        expect(events).toEqual(expected.events);
        expect(JSON.parse(JSON.stringify(engine.snapshot()))).toEqual(JSON.parse(JSON.stringify(expected.snapshot)));
      }),
      { numRuns: 40, seed: 20261124 },
    );
  });
});
