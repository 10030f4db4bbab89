import { badRequest } from "../errors";
import { CalendarCoverage, HkClosures, HkHalfDays, UsClosures, UsEarlyCloses, type DatedEntry } from "./calendar-data";
import { assertSupportedMarket, Markets, type Market } from "./market";
import type { TradeSession } from "./trade-session";
import { dayNumberOf, isoDateOf, MS_PER_MINUTE, utcToZoned, weekdayOf, zonedTimeToUtc, type IsoDate } from "./zoned-time";

/** What kind of day a date is on an exchange. */
export type DayKind = "full" | "half" | "closed";

/** One session of one trading day as a UTC interval, `[start, end)` in epoch milliseconds. */
export interface SessionInterval {
  session: TradeSession;
  start: number;
  end: number;
}

/** Options for session queries. */
export interface SessionOptions {
  /** Include the US overnight session (20:00–03:50 ET, belonging to the next trading day). Default false. */
  overnight?: boolean;
}

/** A row of the daily session timetable, in exchange-local `HH:MM` times. */
export interface SessionTableRow {
  session: TradeSession;
  begin: string;
  end: string;
}

/** Where an instant falls: the trading date it belongs to and the session running at that instant. */
export interface SessionPosition extends SessionInterval {
  date: IsoDate;
}

// A session in local wall-clock terms; dayOffset -1 means "the calendar day before the trading date".
interface SessionTemplate {
  session: TradeSession;
  startDayOffset: number;
  startMinute: number;
  endMinute: number;
}

const hm = (h: number, m = 0) => h * 60 + m;

const US_FULL: readonly SessionTemplate[] = [
  { session: "Overnight", startDayOffset: -1, startMinute: hm(20), endMinute: hm(3, 50) },
  { session: "Pre", startDayOffset: 0, startMinute: hm(4), endMinute: hm(9, 30) },
  { session: "Intraday", startDayOffset: 0, startMinute: hm(9, 30), endMinute: hm(16) },
  { session: "Post", startDayOffset: 0, startMinute: hm(16), endMinute: hm(20) },
];
const US_HALF: readonly SessionTemplate[] = [
  US_FULL[0],
  US_FULL[1],
  { session: "Intraday", startDayOffset: 0, startMinute: hm(9, 30), endMinute: hm(13) },
  { session: "Post", startDayOffset: 0, startMinute: hm(13), endMinute: hm(17) },
];
const HK_FULL: readonly SessionTemplate[] = [
  { session: "Intraday", startDayOffset: 0, startMinute: hm(9, 30), endMinute: hm(12) },
  { session: "Intraday", startDayOffset: 0, startMinute: hm(13), endMinute: hm(16) },
];
const HK_HALF: readonly SessionTemplate[] = [HK_FULL[0]];

interface CalendarDefinition {
  closures: readonly DatedEntry[];
  halfDays: readonly DatedEntry[];
  full: readonly SessionTemplate[];
  half: readonly SessionTemplate[];
}

const DEFINITIONS: Partial<Record<Market, CalendarDefinition>> = {
  US: { closures: UsClosures, halfDays: UsEarlyCloses, full: US_FULL, half: US_HALF },
  HK: { closures: HkClosures, halfDays: HkHalfDays, full: HK_FULL, half: HK_HALF },
};

const KIND_CLOSED = 0;
const KIND_FULL = 1;
const KIND_HALF = 2;

const formatHm = (minute: number) => `${String(Math.floor(minute / 60)).padStart(2, "0")}:${String(minute % 60).padStart(2, "0")}`;

/**
 * An exchange calendar: which dates trade, which are half days, and the UTC intervals of each
 * trading day's sessions. Backed by the dated tables in `calendar-data.ts`; dates outside
 * their coverage are a 400 `CALENDAR_OUT_OF_RANGE` rather than a guess.
 */
export class Calendar {
  private static readonly instances = new Map<Market, Calendar>();

  /** The calendar of a market; CN and SG are a 400 `MARKET_NOT_SUPPORTED`. */
  static for(market: Market): Calendar {
    let calendar = Calendar.instances.get(market);
    if (!calendar) {
      assertSupportedMarket(market, "Calendar for market");
      calendar = new Calendar(market, DEFINITIONS[market]!);
      Calendar.instances.set(market, calendar);
    }
    return calendar;
  }

  readonly timeZone: string;
  /** First and last day number covered by the tables. */
  readonly firstDay: number;
  readonly lastDay: number;
  /** Day numbers of every trading day (full and half) in the coverage, ascending. */
  readonly tradingDayNumbers: Int32Array;

