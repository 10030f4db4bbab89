import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { Calendar } from "@tp/core/market/calendar";
import { tickTableFor } from "@tp/core/market/tick-size";
import { TradeSessionByCode } from "@tp/core/market/trade-session";
import { isoDateOf } from "@tp/core/market/zoned-time";
import type { Period } from "@tp/core/provider/quote-enums";
import { MASK_ALL, MASK_EXTENDED, MASK_INTRADAY } from "./day-layout";
import { SimulationEngine, type SimulatedBarColumns } from "./simulation-engine";
import { SimulatedUniverse } from "./universe";

const engine = new SimulationEngine();
const END_OF_TIME = Date.parse("2030-01-01T00:00:00Z");
const symbols = SimulatedUniverse.map((s) => s.symbol);
const intradayPeriods: Period[] = ["2m", "3m", "5m", "10m", "15m", "20m", "30m", "45m", "1h", "2h", "3h", "4h"];

const anySymbol = fc.constantFrom(...symbols);
const anyMask = fc.constantFrom(MASK_INTRADAY, MASK_EXTENDED, MASK_ALL);
const anyOrdinal = (symbol: string) => fc.integer({ min: 0, max: engine.instrument(symbol)!.timeline.count - 1 });
const symbolAndDay = anySymbol.chain((symbol) => fc.tuple(fc.constant(symbol), anyOrdinal(symbol)));

function rows(bars: SimulatedBarColumns) {
  return Array.from({ length: bars.length }, (_, i) => ({
    start: bars.start[i],
    end: bars.end[i],
    open: bars.open[i],
    high: bars.high[i],
    low: bars.low[i],
    close: bars.close[i],
    volume: bars.volume[i],
    turnover: bars.turnover[i],
    session: bars.session[i],
    ordinal: bars.ordinal[i],
  }));
}

/** Aggregates rows in order, exactly as a longer bar must be built from shorter ones. */
function aggregate(parts: ReturnType<typeof rows>) {
  let turnover = 0;
  let volume = 0;
  for (const p of parts) {
    volume += p.volume;
    turnover += p.turnover;
  }
  return {
    open: parts[0].open,
    high: Math.max(...parts.map((p) => p.high)),
    low: Math.min(...parts.map((p) => p.low)),
    close: parts[parts.length - 1].close,
    volume,
    turnover,
  };
}

