import { Buckets, type StoredPeriod } from "../candles/buckets";
import type { SessionInterval } from "../market/calendar";
import { dayNumberOf, zonedTimeToUtc, type IsoDate } from "../market/zoned-time";

/** A trading date with its sessions as UTC intervals (epoch ms), as a calendar entry or the market calendar gives them. */
export interface SessionDay {
  date: IsoDate;
  sessions: readonly SessionInterval[];
}

/**
 * The UNIX-second start of every regular-session (`Intraday`) bar a complete day holds in
 * `period`, following the provider's aggregation rules (docs/provider.md, "Candlestick
 * conventions"): intraday bars restart at every session block and the last bar of a block may
 * be short (HK 1h: 09:30, 10:30, 11:30–12:00, 13:00, 14:00, 15:00; US 1h: 09:30 … 15:30), so
 * a block of `m` minutes holds ceil(m / period) bars; a daily bar is stamped at local midnight
 * of its trading date. The lunch break and half days follow from the sessions themselves.
 */
export function regularBarSlots(day: SessionDay, period: StoredPeriod, timeZone: string): number[] {
  const regular = day.sessions.filter((session) => session.session === "Intraday");
  if (regular.length === 0) return [];
  if (period === "1d") return [Math.floor(zonedTimeToUtc(timeZone, dayNumberOf(day.date), 0) / 1000)];
  const step = Buckets.seconds(period);
  const slots: number[] = [];
  for (const session of regular) {
    const end = session.end / 1000;
    for (let start = session.start / 1000; start < end; start += step) slots.push(start);
  }
  return slots;
}