  private readonly kinds: Uint8Array;
  private readonly names = new Map<number, string>();
  // For each covered day: the ordinal of the first trading day on or after it (== count when none).
  private readonly ordinalOnOrAfterTable: Int32Array;
  private readonly sessionCache = new Map<number, SessionInterval[]>();

  private constructor(
    readonly market: Market,
    private readonly definition: CalendarDefinition,
  ) {
    this.timeZone = Markets[market].timeZone;
    this.firstDay = dayNumberOf(CalendarCoverage.first);
    this.lastDay = dayNumberOf(CalendarCoverage.last);
    const size = this.lastDay - this.firstDay + 1;
    this.kinds = new Uint8Array(size);
    for (let i = 0; i < size; i++) {
      const weekday = weekdayOf(this.firstDay + i);
      this.kinds[i] = weekday === 0 || weekday === 6 ? KIND_CLOSED : KIND_FULL;
    }
    for (const [date, name] of definition.closures) {
      const day = dayNumberOf(date);
      this.kinds[day - this.firstDay] = KIND_CLOSED;
      this.names.set(day, name);
    }
    for (const [date, name] of definition.halfDays) {
      const day = dayNumberOf(date);
      this.kinds[day - this.firstDay] = KIND_HALF;
      this.names.set(day, name);
    }
    const trading: number[] = [];
    for (let i = 0; i < size; i++) if (this.kinds[i] !== KIND_CLOSED) trading.push(this.firstDay + i);
    this.tradingDayNumbers = Int32Array.from(trading);
    this.ordinalOnOrAfterTable = new Int32Array(size + 1);
    let ordinal = trading.length;
    this.ordinalOnOrAfterTable[size] = ordinal;
    for (let i = size - 1; i >= 0; i--) {
      if (this.kinds[i] !== KIND_CLOSED) ordinal--;
      this.ordinalOnOrAfterTable[i] = ordinal;
    }
  }

  /** Whether the exchange trades on `date` (half days included). */
  isTradingDay(date: IsoDate): boolean {
    return this.kindOfDay(this.checkedDay(date)) !== "closed";
  }

  /** Whether `date` is a shortened day (US 13:00 early close, HK morning-only). */
  isHalfDay(date: IsoDate): boolean {
    return this.kindOfDay(this.checkedDay(date)) === "half";
  }

  /** `full`, `half` or `closed`. */
  dayKind(date: IsoDate): DayKind {
    return this.kindOfDay(this.checkedDay(date));
  }

  /** The holiday or half-day name of `date`, `Weekend` for Saturdays and Sundays, null for ordinary trading days. */
  dayName(date: IsoDate): string | null {
    const day = this.checkedDay(date);
    const name = this.names.get(day);
    if (name) return name;
    const weekday = weekdayOf(day);
    return weekday === 0 || weekday === 6 ? "Weekend" : null;
  }

  /** Trading days (full and half) from `start` to `end`, both inclusive, ascending. */
  tradingDays(start: IsoDate, end: IsoDate): IsoDate[] {
    const [from, to] = this.checkedRange(start, end);
    const out: IsoDate[] = [];
    for (let i = this.ordinalOnOrAfterDay(from); i < this.tradingDayNumbers.length; i++) {
      const day = this.tradingDayNumbers[i];
      if (day > to) break;
      out.push(isoDateOf(day));
    }
    return out;
  }

  /** Half days from `start` to `end`, both inclusive, ascending. */
  halfDays(start: IsoDate, end: IsoDate): IsoDate[] {
    const [from, to] = this.checkedRange(start, end);
    const out: IsoDate[] = [];
    for (let day = from; day <= to; day++) if (this.kinds[day - this.firstDay] === KIND_HALF) out.push(isoDateOf(day));
    return out;
  }

  /** The first trading day strictly after `date`, or null past the end of the tables. */
  nextTradingDay(date: IsoDate): IsoDate | null {
    const day = this.checkedDay(date);
    const ordinal = this.ordinalOnOrAfterDay(day + 1);
    return ordinal < this.tradingDayNumbers.length ? isoDateOf(this.tradingDayNumbers[ordinal]) : null;
  }

  /** The last trading day strictly before `date`, or null before the start of the tables. */
  previousTradingDay(date: IsoDate): IsoDate | null {
    const day = this.checkedDay(date);
    const ordinal = this.ordinalOnOrAfterDay(day) - 1;
    return ordinal >= 0 ? isoDateOf(this.tradingDayNumbers[ordinal]) : null;
  }