describe("simulated candles aggregate one 1-minute path", () => {
  it("builds every intraday bar exactly from the 1-minute bars inside it", () => {
    fc.assert(
      fc.property(symbolAndDay, fc.constantFrom(...intradayPeriods), anyMask, ([symbol, ordinal], period, mask) => {
        const instrument = engine.instrument(symbol)!;
        const minutes = rows(engine.bars(instrument, "1m", ordinal, ordinal, END_OF_TIME, mask));
        const bars = rows(engine.bars(instrument, period, ordinal, ordinal, END_OF_TIME, mask));
        let covered = 0;
        for (const bar of bars) {
          const inside = minutes.filter((m) => m.start >= bar.start && m.start < bar.end);
          expect(inside.length).toBeGreaterThan(0);
          expect(inside.every((m) => m.session === bar.session)).toBe(true);
          expect({ ...bar, start: 0, end: 0, session: 0, ordinal: 0 }).toEqual({ ...aggregate(inside), start: 0, end: 0, session: 0, ordinal: 0 });
          covered += inside.length;
        }
        expect(covered).toBe(minutes.length);
      }),
      { numRuns: 60 },
    );
  });

  it("builds a daily bar exactly from its day's 1-minute bars in the requested sessions", () => {
    fc.assert(
      fc.property(symbolAndDay, anyMask, ([symbol, ordinal], mask) => {
        const instrument = engine.instrument(symbol)!;
        const minutes = rows(engine.bars(instrument, "1m", ordinal, ordinal, END_OF_TIME, mask));
        const [day] = rows(engine.bars(instrument, "1d", ordinal, ordinal, END_OF_TIME, mask));
        expect({ ...day, start: 0, end: 0, session: 0, ordinal: 0 }).toEqual({ ...aggregate(minutes), start: 0, end: 0, session: 0, ordinal: 0 });
        expect(day.start).toBe(instrument.timeline.layout(ordinal).midnight);
      }),
      { numRuns: 60 },
    );
  });

  it("builds weekly, monthly, quarterly and yearly bars from the daily bars of each group", () => {
    const units: [Period, (d: Date) => string][] = [
      ["1w", (d) => String(Math.floor((d.getTime() / 86_400_000 + 3) / 7))],
      ["1mo", (d) => `${d.getUTCFullYear()}-${d.getUTCMonth()}`],
      ["1q", (d) => `${d.getUTCFullYear()}-${Math.floor(d.getUTCMonth() / 3)}`],
      ["1y", (d) => `${d.getUTCFullYear()}`],
    ];
    fc.assert(
      fc.property(anySymbol, fc.constantFrom(...units), fc.constantFrom(MASK_INTRADAY, MASK_EXTENDED), (symbol, [period, keyOf], mask) => {
        const instrument = engine.instrument(symbol)!;
        // Daily bars beyond the range too: the last group runs to its own end.
        const days = rows(engine.bars(instrument, "1d", 1000, 1600, END_OF_TIME, mask));
        const groups = rows(engine.bars(instrument, period, 1000, 1300, END_OF_TIME, mask));
        const dayKey = (ordinal: number) => keyOf(new Date(instrument.timeline.calendar.tradingDayNumbers[ordinal] * 86_400_000));
        for (const group of groups) {
          const members = days.filter((d) => dayKey(d.ordinal) === dayKey(group.ordinal));
          // Groups are whole: the first group starts on or after day 1000 at a group boundary.
          if (members.length === 0 || members[0].ordinal !== group.ordinal) continue;
          expect({ ...group, start: 0, end: 0, session: 0, ordinal: 0 }).toEqual({ ...aggregate(members), start: 0, end: 0, session: 0, ordinal: 0 });
          expect(group.start).toBe(members[0].start);
        }
      }),
      { numRuns: 12 },
    );
  });
});

