/**
 * The trading calendar's use cases (`TradingCalendar`, docs/trading-calendar.md): `init` stores a
 * symbol's entries from the provider's trading days, `get` reads them back with their data
 * readiness, `missing` lists the closed trading days whose bars are incomplete in a period, and
 * `verify` reports a range's coverage in every requested period.
 */
import { StoredPeriods } from "../candles/index";
import { inParallel } from "../util/in-parallel";
import type { Calendar, DayKind } from "../market/calendar";
import { utcToZoned, type IsoDate } from "../market/zoned-time";
import {
  DEFAULT_MISSING_DAYS,
  type CalendarEntry,
  type CalendarEntryView,
  type CalendarQuery,
  type GetCalendarResponse,
  type InitCalendarRequest,
  type InitCalendarResponse,
  type MissingDatesQuery,
  type MissingDatesResponse,
  type PeriodCoverage,
  type PeriodReadiness,
  type TradingCalendarDeps,
  type VerifyDataRequest,
  type VerifyDataResponse,
} from "./calendar-model";
import {
  allReady,
  assertListed,
  checkedRange,
  datesOf,
  daysOf,
  hasClosed,
  localDate,
  marketSessions,
  providerDays,
  readinessOf,
  shift,
  subjectOf,
} from "./calendar-days";

const rate = (part: number, whole: number) => (whole === 0 ? 1 : Math.round((part / whole) * 10_000) / 10_000);

function hhmm(timeZone: string, instant: number): string {
  const { minuteOfDay } = utcToZoned(timeZone, instant);
  return `${String(Math.floor(minuteOfDay / 60)).padStart(2, "0")}:${String(minuteOfDay % 60).padStart(2, "0")}`;
}

/** The interface's view of a stored entry, with its data readiness. */
function viewOf(entry: CalendarEntry, calendar: Calendar, readiness: Record<string, PeriodReadiness> | undefined): CalendarEntryView {
  return {
    date: entry.date,
    symbol: entry.symbol,
    market: entry.market,
    day_type: entry.day_type,
    is_trading_day: entry.day_type !== "closed",
    is_half_day: entry.day_type === "half",
    name: entry.name,
    timezone: calendar.timeZone,
    sessions: entry.sessions.map((session) => ({
      name: session.session,
      start: new Date(session.start).toISOString(),
      end: new Date(session.end).toISOString(),
      local_start: hhmm(calendar.timeZone, session.start),
      local_end: hhmm(calendar.timeZone, session.end),
    })),
    data_readiness: readiness ?? {},
    created_at: entry.created_at,
  };
}

const WRITE_CONCURRENCY = 16;