  /**
   * The sessions of trading day `date` in chronological order, as UTC intervals; empty when
   * the exchange is closed. The US overnight session (previous evening 20:00 to 03:50) is
   * included only with `{ overnight: true }`.
   */
  sessionsOf(date: IsoDate, options: SessionOptions = {}): SessionInterval[] {
    const all = this.sessionsOfDay(this.checkedDay(date));
    return options.overnight ? all.slice() : all.filter((s) => s.session !== "Overnight");
  }

  /** Minutes of `session` on trading day `date` (0 when the day has no such session). */
  minutesOf(date: IsoDate, session: TradeSession): number {
    let total = 0;
    for (const s of this.sessionsOfDay(this.checkedDay(date))) {
      if (s.session === session) total += (s.end - s.start) / MS_PER_MINUTE;
    }
    return total;
  }

  /** The session running at `instant` (epoch ms) and the trading date it belongs to, or null outside sessions. */
  sessionAt(instant: number, options: SessionOptions = {}): SessionPosition | null {
    const { dayNumber } = utcToZoned(this.timeZone, instant);
    for (const day of [dayNumber, dayNumber + 1]) {
      if (day < this.firstDay || day > this.lastDay) continue;
      for (const s of this.sessionsOfDay(day)) {
        if (s.session === "Overnight" && !options.overnight) continue;
        if (instant >= s.start && instant < s.end) return { ...s, date: isoDateOf(day) };
      }
    }
    return null;
  }

  /** The exchange-local calendar date of an instant. */
  localDateOf(instant: number): IsoDate {
    return isoDateOf(utcToZoned(this.timeZone, instant).dayNumber);
  }

  /** The regular daily timetable in local times (full days), as LongPort's trading-session query reports it. */
  sessionTable(options: SessionOptions = {}): SessionTableRow[] {
    return this.definition.full
      .filter((t) => options.overnight || t.session !== "Overnight")
      .map((t) => ({ session: t.session, begin: formatHm(t.startMinute), end: formatHm(t.endMinute) }));
  }

  // ---- day-number API for hot paths (the simulator, imports) ----

  /** Kind of a covered day number. */
  kindOfDay(dayNumber: number): DayKind {
    const kind = this.kinds[dayNumber - this.firstDay];
    return kind === KIND_FULL ? "full" : kind === KIND_HALF ? "half" : "closed";
  }

  /** Whether a day number lies inside the tables. */
  covers(dayNumber: number): boolean {
    return dayNumber >= this.firstDay && dayNumber <= this.lastDay;
  }

  /** Ordinal (index into `tradingDayNumbers`) of the first trading day on or after a day number. */
  ordinalOnOrAfterDay(dayNumber: number): number {
    if (dayNumber < this.firstDay) return 0;
    if (dayNumber > this.lastDay) return this.tradingDayNumbers.length;
    return this.ordinalOnOrAfterTable[dayNumber - this.firstDay];
  }

  /** Ordinal of a trading day, or -1 when the day does not trade. */
  ordinalOfDay(dayNumber: number): number {
    if (!this.covers(dayNumber) || this.kinds[dayNumber - this.firstDay] === KIND_CLOSED) return -1;
    return this.ordinalOnOrAfterTable[dayNumber - this.firstDay];
  }

  /** All sessions (overnight included) of a trading day number, chronological; cached and shared, do not mutate. */
  sessionsOfDay(dayNumber: number): SessionInterval[] {
    let sessions = this.sessionCache.get(dayNumber);
    if (!sessions) {
      const kind = this.kinds[dayNumber - this.firstDay];
      const templates = kind === KIND_FULL ? this.definition.full : kind === KIND_HALF ? this.definition.half : [];
      sessions = templates.map((t) => {
        const startDay = dayNumber + t.startDayOffset;
        return {
          session: t.session,
          start: zonedTimeToUtc(this.timeZone, startDay, t.startMinute),
          end: zonedTimeToUtc(this.timeZone, t.endMinute <= t.startMinute ? startDay + 1 : startDay, t.endMinute),
        };
      });
      this.sessionCache.set(dayNumber, sessions);
    }
    return sessions;
  }

  private checkedDay(date: IsoDate): number {
    const day = dayNumberOf(date);
    if (!this.covers(day)) {
      throw badRequest(
        "CALENDAR_OUT_OF_RANGE",
        `${date} is outside the ${this.market} calendar, which covers ${CalendarCoverage.first} to ${CalendarCoverage.last}`,
        { market: this.market, first: CalendarCoverage.first, last: CalendarCoverage.last },
      );
    }
    return day;
  }

  private checkedRange(start: IsoDate, end: IsoDate): [number, number] {
    const from = this.checkedDay(start);
    const to = this.checkedDay(end);
    if (from > to) throw badRequest("INVALID_DATE_RANGE", `start ${start} is after end ${end}`);
    return [from, to];
  }
}
