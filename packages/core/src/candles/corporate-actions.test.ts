import { describe, expect, it } from "vitest";
import type { Candlestick } from "../provider/quote-types";
import { CandleBatches } from "./candle-batch";
import { CorporateActions, PriceAdjuster } from "./corporate-actions";

/** A daily candle of a US symbol as LongPort answers it (stamped at the day's New York midnight, three decimals). */
const daily = (date: string, close: number): Candlestick => ({
  open: close.toFixed(3),
  high: close.toFixed(3),
  low: close.toFixed(3),
  close: close.toFixed(3),
  volume: 1000,
  turnover: "0",
  timestamp: new Date(`${date}T04:00:00Z`).toISOString(),
  trade_session: "Intraday",
});

const DAYS = ["2024-06-03", "2024-06-04", "2024-06-05", "2024-06-06", "2024-06-07"];

describe("corporate actions from actual and forward-adjusted prices", () => {
  it("finds a 5-for-1 split on the first day at the new price, with ratio 0.2", () => {
    const actual = [500, 510, 102, 104, 103].map((close, i) => daily(DAYS[i]!, close));
    const adjusted = [100, 102, 102, 104, 103].map((close, i) => daily(DAYS[i]!, close));
    expect(CorporateActions.derive("AAPL.US", actual, adjusted)).toEqual([{ symbol: "AAPL.US", ex_date: "2024-06-05", ratio: 0.2 }]);
  });

  it("finds a dividend and a consolidation, and nothing where the provider answers the same prices", () => {
    const actual = [100, 101, 99, 10, 10.2].map((close, i) => daily(DAYS[i]!, close));
    // Before 06-05 the adjusted prices are 1 % lower (a dividend of 1 % of the price); 06-06 is a 1-for-10 consolidation.
    const adjusted = [99, 99.99, 99, 100, 102].map((close, i) => daily(DAYS[i]!, close));
    const actions = CorporateActions.derive("AAPL.US", actual, adjusted);
    expect(actions.map((a) => a.ex_date)).toEqual(["2024-06-05", "2024-06-06"]);
    expect(actions[0]!.ratio).toBeCloseTo(0.99, 9);
    expect(actions[1]!.ratio).toBeCloseTo(0.1, 9);
    expect(CorporateActions.derive("AAPL.US", actual, actual)).toEqual([]);
  });

  it("ignores factor changes within the rounding of the answered prices", () => {
    // A 0.9 factor on prices rounded to three decimals wobbles by about 1e-5 of the price.
    const closes = [12.347, 12.351, 12.349, 12.353];
    const actual = closes.map((close, i) => daily(DAYS[i]!, close));
    const adjusted = closes.map((close, i) => daily(DAYS[i]!, Math.round(close * 0.9 * 1000) / 1000));
    expect(CorporateActions.derive("AAPL.US", actual, adjusted)).toEqual([]);
  });

  it("merges learnt actions over stored ones, replacing an action of the same ex-date", () => {
    const stored = [
      { ex_date: "2024-06-05", ratio: 0.5 },
      { ex_date: "2023-01-03", ratio: 0.99 },
    ];
    expect(CorporateActions.merge(stored, [{ symbol: "AAPL.US", ex_date: "2024-06-05", ratio: 0.2 }])).toEqual([
      { ex_date: "2023-01-03", ratio: 0.99 },
      { ex_date: "2024-06-05", ratio: 0.2 },
    ]);
  });
});

describe("forward adjustment of stored bars", () => {
  const batch = () =>
    CandleBatches.fromCandles(
      [500, 510, 102, 104].map((close, i) => ({
        timestamp: Date.parse(`${DAYS[i]}T04:00:00Z`) / 1000,
        open: close,
        high: close,
        low: close,
        close,
        volume: 100,
        turnover: 0,
        trade_session: "Intraday" as const,
      })),
    );

  it("scales the bars before an ex-date by its ratio, divides their volumes, and leaves the stored batch as it was", () => {
    const stored = batch();
    const [adjusted] = new PriceAdjuster([{ symbol: "AAPL.US", ex_date: "2024-06-05", ratio: 0.2 }]).adjust("AAPL.US", [stored]);
    expect(Array.from(adjusted!.close)).toEqual([100, 102, 102, 104]);
    expect(Array.from(adjusted!.volume)).toEqual([500, 500, 100, 100]);
    expect(Array.from(stored.close)).toEqual([500, 510, 102, 104]);
  });

  it("multiplies the ratios of every later action, and hands back batches it does not change", () => {
    const adjuster = new PriceAdjuster([
      { symbol: "AAPL.US", ex_date: "2024-06-04", ratio: 0.5 },
      { symbol: "AAPL.US", ex_date: "2024-06-05", ratio: 0.2 },
    ]);
    const [adjusted] = adjuster.adjust("AAPL.US", [batch()]);
    expect(Array.from(adjusted!.close).map((v) => Math.round(v * 1e9) / 1e9)).toEqual([50, 102, 102, 104]);
    const other = batch();
    expect(adjuster.adjust("MSFT.US", [other])[0]).toBe(other);
    const after = CandleBatches.slice(batch(), 2, 4);
    expect(adjuster.adjust("AAPL.US", [after])[0]).toBe(after);
  });
});
