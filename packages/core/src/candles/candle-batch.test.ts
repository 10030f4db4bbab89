import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CandleBatches, type Candle } from "./candle-batch";

const candle = (timestamp: number, close = 10, session: Candle["trade_session"] = "Intraday"): Candle => ({
  timestamp,
  open: close,
  high: close + 1,
  low: close - 1,
  close,
  volume: 100,
  turnover: close * 100,
  trade_session: session,
});

describe("candle batches", () => {
  it("pack and unpack give back every column exactly", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            timestamp: fc.integer({ min: 0, max: 2_000_000_000 }),
            close: fc.double({ min: 0.001, max: 1e6, noNaN: true }),
            session: fc.constantFrom("Intraday", "Pre", "Post", "Overnight" as const),
          }),
          { maxLength: 200 },
        ),
        (rows) => {
          const batch = CandleBatches.fromCandles(rows.map((row) => candle(row.timestamp, row.close, row.session)));
          const back = CandleBatches.unpack(CandleBatches.pack(batch));
          expect(back.length).toBe(batch.length);
          for (let index = 0; index < batch.length; index++) {
            expect(CandleBatches.get(back, index)).toEqual(CandleBatches.get(batch, index));
          }
        },
      ),
    );
  });

  it("merge keeps time order, overwrites equal timestamps and counts new and overwritten", () => {
    const existing = CandleBatches.fromCandles([candle(60), candle(120), candle(180)]);
    const incoming = CandleBatches.fromCandles([candle(120, 99), candle(240)]);
    const { batch, added, overwritten } = CandleBatches.merge(existing, incoming);
    expect(Array.from(batch.timestamp)).toEqual([60, 120, 180, 240]);
    expect(batch.close[1]).toBe(99);
    expect({ added, overwritten }).toEqual({ added: 1, overwritten: 1 });
  });

  it("keeps the last of duplicate timestamps in one input", () => {
    const batch = CandleBatches.fromCandles([candle(60, 1), candle(60, 2)]);
    expect(batch.length).toBe(1);
    expect(batch.close[0]).toBe(2);
  });

  it("finds the first candle at or after a time", () => {
    const batch = CandleBatches.fromCandles([candle(60), candle(120), candle(180)]);
    expect([0, 60, 61, 180, 181].map((time) => CandleBatches.lowerBound(batch, time))).toEqual([0, 0, 1, 2, 3]);
  });
});