export const TradingCalendar = {
  /**
   * Fetches the trading days of the symbol's market from the provider and stores one entry per
   * date of the range. Entries that exist are left alone and counted as skipped, so a rerun
   * creates nothing.
   */
  async init(deps: TradingCalendarDeps, symbolInput: string, request: InitCalendarRequest): Promise<InitCalendarResponse> {
    const subject = subjectOf(symbolInput);
    const { calendar } = subject;
    const { start, end } = checkedRange(calendar, localDate(calendar, request.start_date), localDate(calendar, request.end_date), "body");
    const marketData = await assertListed(deps, subject.symbol);
    const existing = new Map((await deps.entries.list(subject.symbol, start, end)).map((entry) => [entry.date, entry]));
    const provider = await providerDays(marketData, subject.market, start, end);
    const createdAt = new Date(deps.now()).toISOString();
    const kinds = new Map<IsoDate, DayKind>();
    const fresh: CalendarEntry[] = [];
    const mismatched: IsoDate[] = [];
    for (const date of datesOf(start, end)) {
      const stored = existing.get(date);
      if (stored) {
        kinds.set(date, stored.day_type);
        continue;
      }
      const kind: DayKind = provider.half.has(date) ? "half" : provider.trading.has(date) ? "full" : "closed";
      const agrees = calendar.dayKind(date) === kind;
      if (!agrees) mismatched.push(date);
      kinds.set(date, kind);
      fresh.push({
        symbol: subject.symbol,
        market: subject.market,
        date,
        day_type: kind,
        name: agrees ? calendar.dayName(date) : null,
        // The market calendar's sessions describe its own verdict; on a disagreement they would be wrong.
        sessions: agrees ? marketSessions(calendar, date) : [],
        created_at: createdAt,
      });
    }
    let created = 0;
    await inParallel(fresh, WRITE_CONCURRENCY, async (entry) => {
      if (await deps.entries.createIfAbsent(entry)) created++;
    });
    const all = [...kinds.values()];
    const total = all.length;
    const skipped = total - created;
    const closed = all.filter((kind) => kind === "closed").length;
    return {
      success: true,
      message: `Calendar of ${subject.symbol} from ${start} to ${end}: ${created} entries created, ${skipped} already existed`,
      symbol: subject.symbol,
      market: subject.market,
      start_date: start,
      end_date: end,
      created_count: created,
      skipped_count: skipped,
      total_days: total,
      trading_days: total - closed,
      half_days: all.filter((kind) => kind === "half").length,
      closed_days: closed,
      mismatched_dates: mismatched,
    };
  },

  /** The stored entries of a range, each with its data readiness in every period. */
  async get(deps: TradingCalendarDeps, symbolInput: string, query: CalendarQuery): Promise<GetCalendarResponse> {
    const subject = subjectOf(symbolInput);
    const { calendar } = subject;
    const { start, end } = checkedRange(calendar, localDate(calendar, query.start_date), localDate(calendar, query.end_date), "query");
    await assertListed(deps, subject.symbol);
    const entries = await deps.entries.list(subject.symbol, start, end);
    const days = entries.map((entry) => ({ date: entry.date, kind: entry.day_type, sessions: entry.sessions }));
    const readiness = await readinessOf(deps, subject, days, StoredPeriods);
    const views = entries.map((entry) => viewOf(entry, calendar, readiness.get(entry.date)));
    return {
      success: true,
      symbol: subject.symbol,
      market: subject.market,
      start_date: start,
      end_date: end,
      entries: views,
      total: views.length,
      trading_days: views.filter((view) => view.is_trading_day).length,
      data_ready_days: views.filter((view) => view.is_trading_day && allReady(view.data_readiness)).length,
    };
  },

  /**
   * Trading dates of the range whose regular session has ended and whose stored regular-session
   * bars in `period` are fewer than the day's slots. Missing edges make a 30-day window (docs/trading-calendar.md).
   */
  async missing(deps: TradingCalendarDeps, symbolInput: string, query: MissingDatesQuery): Promise<MissingDatesResponse> {
    const subject = subjectOf(symbolInput);
    const { calendar } = subject;
    // A missing edge is filled with a 30-day window: ending today, ending at end_date, or starting at start_date.
    const window = DEFAULT_MISSING_DAYS - 1;
    const given = {
      start: query.start_date ? localDate(calendar, query.start_date) : undefined,
      end: query.end_date ? localDate(calendar, query.end_date) : undefined,
    };
    const endDate = given.end ?? (given.start ? shift(given.start, window) : calendar.localDateOf(deps.now()));
    const { start, end } = checkedRange(calendar, given.start ?? shift(endDate, -window), endDate, "query");
    await assertListed(deps, subject.symbol);
    const { days, source } = await daysOf(deps, subject, start, end);
    const now = deps.now();
    const due = days.filter((day) => day.kind !== "closed" && hasClosed(day, calendar, now));
    const readiness = await readinessOf(deps, subject, due, [query.period]);
    const missing = due.filter((day) => !readiness.get(day.date)![query.period]!.ready).map((day) => day.date);
    return {
      success: true,
      symbol: subject.symbol,
      period: query.period,
      start_date: start,
      end_date: end,
      missing_dates: missing,
      count: missing.length,
      checked_days: due.length,
      calendar_source: source,
    };
  },

  /** Coverage of the range in each requested period: a day is ready when every period is. */
  async verify(deps: TradingCalendarDeps, symbolInput: string, request: VerifyDataRequest): Promise<VerifyDataResponse> {
    const subject = subjectOf(symbolInput);
    const { calendar } = subject;
    const { start, end } = checkedRange(calendar, localDate(calendar, request.start_date), localDate(calendar, request.end_date), "body");
    await assertListed(deps, subject.symbol);
    const { days, source } = await daysOf(deps, subject, start, end);
    const now = deps.now();
    const trading = days.filter((day) => day.kind !== "closed");
    const due = trading.filter((day) => hasClosed(day, calendar, now));
    const readiness = await readinessOf(deps, subject, due, request.periods);
    const details: Record<string, PeriodCoverage> = {};
    for (const period of request.periods) {
      const states = due.map((day) => ({ date: day.date, state: readiness.get(day.date)![period]! }));
      const missing = states.filter(({ state }) => !state.ready).map(({ date }) => date);
      details[period] = {
        ready_days: due.length - missing.length,
        missing_dates: missing,
        coverage_rate: rate(due.length - missing.length, due.length),
        expected_bars: states.reduce((sum, { state }) => sum + state.expected_bars, 0),
        stored_bars: states.reduce((sum, { state }) => sum + state.stored_bars, 0),
      };
    }
    const missing = due.filter((day) => !allReady(readiness.get(day.date))).map((day) => day.date);
    const ready = due.length - missing.length;
    return {
      success: true,
      symbol: subject.symbol,
      start_date: start,
      end_date: end,
      periods: request.periods,
      is_ready: missing.length === 0,
      coverage_rate: rate(ready, due.length),
      total_trading_days: due.length,
      ready_days: ready,
      pending_days: trading.length - due.length,
      missing_dates: missing,
      period_details: details,
      calendar_source: source,
    };
  },
};
