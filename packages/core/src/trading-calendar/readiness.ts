import { Buckets, type StoredPeriod } from "../candles/buckets";
import { CandleBatches } from "../candles/candle-batch";
import type { CandleStore } from "../candles/index";
import { TradeSessionCode } from "../market/trade-session";
import type { IsoDate } from "../market/zoned-time";

/** A trading date and the bar slots (UNIX seconds, ascending) its regular session needs in one period. */
export interface SlottedDay {
  date: IsoDate;
  slots: number[];
}

const INTRADAY = TradeSessionCode.Intraday;
// Periods kept in one bucket per UTC day: their bucket summaries can answer for a single date.
const DAY_BUCKETS = new Set<StoredPeriod>(["1m", "5m"]);

/**
 * How many regular-session bars are stored for each day, reading as little as possible.
 *
 * 1m and 5m buckets are UTC days. The regular sessions of HK (01:30–08:00Z) and the US
 * (13:30–21:00Z at the latest) never cross UTC midnight, so such a bucket's `Intraday` count
 * in its summary belongs to exactly one trading date and is taken without decoding. A bucket
 * is decoded instead when that does not hold (two dates' slots in one bucket) or when it holds
 * more regular bars than the day has slots: the extra bars were written off the provider's
 * grid (a hand-posted candle, say) and could hide a missing one, so only bars on the slots
 * count. 1h (month) and 1d (year) buckets hold many dates and are small, so they are always
 * decoded and matched slot by slot.
 */
export async function countStoredBars(
  store: Pick<CandleStore, "summaries" | "load">,
  code: string,
  period: StoredPeriod,
  days: readonly SlottedDay[],
): Promise<Map<IsoDate, number>> {
  const counts = new Map<IsoDate, number>();
  const owners = new Map<string, SlottedDay[]>();
  for (const day of days) {
    counts.set(day.date, 0);
    if (day.slots.length === 0) continue;
    const first = Buckets.of(period, day.slots[0]!);
    const last = Buckets.of(period, day.slots[day.slots.length - 1]!);
    // Buckets are contiguous ranges: a day's slots span at most its first to its last bucket.
    for (const bucket of first === last ? [first] : [first, last]) owners.set(bucket, [...(owners.get(bucket) ?? []), day]);
  }
  if (owners.size === 0) return counts;
  const names = [...owners.keys()].sort();
  const summaries = await store.summaries(code, period, [names[0]!, names[names.length - 1]!]);
  const toDecode: string[] = [];
  for (const summary of summaries) {
    const daysInBucket = owners.get(summary.bucket);
    if (!daysInBucket) continue;
    const regular = summary.sessions.Intraday ?? 0;
    const [only] = daysInBucket;
    const [start, end] = Buckets.range(period, summary.bucket);
    const whole = only !== undefined && only.slots[0]! >= start && only.slots[only.slots.length - 1]! < end;
    if (DAY_BUCKETS.has(period) && daysInBucket.length === 1 && whole && regular <= only.slots.length) {
      counts.set(only.date, regular);
    } else if (regular > 0) {
      toDecode.push(summary.bucket);
    }
  }
  const loaded = await store.load(code, period, toDecode);
  for (const [bucket, batch] of loaded) {
    const [start, end] = Buckets.range(period, bucket);
    for (const day of owners.get(bucket) ?? []) {
      let found = 0;
      for (const slot of day.slots) {
        if (slot < start || slot >= end) continue;
        const cursor = CandleBatches.lowerBound(batch, slot);
        if (cursor < batch.length && batch.timestamp[cursor] === slot && batch.session[cursor] === INTRADAY) found++;
      }
      counts.set(day.date, counts.get(day.date)! + found);
    }
  }
  return counts;
}
