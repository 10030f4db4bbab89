import { badRequest } from "../errors";

/**
 * Calendar dates and exchange-local wall-clock times.
 *
 * Dates are ISO `YYYY-MM-DD` strings at the edges and "day numbers" (whole days since
 * 1970-01-01) inside, because integer arithmetic on days is what calendars and the simulator
 * do in their hot loops. Instants are milliseconds since the epoch, UTC, everywhere.
 */

/** An ISO calendar date, `YYYY-MM-DD`, meaning a day in the exchange's own time zone. */
export type IsoDate = string;

export const MS_PER_MINUTE = 60_000;
export const MS_PER_DAY = 86_400_000;

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Parses an ISO date into its day number; malformed or impossible dates are a 400 `INVALID_DATE`. */
export function dayNumberOf(date: IsoDate): number {
  const match = ISO_DATE.exec(date);
  if (!match) throw badRequest("INVALID_DATE", `'${date}' is not a date in YYYY-MM-DD form`);
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  const ms = Date.UTC(year, month - 1, day);
  const back = new Date(ms);
  if (back.getUTCFullYear() !== year || back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day) {
    throw badRequest("INVALID_DATE", `'${date}' is not a real calendar date`);
  }
  return ms / MS_PER_DAY;
}

/** The ISO date of a day number. */
export function isoDateOf(dayNumber: number): IsoDate {
  return new Date(dayNumber * MS_PER_DAY).toISOString().slice(0, 10);
}

/** Day of the week of a day number: 0 = Sunday … 6 = Saturday (1970-01-01 was a Thursday). */
export function weekdayOf(dayNumber: number): number {
  return (((dayNumber + 4) % 7) + 7) % 7;
}

/** Year, month (1–12) and day of month of a day number. */
export function ymdOf(dayNumber: number): { year: number; month: number; day: number } {
  const d = new Date(dayNumber * MS_PER_DAY);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

const formatters = new Map<string, Intl.DateTimeFormat>();
// Offsets only change on whole hours in the zones we serve, so one entry per zone-hour is exact.
const offsetCache = new Map<string, Map<number, number>>();
const OFFSET_CACHE_LIMIT = 200_000;

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

function computeOffsetMinutes(timeZone: string, utcMs: number): number {
  const parts = formatterFor(timeZone).formatToParts(new Date(utcMs));
  const field = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const localAsUtc = Date.UTC(field("year"), field("month") - 1, field("day"), field("hour"), field("minute"), field("second"));
  const wholeSeconds = Math.floor(utcMs / 1000) * 1000;
  return Math.round((localAsUtc - wholeSeconds) / MS_PER_MINUTE);
}

/** Minutes to add to a UTC instant to get the wall-clock time in `timeZone` (e.g. -240 for New York in summer). */
export function zoneOffsetMinutes(timeZone: string, utcMs: number): number {
  let zone = offsetCache.get(timeZone);
  if (!zone) {
    zone = new Map();
    offsetCache.set(timeZone, zone);
  }
  const hour = Math.floor(utcMs / 3_600_000);
  let offset = zone.get(hour);
  if (offset === undefined) {
    if (zone.size >= OFFSET_CACHE_LIMIT) zone.clear();
    offset = computeOffsetMinutes(timeZone, hour * 3_600_000);
    // Zones change offset at most a few times a year, so when the offsets half a day either side
    // agree, every hour in between shares them: one miss fills a day of cache.
    const before = computeOffsetMinutes(timeZone, (hour - 12) * 3_600_000);
    const after = computeOffsetMinutes(timeZone, (hour + 12) * 3_600_000);
    if (before === offset && after === offset) {
      for (let h = hour - 12; h <= hour + 12; h++) zone.set(h, offset);
    } else {
      zone.set(hour, offset);
    }
  }
  return offset;
}

/**
 * The UTC instant of a wall-clock time (`minuteOfDay` minutes after local midnight of `dayNumber`)
 * in `timeZone`. Exchange session times never fall in a DST gap, so the two-pass guess is exact.
 */
export function zonedTimeToUtc(timeZone: string, dayNumber: number, minuteOfDay: number): number {
  const wall = dayNumber * MS_PER_DAY + minuteOfDay * MS_PER_MINUTE;
  const first = wall - zoneOffsetMinutes(timeZone, wall) * MS_PER_MINUTE;
  const second = wall - zoneOffsetMinutes(timeZone, first) * MS_PER_MINUTE;
  return second;
}

/** The local day number and minute of day of a UTC instant in `timeZone`. */
export function utcToZoned(timeZone: string, utcMs: number): { dayNumber: number; minuteOfDay: number } {
  const wall = utcMs + zoneOffsetMinutes(timeZone, utcMs) * MS_PER_MINUTE;
  const dayNumber = Math.floor(wall / MS_PER_DAY);
  return { dayNumber, minuteOfDay: Math.floor((wall - dayNumber * MS_PER_DAY) / MS_PER_MINUTE) };
}
