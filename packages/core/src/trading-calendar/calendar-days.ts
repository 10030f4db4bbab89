/**
 * The days of a symbol's calendar as the use cases read them: the symbol's market and calendar, a
 * requested range checked against the calendar's coverage and the length limit, each date's kind and
 * sessions (from its stored entry, else the market calendar), the provider's trading days month by
 * month, whether a day's regular session has closed, and each trading day's data readiness per period
 * (its bar slots against the stored bars).
 */
import type { StoredPeriod } from "../candles/index";
import { ValidationError, type ValidationIssue } from "../errors";
import { Calendar, type DayKind, type SessionInterval } from "../market/calendar";
import { marketOf, normalizeSymbol, type Market } from "../market/market";
import { dayNumberOf, isoDateOf, zonedTimeToUtc, type IsoDate } from "../market/zoned-time";
import type { MarketData } from "../provider/market-data";
import { Instants } from "../util/time";
import { regularBarSlots } from "./bar-slots";
import { MAX_CALENDAR_DAYS, type CalendarSource, type PeriodReadiness, type TradingCalendarDeps } from "./calendar-model";
import { countStoredBars } from "./readiness";

/** One date of a range, from its stored entry or, without one, from the market calendar. */
interface Day {
  date: IsoDate;
  kind: DayKind;
  sessions: readonly SessionInterval[];
}

interface Subject {
  symbol: string;
  market: Market;
  calendar: Calendar;
}

/** Parses the symbol (400 `INVALID_SYMBOL`, `MARKET_NOT_SUPPORTED`) and picks its market's calendar. */
export function subjectOf(symbolInput: string): Subject {
  const symbol = normalizeSymbol(symbolInput);
  const market = marketOf(symbol);
  return { symbol, market, calendar: Calendar.for(market) };
}

/** 404 `SYMBOL_NOT_FOUND` unless the provider knows the symbol. */
export async function assertListed(deps: TradingCalendarDeps, symbol: string): Promise<MarketData> {
  const marketData = await deps.marketData();
  await marketData.staticInfo([symbol]);
  return marketData;
}

/** The exchange-local date of an input: a date as is, a date-time by where it falls on the exchange's clock. */
export const localDate = (calendar: Calendar, value: string): IsoDate => calendar.localDateOf(Instants.parseSeconds(value, calendar.timeZone) * 1000);

export const shift = (date: IsoDate, days: number) => isoDateOf(dayNumberOf(date) + days);

/** Checks a range against the calendar's coverage and the length limit, listing every problem. */
export function checkedRange(calendar: Calendar, start: IsoDate, end: IsoDate, location: "body" | "query") {
  const issues: ValidationIssue[] = [];
  const first = isoDateOf(calendar.firstDay);
  const last = isoDateOf(calendar.lastDay);
  for (const [field, date] of [
    ["start_date", start],
    ["end_date", end],
  ] as const) {
    if (date < first || date > last) {
      issues.push({ loc: [location, field], msg: `${date} is outside the ${calendar.market} calendar, which covers ${first} to ${last}`, type: "value_error" });
    }
  }
  const days = dayNumberOf(end) - dayNumberOf(start) + 1;
  if (days < 1) issues.push({ loc: [location, "end_date"], msg: "end_date is before start_date", type: "value_error" });
  else if (days > MAX_CALENDAR_DAYS) {
    issues.push({ loc: [location, "end_date"], msg: `a range of at most ${MAX_CALENDAR_DAYS} days (got ${days})`, type: "value_error" });
  }
  if (issues.length) throw new ValidationError(issues);
  return { start, end };
}

export const datesOf = (start: IsoDate, end: IsoDate): IsoDate[] =>
  Array.from({ length: dayNumberOf(end) - dayNumberOf(start) + 1 }, (_, offset) => shift(start, offset));

/** The day's sessions from the market calendar: pre, regular and post (overnight depends on settings and symbol). */
export const marketSessions = (calendar: Calendar, date: IsoDate): SessionInterval[] =>
  calendar.sessionsOf(date).map(({ session, start, end }) => ({ session, start, end }));

/** The days of a range: stored entries where they exist, the market calendar for the other dates. */
export async function daysOf(deps: TradingCalendarDeps, subject: Subject, start: IsoDate, end: IsoDate) {
  const entries = new Map((await deps.entries.list(subject.symbol, start, end)).map((entry) => [entry.date, entry]));
  const dates = datesOf(start, end);
  const days: Day[] = dates.map((date) => {
    const entry = entries.get(date);
    return entry
      ? { date, kind: entry.day_type, sessions: entry.sessions }
      : { date, kind: subject.calendar.dayKind(date), sessions: marketSessions(subject.calendar, date) };
  });
  const source: CalendarSource = entries.size === 0 ? "market" : entries.size === dates.length ? "stored" : "mixed";
  return { days, source };
}

/** Whether a trading day's regular session has ended by `now`, so its data can be complete. */
export function hasClosed(day: Day, calendar: Calendar, now: number): boolean {
  const regular = day.sessions.filter((session) => session.session === "Intraday");
  const end = regular.length ? regular[regular.length - 1]!.end : zonedTimeToUtc(calendar.timeZone, dayNumberOf(day.date) + 1, 0);
  return end <= now;
}

/** Per trading day and period: expected and stored regular-session bars. */
export async function readinessOf(
  deps: TradingCalendarDeps,
  subject: Subject,
  days: readonly Day[],
  periods: readonly StoredPeriod[],
): Promise<Map<IsoDate, Record<string, PeriodReadiness>>> {
  const trading = days.filter((day) => day.kind !== "closed");
  const perPeriod = await Promise.all(
    periods.map(async (period) => {
      const slotted = trading.map((day) => ({ date: day.date, slots: regularBarSlots(day, period, subject.calendar.timeZone) }));
      const counts = await countStoredBars(deps.candles, subject.symbol, period, slotted);
      return slotted.map(({ date, slots }) => {
        const stored = counts.get(date) ?? 0;
        // A trading day with no known regular session (a provider/calendar mismatch) cannot be judged complete.
        return { ready: slots.length > 0 && stored >= slots.length, expected_bars: slots.length, stored_bars: stored };
      });
    }),
  );
  return new Map(trading.map((day, index) => [day.date, Object.fromEntries(periods.map((period, p) => [period, perPeriod[p]![index]!]))]));
}

export const allReady = (readiness: Record<string, PeriodReadiness> | undefined) =>
  readiness !== undefined && Object.values(readiness).every((period) => period.ready);

/** LongPort answers at most a month per `trading_days` call, so the range is asked month by month. */
export async function providerDays(marketData: MarketData, market: Market, start: IsoDate, end: IsoDate) {
  const trading = new Set<IsoDate>();
  const half = new Set<IsoDate>();
  for (let from = start; from <= end; ) {
    const [year, month] = from.split("-").map(Number) as [number, number];
    const monthEnd = new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10);
    const to = monthEnd < end ? monthEnd : end;
    const page = await marketData.tradingDays(market, from, to);
    for (const date of page.trading_days) trading.add(date);
    for (const date of page.half_trading_days) half.add(date);
    from = shift(to, 1);
  }
  return { trading, half };
}
