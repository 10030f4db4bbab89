import { describe, expect, it } from "vitest";
import { Buckets, StoredPeriods, type StoredPeriod } from "../candles/buckets";
import { CandleBatches, type Candle } from "../candles/candle-batch";
import type { BucketSummary, CandleStore } from "../candles/index";
import { Calendar } from "../market/calendar";
import type { Market } from "../market/market";
import type { TradeSession } from "../market/trade-session";
import { regularBarSlots } from "./bar-slots";
import { countStoredBars } from "./readiness";

const slotsOf = (market: Market, date: string, period: StoredPeriod) => {
  const calendar = Calendar.for(market);
  return regularBarSlots({ date, sessions: calendar.sessionsOf(date, { overnight: true }) }, period, calendar.timeZone);
};
const counts = (market: Market, date: string) => StoredPeriods.map((period) => slotsOf(market, date, period).length);
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

describe("regular bar slots", () => {
  it("gives an HK full day 330/66/6/1 bars, restarting after the lunch break", () => {
    expect(counts("HK", "2024-03-12")).toEqual([330, 66, 6, 1]);
    expect(slotsOf("HK", "2024-03-12", "1h").map(iso)).toEqual([
      "2024-03-12T01:30:00.000Z",
      "2024-03-12T02:30:00.000Z",
      "2024-03-12T03:30:00.000Z",
      "2024-03-12T05:00:00.000Z",
      "2024-03-12T06:00:00.000Z",
      "2024-03-12T07:00:00.000Z",
    ]);
    expect(slotsOf("HK", "2024-03-12", "1d").map(iso)).toEqual(["2024-03-11T16:00:00.000Z"]);
  });

  it("gives the HK Lunar New Year's Eve half day its morning only", () => {
    expect(counts("HK", "2024-02-09")).toEqual([150, 30, 3, 1]);
  });

  it("counts only the US regular session, with the 13:00 early close after Thanksgiving", () => {
    expect(counts("US", "2024-11-27")).toEqual([390, 78, 7, 1]);
    expect(counts("US", "2024-11-29")).toEqual([210, 42, 4, 1]);
    expect(slotsOf("US", "2024-11-27", "1m")[0]).toBe(Date.UTC(2024, 10, 27, 14, 30) / 1000);
    expect(slotsOf("US", "2024-11-27", "1d").map(iso)).toEqual(["2024-11-27T05:00:00.000Z"]);
  });

  it("gives a closed day no slots", () => {
    expect(counts("HK", "2024-02-12")).toEqual([0, 0, 0, 0]);
    expect(counts("US", "2024-11-28")).toEqual([0, 0, 0, 0]);
  });
});

/** The reading half of an in-memory candle store, recording which buckets were decoded. */
function memoryStore() {
  const buckets = new Map<string, Candle[]>();
  const decoded: string[] = [];
  const keyOf = (period: StoredPeriod, bucket: string) => `${period}/${bucket}`;
  const store: Pick<CandleStore, "summaries" | "load"> = {
    async summaries(_code, period, range) {
      const out: BucketSummary[] = [];
      for (const [key, candles] of [...buckets].sort(([a], [b]) => a.localeCompare(b))) {
        const [keyPeriod, bucket] = key.split("/") as [string, string];
        if (keyPeriod !== period || (range && (bucket < range[0] || bucket > range[1]))) continue;
        const sessions: Partial<Record<TradeSession, number>> = {};
        for (const candle of candles) sessions[candle.trade_session] = (sessions[candle.trade_session] ?? 0) + 1;
        out.push({ bucket, count: candles.length, sessions });
      }
      return out;
    },
    async load(_code, period, names) {
      decoded.push(...names.map((name) => keyOf(period, name)));
      return new Map(
        names.filter((name) => buckets.has(keyOf(period, name))).map((name) => [name, CandleBatches.fromCandles(buckets.get(keyOf(period, name))!)]),
      );
    },
  };
  const add = (period: StoredPeriod, candles: Candle[]) => {
    for (const candle of candles) {
      const key = keyOf(period, Buckets.of(period, candle.timestamp));
      buckets.set(key, [...(buckets.get(key) ?? []), candle]);
    }
  };
  return { store, decoded, add };
}

const bar = (timestamp: number, trade_session: TradeSession = "Intraday"): Candle => ({
  timestamp,
  open: 1,
  high: 1,
  low: 1,
  close: 1,
  volume: 100,
  turnover: 100,
  trade_session,
});

describe("stored bar counts", () => {
  const day = (date: string, period: StoredPeriod) => ({ date, slots: slotsOf("HK", date, period) });

  it("takes a day bucket's regular count from its summary without decoding", async () => {
    const { store, decoded, add } = memoryStore();
    const full = day("2024-03-12", "5m");
    const short = day("2024-03-13", "5m");
    add(
      "5m",
      [...full.slots, ...short.slots.slice(1)].map((slot) => bar(slot)),
    );
    const stored = await countStoredBars(store, "700.HK", "5m", [full, short]);
    expect(Object.fromEntries(stored)).toEqual({ "2024-03-12": 66, "2024-03-13": 65 });
    expect(decoded).toEqual([]);
  });

  it("decodes a day bucket holding more regular bars than slots and counts only bars on the slots", async () => {
    const { store, decoded, add } = memoryStore();
    const target = day("2024-03-12", "5m");
    // A hand-posted bar in the lunch break hides the missing first bar from the summary alone.
    const lunch = Date.UTC(2024, 2, 12, 4, 30) / 1000;
    add(
      "5m",
      [...target.slots.slice(1), lunch, lunch + 300].map((slot) => bar(slot)),
    );
    const stored = await countStoredBars(store, "700.HK", "5m", [target]);
    expect(stored.get("2024-03-12")).toBe(65);
    expect(decoded).toEqual(["5m/2024-03-12"]);
  });

  it("matches month buckets slot by slot, ignoring extended-session bars", async () => {
    const { store, add } = memoryStore();
    const first = day("2024-03-12", "1h");
    const second = day("2024-03-13", "1h");
    add("1h", [...first.slots.map((slot) => bar(slot)), bar(second.slots[0]!, "Post")]);
    const stored = await countStoredBars(store, "700.HK", "1h", [first, second]);
    expect(Object.fromEntries(stored)).toEqual({ "2024-03-12": 6, "2024-03-13": 0 });
  });
});
