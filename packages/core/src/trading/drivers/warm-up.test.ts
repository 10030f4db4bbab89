import { describe, expect, it } from "vitest";
import type { MarketData } from "../../provider/market-data";
import type { Candlestick } from "../../provider/quote-types";
import { recentBars } from "./warm-up";

/** History of daily candles on weekdays, with one pre-market candle a day, and the calls made. */
function provider(firstDay: string) {
  const calls: string[] = [];
  const data = {
    async historyCandlesticksByDate(_symbol: string, _period: string, _adjust: string, start: string, end: string): Promise<Candlestick[]> {
      calls.push(`${start}..${end}`);
      const out: Candlestick[] = [];
      for (let day = Date.parse(start); day <= Date.parse(end); day += 86_400_000) {
        const weekday = new Date(day).getUTCDay();
        if (weekday === 0 || weekday === 6 || day < Date.parse(firstDay)) continue;
        const close = String(100 + (day - Date.parse("2024-01-01")) / 86_400_000);
        const candle = { open: close, high: close, low: close, close, volume: 10, turnover: "0" };
        out.push({ ...candle, timestamp: new Date(day).toISOString(), trade_session: "Intraday" } as Candlestick);
        out.push({ ...candle, timestamp: new Date(day - 3_600_000).toISOString(), trade_session: "Pre" } as Candlestick);
      }
      return out;
    },
  };
  return { data: data as unknown as MarketData, calls };
}

describe("warm-up history", () => {
  it("gives the last closed regular-session bars before the instant, oldest first", async () => {
    const { data, calls } = provider("2020-01-01");
    // Friday 2024-03-15 12:00 UTC: Thursday's daily bar has closed, Friday's has not.
    const bars = await recentBars(data, "AAPL.US", "1d", 3, Date.parse("2024-03-15T12:00:00Z"));
    expect(bars.map((bar) => new Date(bar.timestamp).toISOString().slice(0, 10))).toEqual(["2024-03-12", "2024-03-13", "2024-03-14"]);
    expect(bars[2]).toMatchObject({ symbol: "AAPL.US", close: 173, volume: 10 });
    expect(calls).toHaveLength(1);
  });

  it("reads further back a window at a time, and stops after a run of empty windows", async () => {
    const minutes = provider("2024-03-11");
    // One exchange day per 1-minute window; a symbol listed on Monday the 11th has five days of (here one-bar) history.
    const bars = await recentBars(minutes.data, "AAPL.US", "1m", 100, Date.parse("2024-03-15T12:00:00Z"));
    expect(bars.map((bar) => new Date(bar.timestamp).toISOString().slice(0, 10))).toEqual([
      "2024-03-11",
      "2024-03-12",
      "2024-03-13",
      "2024-03-14",
      "2024-03-15",
    ]);
    expect(minutes.calls.slice(0, 2)).toEqual(["2024-03-15..2024-03-15", "2024-03-14..2024-03-14"]);
    // Five days with bars, then seven empty ones (a weekend and the days before the listing).
    expect(minutes.calls).toHaveLength(5 + 7);
    expect(await recentBars(minutes.data, "AAPL.US", "1m", 0, Date.now())).toEqual([]);
  });
});