describe("simulated bars are realistic", () => {
  it("keeps OHLC consistent, prices on valid ticks and volume in whole lots", () => {
    fc.assert(
      fc.property(symbolAndDay, fc.constantFrom<Period>("1m", "5m", "1h", "1d"), ([symbol, ordinal], period) => {
        const instrument = engine.instrument(symbol)!;
        const spec = instrument.spec;
        const table = tickTableFor(spec.market, { etp: spec.etp, dayNumber: instrument.timeline.calendar.tradingDayNumbers[ordinal] });
        // Collect violations and assert once: per-bar expects would dominate the run time.
        const problems: string[] = [];
        for (const bar of rows(engine.bars(instrument, period, ordinal, ordinal, END_OF_TIME, MASK_ALL))) {
          const at = `${symbol} ${new Date(bar.start).toISOString()}`;
          if (!(bar.low > 0)) problems.push(`${at} low ${bar.low} not positive`);
          if (bar.low > Math.min(bar.open, bar.close)) problems.push(`${at} low above open/close`);
          if (bar.high < Math.max(bar.open, bar.close)) problems.push(`${at} high below open/close`);
          for (const price of [bar.open, bar.high, bar.low, bar.close]) if (!table.isValid(price)) problems.push(`${at} ${price} off tick`);
          if (!Number.isInteger(bar.volume) || bar.volume <= 0 || bar.volume % spec.lotSize !== 0) problems.push(`${at} volume ${bar.volume}`);
          const average = bar.turnover / bar.volume;
          if (average < bar.low - 1e-6 || average > bar.high + 1e-6) problems.push(`${at} average price ${average} outside range`);
        }
        expect(problems).toEqual([]);
      }),
      { numRuns: 80 },
    );
  });

  it("puts 1-minute bars only inside the calendar's sessions of trading days", () => {
    fc.assert(
      fc.property(symbolAndDay, ([symbol, ordinal]) => {
        const instrument = engine.instrument(symbol)!;
        const calendar = Calendar.for(instrument.spec.market);
        const date = isoDateOf(calendar.tradingDayNumbers[ordinal]);
        expect(calendar.isTradingDay(date)).toBe(true);
        const sessions = calendar.sessionsOf(date, { overnight: true });
        const minutes = rows(engine.bars(instrument, "1m", ordinal, ordinal, END_OF_TIME, MASK_ALL));
        expect(minutes.length).toBe(sessions.reduce((sum, s) => sum + (s.end - s.start) / 60_000, 0));
        const misplaced = minutes.filter((bar) => {
          const session = sessions.find((s) => bar.start >= s.start && bar.end <= s.end);
          return session?.session !== TradeSessionByCode[bar.session] || bar.start % 60_000 !== 0;
        });
        expect(misplaced).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });

  it("trades most at the open and the close of the regular session", () => {
    const instrument = engine.instrument("AAPL.US")!;
    const bars = rows(engine.bars(instrument, "30m", 1200, 1259, END_OF_TIME, MASK_INTRADAY));
    const byStartOfDay = new Map<number, number[]>();
    for (const bar of bars) {
      const slot = bar.start - instrument.timeline.layout(bar.ordinal).blockStart[2];
      byStartOfDay.set(slot, [...(byStartOfDay.get(slot) ?? []), bar.volume]);
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const first = mean(byStartOfDay.get(0)!);
    const midday = mean(byStartOfDay.get(3 * 3_600_000)!);
    const last = mean(byStartOfDay.get(6 * 3_600_000)!);
    expect(first).toBeGreaterThan(2 * midday);
    expect(last).toBeGreaterThan(2 * midday);
  });

  it("continues each US day's path from the previous day's last close", () => {
    fc.assert(
      fc.property(fc.constantFrom(...symbols.filter((s) => s.endsWith(".US"))), fc.integer({ min: 1, max: 2200 }), (symbol, ordinal) => {
        const instrument = engine.instrument(symbol)!;
        const previous = engine.day(instrument, ordinal - 1);
        const today = engine.day(instrument, ordinal);
        expect(today.open[0]).toBe(previous.close[previous.close.length - 1]);
      }),
      { numRuns: 40 },
    );
  });

  it("keeps long-run prices within a sensible band of the instrument's level", () => {
    for (const instrument of engine.instruments) {
      const anchors = instrument.anchors();
      expect(anchors).toHaveLength(instrument.timeline.count + 1);
      for (const anchor of anchors) {
        expect(Math.exp(anchor)).toBeGreaterThan(instrument.spec.basePrice / 8);
        expect(Math.exp(anchor)).toBeLessThan(instrument.spec.basePrice * 6);
      }
    }
    const years = rows(engine.bars(engine.instrument("9988.HK")!, "1y", 0, 99_999, END_OF_TIME, MASK_INTRADAY));
    expect(years.map((y) => new Date(y.start).toISOString().slice(0, 10))).toEqual([
      "2020-01-01",
      "2021-01-03",
      "2022-01-02",
      "2023-01-02",
      "2024-01-01",
      "2025-01-01",
      "2026-01-01",
      "2027-01-03",
      "2028-01-02",
    ]);
  });
});

describe("simulated data is deterministic", () => {
  it("gives identical bars from two engines, whatever was generated before", () => {
    fc.assert(
      fc.property(symbolAndDay, fc.constantFrom<Period>("1m", "15m", "1d"), ([symbol, ordinal], period) => {
        const other = new SimulationEngine({ cachedDays: 4 });
        // Warm the other engine with unrelated days so caches and scratch buffers differ.
        other.bars(other.instrument(symbols[(symbols.indexOf(symbol) + 3) % symbols.length])!, "1m", 10, 12, END_OF_TIME, MASK_ALL);
        const a = rows(engine.bars(engine.instrument(symbol)!, period, ordinal, ordinal, END_OF_TIME, MASK_ALL));
        const b = rows(other.bars(other.instrument(symbol)!, period, ordinal, ordinal, END_OF_TIME, MASK_ALL));
        expect(b).toEqual(a);
      }),
      { numRuns: 25 },
    );
  });

  it("pins known values so a model change is a visible decision", () => {
    const instrument = engine.instrument("700.HK")!;
    const [first] = rows(engine.bars(instrument, "1d", 0, 0, END_OF_TIME, MASK_INTRADAY));
    const again = rows(new SimulationEngine().bars(instrument, "1d", 0, 0, END_OF_TIME, MASK_INTRADAY))[0];
    expect(again).toEqual(first);
    expect(isoDateOf(instrument.timeline.calendar.tradingDayNumbers[0])).toBe("2020-01-02");
  });
});

describe("bar alignment", () => {
  it("starts HK hourly bars at 09:30, 10:30, 11:30 (half hour to lunch), 13:00, 14:00 and 15:00", () => {
    const instrument = engine.instrument("700.HK")!;
    const ordinal = instrument.timeline.calendar.ordinalOfDay(Date.UTC(2026, 2, 10) / 86_400_000);
    const bars = rows(engine.bars(instrument, "1h", ordinal, ordinal, END_OF_TIME, MASK_INTRADAY));
    expect(bars.map((b) => new Date(b.start).toISOString().slice(11, 16))).toEqual(["01:30", "02:30", "03:30", "05:00", "06:00", "07:00"]);
    expect(bars.map((b) => (b.end - b.start) / 60_000)).toEqual([60, 60, 30, 60, 60, 60]);
  });

  it("ends the US regular session at 13:00 on the 2026-11-27 early close", () => {
    const instrument = engine.instrument("SPY.US")!;
    const ordinal = instrument.timeline.calendar.ordinalOfDay(Date.UTC(2026, 10, 27) / 86_400_000);
    const bars = rows(engine.bars(instrument, "30m", ordinal, ordinal, END_OF_TIME, MASK_INTRADAY));
    expect(bars).toHaveLength(7);
    expect(new Date(bars[6].end).toISOString()).toBe("2026-11-27T18:00:00.000Z");
  });

  it("only includes bars completed by the as-of instant, the last one partial", () => {
    const instrument = engine.instrument("AAPL.US")!;
    const asOf = Date.parse("2026-03-10T14:07:30Z"); // 10:07:30 EDT
    const ordinal = instrument.timeline.calendar.ordinalOfDay(Date.UTC(2026, 2, 10) / 86_400_000);
    const fives = rows(engine.bars(instrument, "5m", ordinal, ordinal, asOf, MASK_INTRADAY));
    expect(fives.map((b) => new Date(b.start).toISOString().slice(11, 16))).toEqual(["13:30", "13:35", "13:40", "13:45", "13:50", "13:55", "14:00", "14:05"]);
    const minutes = rows(engine.bars(instrument, "1m", ordinal, ordinal, asOf, MASK_INTRADAY));
    expect(minutes).toHaveLength(37);
    expect(fives[7].close).toBe(minutes[36].close);
    expect(fives[7].volume).toBe(minutes[35].volume + minutes[36].volume);
  });
});

describe("daylight saving", () => {
  it("opens the US regular session at 14:30 UTC before and 13:30 UTC after the March 2026 switch", () => {
    const instrument = engine.instrument("QQQ.US")!;
    const calendar = instrument.timeline.calendar;
    const friday = calendar.ordinalOfDay(Date.UTC(2026, 2, 6) / 86_400_000);
    const monday = calendar.ordinalOfDay(Date.UTC(2026, 2, 9) / 86_400_000);
    const firstRegular = (ordinal: number) =>
      new Date(rows(engine.bars(instrument, "1m", ordinal, ordinal, END_OF_TIME, MASK_INTRADAY))[0].start).toISOString();
    expect(firstRegular(friday)).toBe("2026-03-06T14:30:00.000Z");
    expect(firstRegular(monday)).toBe("2026-03-09T13:30:00.000Z");
    expect(rows(engine.bars(instrument, "1m", monday, monday, END_OF_TIME, MASK_INTRADAY))).toHaveLength(390);
  });
});
