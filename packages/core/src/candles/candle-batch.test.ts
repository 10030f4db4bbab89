import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { seededRandom } from "../indicators/testing/random-bars";
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

  it("packs decimal prices, whole volumes and absent turnover as integers and gives back the very float64 values", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 6 }),
        fc.array(fc.record({ units: fc.integer({ min: 1, max: 2_000_000_000 }), volume: fc.integer({ min: 1, max: 2_000_000_000 }) }), {
          minLength: 1,
          maxLength: 400,
        }),
        (places, rows) => {
          const batch = CandleBatches.fromCandles(
            rows.map((row, index) => {
              // Prices as the provider's decimal strings parse (the double nearest the decimal), at most `places` places.
              const price = Number((row.units / 10 ** places).toFixed(places));
              return {
                timestamp: 1_700_000_000 + index * 60,
                open: price,
                high: price,
                low: price,
                close: price,
                volume: row.volume,
                turnover: 0,
                trade_session: "Intraday" as const,
              };
            }),
          );
          const packed = CandleBatches.pack(batch);
          const back = CandleBatches.unpack(packed);
          for (const column of ["timestamp", "open", "high", "low", "close", "volume", "turnover"] as const) {
            for (let index = 0; index < batch.length; index++) expect(Object.is(back[column][index], batch[column][index])).toBe(true);
          }
          expect(Array.from(back.session)).toEqual(Array.from(batch.session));
        },
      ),
    );
  });

  it("keeps any double a column holds, -0, infinities and NaN included, by storing that column as float64", () => {
    fc.assert(
      fc.property(fc.array(fc.double(), { minLength: 1, maxLength: 50 }), (values) => {
        const batch = CandleBatches.empty(values.length);
        values.forEach((value, index) => {
          batch.timestamp[index] = index * 60;
          batch.close[index] = value;
          batch.turnover[index] = -value;
        });
        const back = CandleBatches.unpack(CandleBatches.pack(batch));
        values.forEach((value, index) => {
          expect(Object.is(back.close[index], value)).toBe(true);
          expect(Object.is(back.turnover[index], -value)).toBe(true);
          expect(Object.is(back.open[index], 0)).toBe(true);
        });
      }),
    );
  });

  it("reads a block that lies anywhere in a larger buffer (as the SDK hands binary attributes), with and without float64 columns", () => {
    const lean = CandleBatches.fromCandles([candle(1_700_000_040, 187.43), candle(1_700_000_100, 187.5, "Post")]);
    const wide = CandleBatches.fromCandles([candle(1_700_000_040, 0.1 + 0.2), candle(1_700_000_100, Math.PI, "Pre")]);
    for (const batch of [lean, wide]) {
      const packed = CandleBatches.pack(batch);
      const shared = new Uint8Array(packed.length + 3);
      shared.set(packed, 3);
      const back = CandleBatches.unpack(shared.subarray(3));
      expect([0, 1].map((index) => CandleBatches.get(back, index))).toEqual([0, 1].map((index) => CandleBatches.get(batch, index)));
    }
  });

  it("reads buckets stored in the plain layout (7 float64 columns, then the sessions)", () => {
    const batch = CandleBatches.fromCandles([candle(1_700_000_040, 187.43), candle(1_700_000_100, 0.1 + 0.2, "Post")]);
    const plain = new Uint8Array(batch.length * 57);
    const floats = new Float64Array(plain.buffer, 0, batch.length * 7);
    (["timestamp", "open", "high", "low", "close", "volume", "turnover"] as const).forEach((column, index) => {
      floats.set(batch[column], index * batch.length);
    });
    plain.set(batch.session, batch.length * 56);
    const back = CandleBatches.unpack(plain);
    expect([0, 1].map((index) => CandleBatches.get(back, index))).toEqual([0, 1].map((index) => CandleBatches.get(batch, index)));
    expect(CandleBatches.pack(batch).length).toBeLessThan(plain.length);
  });

  it("packs a day of minute candles into about a dozen bytes each (varint steps, session runs), and reads the int32 layout before it", () => {
    const random = seededRandom(7);
    let price = 18_750;
    const rows: Candle[] = [];
    for (let minute = -330; minute < 630; minute++) {
      const open = price;
      price += Math.round((random() - 0.5) * 40);
      rows.push({
        timestamp: 1_709_559_000 + minute * 60,
        open: open / 100,
        high: (Math.max(open, price) + 3) / 100,
        low: (Math.min(open, price) - 2) / 100,
        close: price / 100,
        volume: 1_000 + Math.round(random() * 50_000),
        turnover: 0,
        trade_session: minute < 0 ? "Pre" : minute < 390 ? "Intraday" : "Post",
      });
    }
    const batch = CandleBatches.fromCandles(rows);
    const packed = CandleBatches.pack(batch);
    expect(packed.length / batch.length).toBeLessThan(9);
    const same = (back: ReturnType<typeof CandleBatches.unpack>) =>
      expect(Array.from({ length: batch.length }, (_, i) => CandleBatches.get(back, i))).toEqual(rows);
    same(CandleBatches.unpack(packed));
    // The first lean version: the same header (version 1), then int32 columns of units, then the session bytes.
    const encodings = [0, 2, 2, 2, 2, 0, -2];
    const columns = ["timestamp", "open", "high", "low", "close", "volume"] as const;
    const v1 = new Uint8Array(16 + batch.length * (4 * columns.length + 1));
    const view = new DataView(v1.buffer);
    view.setUint8(0, 0xc5);
    view.setUint8(1, 1);
    view.setUint32(4, batch.length, true);
    encodings.forEach((encoding, index) => {
      view.setInt8(8 + index, encoding);
    });
    columns.forEach((column, index) => {
      const ints = new Int32Array(v1.buffer, 16 + index * 4 * batch.length, batch.length);
      for (let i = 0; i < batch.length; i++) ints[i] = Math.round(batch[column][i]! * 10 ** encodings[index]!);
    });
    v1.set(batch.session, 16 + columns.length * 4 * batch.length);
    same(CandleBatches.unpack(v1));
    expect(() => CandleBatches.unpack(packed.subarray(0, packed.length - 1))).toThrow("Corrupt candle block");
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
