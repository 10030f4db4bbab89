import { describe, expect, it } from "vitest";
import { Calendar } from "../market/calendar";
import type { Candlestick } from "../provider/quote-types";
import { screenCandles } from "./screen";

const candleAt = (ms: number): Candlestick =>
  ({
    timestamp: new Date(ms).toISOString(),
    open: "10",
    high: "11",
    low: "9",
    close: "10.5",
    volume: 100,
    turnover: "1050",
    trade_session: "Intraday",
  }) as Candlestick;

describe("screening provider candles", () => {
  it("keeps exactly the candles inside a session (or ending at one's end), across days, sessions and a holiday", () => {
    const calendar = Calendar.for("US");
    for (const [period, seconds] of [
      ["1m", 60],
      ["5m", 300],
      ["1h", 3600],
    ] as const) {
      // Every step from Wednesday 2024-07-03 (a half day) through the holiday and Friday to Saturday.
      const from = Date.parse("2024-07-03T00:00:00Z");
      const to = Date.parse("2024-07-06T12:00:00Z");
      const candles: Candlestick[] = [];
      for (let ms = from; ms < to; ms += seconds * 1000) candles.push(candleAt(ms));
      const { batch, filtered } = screenCandles(candles, period, calendar, [0, Number.MAX_SAFE_INTEGER]);
      // The rule, asked candle by candle of the calendar.
      const expected = candles
        .map((candle) => Date.parse(candle.timestamp))
        .filter((ms) => calendar.sessionAt(ms, { overnight: true }) !== null || calendar.sessionAt(ms - seconds * 1000, { overnight: true }) !== null)
        .map((ms) => ms / 1000);
      expect(Array.from(batch.timestamp)).toEqual(expected);
      expect(filtered).toBe(candles.length - expected.length);
      expect(expected.length).toBeGreaterThan(0);
    }
  });
});
