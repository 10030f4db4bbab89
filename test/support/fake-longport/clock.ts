/**
 * The fake's trading clock: every time the fake stamps (quotes, trades, candlesticks, orders,
 * executions, "today") is read from it, so a test can set it to 09:29 New York, advance through a
 * session and push a day of trades in seconds. Wall-clock concerns (the trade-call rate window,
 * socket pings) stay on real time, as they would against LongPort.
 */
export class TradingClock {
  private ms: number;

  constructor(start: number | string | Date = Date.now()) {
    this.ms = toMs(start);
  }

  /** The current instant (ms since the epoch). */
  now(): number {
    return this.ms;
  }

  /** Moves the clock to `at` (earlier or later). */
  set(at: number | string | Date): number {
    this.ms = toMs(at);
    return this.ms;
  }

  /** Moves the clock forward by `ms` and returns the new instant. */
  advance(ms: number): number {
    if (ms < 0) throw new Error("advance() takes a non-negative duration; use set() to go back");
    this.ms += ms;
    return this.ms;
  }
}

export const toMs = (at: number | string | Date): number => {
  const ms = typeof at === "number" ? at : new Date(at).getTime();
  if (!Number.isFinite(ms)) throw new Error(`not an instant: ${String(at)}`);
  return ms;
};

export interface ZonedParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** 0 = Sunday ... 6 = Saturday. */
  weekday: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

/** The wall-clock reading of instant `ms` in `timeZone` (an IANA zone). */
export function zonedParts(ms: number, timeZone: string): ZonedParts {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      weekday: "short",
    });
    formatters.set(timeZone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(new Date(ms)).map((part) => [part.type, part.value]));
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: WEEKDAYS.indexOf(parts.weekday),
  };
}

/** The instant at which `timeZone`'s wall clock reads `date` (YYYY-MM-DD) `minutes` after midnight. */
export function zonedInstant(date: string, minutes: number, timeZone: string): number {
  const [year, month, day] = date.split("-").map(Number);
  const wall = Date.UTC(year, month - 1, day, 0, minutes);
  // Two passes settle the zone's offset, including on a day the offset changes.
  let guess = wall;
  for (let i = 0; i < 2; i++) {
    const p = zonedParts(guess, timeZone);
    guess += wall - Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  }
  return guess;
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** The date (YYYY-MM-DD) `timeZone`'s wall clock shows at `ms`. */
export function zonedDate(ms: number, timeZone: string): string {
  const p = zonedParts(ms, timeZone);
  return `${p.year}-${pad(p.month)}-${pad(p.day)}`;
}

/** YYYY-MM-DD → YYYYMMDD (the quote protocol's dates) and back. */
export const compactDate = (date: string) => date.replaceAll("-", "");
export const isoDate = (compact: string) => (compact.includes("-") ? compact : `${compact.slice(0, 4)}-${compact.slice(4, 6)}-${compact.slice(6, 8)}`);

/** The calendar date `days` after `date` (YYYY-MM-DD). */
export function addDays(date: string, days: number): string {
  const t = new Date(`${date}T00:00:00Z`).getTime() + days * 86_400_000;
  return new Date(t).toISOString().slice(0, 10);
}
