import { z } from "zod";
import { inParallel } from "../in-parallel";
import { StoredPeriod, StoredPeriods, type CandleStore } from "../candles/index";
import { ValidationError, type ValidationIssue } from "../errors";
import { Calendar, type DayKind, type SessionInterval } from "../market/calendar";
import { Market, marketOf, normalizeSymbol } from "../market/market";
import { TradeSession } from "../market/trade-session";
import { dayNumberOf, isoDateOf, utcToZoned, zonedTimeToUtc, type IsoDate } from "../market/zoned-time";
import type { MarketData } from "../provider/market-data";
import { DateInput, Instants } from "../time";
import { regularBarSlots } from "./bar-slots";
import { countStoredBars } from "./readiness";

export { regularBarSlots, type SessionDay } from "./bar-slots";
export { countStoredBars, type SlottedDay } from "./readiness";

/**
 * The longest range one request may cover, in calendar days. Init writes one item per date,
 * so a year keeps it to a few hundred conditional writes and about 13 provider calls.
 */
export const MAX_CALENDAR_DAYS = 366;
/** The window `missing` checks when no dates are given: the 30 days ending today (exchange-local). */
export const DEFAULT_MISSING_DAYS = 30;

const Count = z.number().int();

/** `full` trading day, `half` (US 13:00 early close, HK morning only) or `closed`. */
export const CalendarDayType = z.enum(["full", "half", "closed"]).meta({ id: "CalendarDayType" });

/** A stored calendar entry: one per symbol and exchange-local date, written once (never overwritten). */
export interface CalendarEntry {
  symbol: string;
  market: Market;
  date: IsoDate;
  /** The provider's verdict for the date. */
  day_type: DayKind;
  /** Holiday or half-day name from the market calendar, `Weekend`, or null. */
  name: string | null;
  /** Pre, regular and post sessions as UTC intervals (epoch ms); the US overnight session is not part of a stored day. */
  sessions: SessionInterval[];
  created_at: string;
}

/** Storage port for calendar entries. */
export interface CalendarEntryStore {
  /** A symbol's entries from `start` to `end` (inclusive), in date order. */
  list(symbol: string, start: IsoDate, end: IsoDate): Promise<CalendarEntry[]>;
  /** Writes the entry unless one exists for its symbol and date; false when it existed. */
  createIfAbsent(entry: CalendarEntry): Promise<boolean>;
}

export interface TradingCalendarDeps {
  entries: CalendarEntryStore;
  candles: CandleStore;
  marketData: () => Promise<MarketData>;
  now: () => number;
}

const Periods = z
  .array(StoredPeriod)
  .min(1)
  .refine((periods) => new Set(periods).size === periods.length, "periods must not repeat");

export const InitCalendarRequest = z
  .object({ start_date: DateInput, end_date: DateInput })
  .meta({ id: "InitCalendarRequest", description: `Exchange-local dates (a date-time counts by its exchange-local date); at most ${MAX_CALENDAR_DAYS} days` });
export type InitCalendarRequest = z.infer<typeof InitCalendarRequest>;

export const CalendarQuery = z.object({ start_date: DateInput, end_date: DateInput });
export type CalendarQuery = z.infer<typeof CalendarQuery>;

export const MissingDatesQuery = z.object({
  period: StoredPeriod,
  start_date: DateInput.optional(),
  end_date: DateInput.optional(),
});
export type MissingDatesQuery = z.infer<typeof MissingDatesQuery>;

export const VerifyDataRequest = z
  .object({ start_date: DateInput, end_date: DateInput, periods: Periods.default([...StoredPeriods]) })
  .meta({ id: "VerifyDataRequest" });
export type VerifyDataRequest = z.infer<typeof VerifyDataRequest>;

/** Where the days of a range came from: stored entries, the market calendar, or both (dates without entries). */
export const CalendarSource = z.enum(["stored", "market", "mixed"]).meta({ id: "CalendarSource" });
export type CalendarSource = z.infer<typeof CalendarSource>;

export const CalendarSession = z
  .object({
    name: TradeSession,
    start: z.string().describe("UTC, ISO 8601"),
    end: z.string().describe("UTC, ISO 8601 (exclusive)"),
    local_start: z.string().describe("Exchange-local HH:MM"),
    local_end: z.string().describe("Exchange-local HH:MM"),
  })
  .meta({ id: "CalendarSession" });

export const PeriodReadiness = z
  .object({
    ready: z.boolean(),
    expected_bars: Count.describe("Regular-session bars a complete day has in this period"),
    stored_bars: Count.describe("Regular-session bars stored on the day's bar slots"),
  })
  .meta({ id: "PeriodReadiness" });
export type PeriodReadiness = z.infer<typeof PeriodReadiness>;

export const CalendarEntryView = z
  .object({
    date: z.string(),
    symbol: z.string(),
    market: Market,
    day_type: CalendarDayType,
    is_trading_day: z.boolean(),
    is_half_day: z.boolean(),
    name: z.string().nullable(),
    timezone: z.string(),
    sessions: z.array(CalendarSession),
    data_readiness: z.record(z.string(), PeriodReadiness).describe("Per period (1m, 5m, 1h, 1d); empty on closed days"),
    created_at: z.string(),
  })
  .meta({ id: "CalendarEntry" });
export type CalendarEntryView = z.infer<typeof CalendarEntryView>;

export const InitCalendarResponse = z
  .object({
    success: z.boolean(),
    message: z.string(),
    symbol: z.string(),
    market: Market,
    start_date: z.string(),
    end_date: z.string(),
    created_count: Count,
    skipped_count: Count.describe("Dates that already had an entry (left as they were)"),
    total_days: Count,
    trading_days: Count.describe("Full and half days"),
    half_days: Count,
    closed_days: Count,
    mismatched_dates: z
      .array(z.string())
      .describe("Dates where the provider and the market calendar disagree; stored with the provider's day type and no sessions"),
  })
  .meta({ id: "InitCalendarResponse" });
export type InitCalendarResponse = z.infer<typeof InitCalendarResponse>;

export const GetCalendarResponse = z
  .object({
    success: z.boolean(),
    symbol: z.string(),
    market: Market,
    start_date: z.string(),
    end_date: z.string(),
    entries: z.array(CalendarEntryView),
    total: Count,
    trading_days: Count,
    data_ready_days: Count.describe("Trading days ready in every period"),
  })
  .meta({ id: "GetCalendarResponse" });
export type GetCalendarResponse = z.infer<typeof GetCalendarResponse>;

export const MissingDatesResponse = z
  .object({
    success: z.boolean(),
    symbol: z.string(),
    period: StoredPeriod,
    start_date: z.string(),
    end_date: z.string(),
    missing_dates: z.array(z.string()),
    count: Count,
    checked_days: Count.describe("Trading days in range whose regular session has ended"),
    calendar_source: CalendarSource,
  })
  .meta({ id: "MissingDatesResponse" });
export type MissingDatesResponse = z.infer<typeof MissingDatesResponse>;

export const PeriodCoverage = z
  .object({
    ready_days: Count,
    missing_dates: z.array(z.string()),
    coverage_rate: z.number(),
    expected_bars: Count,
    stored_bars: Count,
  })
  .meta({ id: "PeriodCoverage" });
export type PeriodCoverage = z.infer<typeof PeriodCoverage>;

export const VerifyDataResponse = z
  .object({
    success: z.boolean(),
    symbol: z.string(),
    start_date: z.string(),
    end_date: z.string(),
    periods: z.array(StoredPeriod),
    is_ready: z.boolean(),
    coverage_rate: z.number().describe("ready_days / total_trading_days, 1 when there are none"),
    total_trading_days: Count.describe("Trading days in range whose regular session has ended"),
    ready_days: Count.describe("Of those, days ready in every requested period"),
    pending_days: Count.describe("Trading days in range whose regular session has not ended yet (not checked)"),
    missing_dates: z.array(z.string()),
    period_details: z.record(z.string(), PeriodCoverage),
    calendar_source: CalendarSource,
  })
  .meta({ id: "VerifyDataResponse" });
export type VerifyDataResponse = z.infer<typeof VerifyDataResponse>;

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
function subjectOf(symbolInput: string): Subject {
  const symbol = normalizeSymbol(symbolInput);
  const market = marketOf(symbol);
  return { symbol, market, calendar: Calendar.for(market) };
}

/** 404 `SYMBOL_NOT_FOUND` unless the provider knows the symbol. */
async function assertListed(deps: TradingCalendarDeps, symbol: string): Promise<MarketData> {
  const marketData = await deps.marketData();
  await marketData.staticInfo([symbol]);
  return marketData;
}

/** The exchange-local date of an input: a date as is, a date-time by where it falls on the exchange's clock. */
const localDate = (calendar: Calendar, value: string): IsoDate => calendar.localDateOf(Instants.parseSeconds(value, calendar.timeZone) * 1000);

const shift = (date: IsoDate, days: number) => isoDateOf(dayNumberOf(date) + days);

/** Checks a range against the calendar's coverage and the length limit, listing every problem. */
function checkedRange(calendar: Calendar, start: IsoDate, end: IsoDate, location: "body" | "query") {
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

const datesOf = (start: IsoDate, end: IsoDate): IsoDate[] =>
  Array.from({ length: dayNumberOf(end) - dayNumberOf(start) + 1 }, (_, offset) => shift(start, offset));

/** The day's sessions from the market calendar: pre, regular and post (overnight depends on settings and symbol). */
const marketSessions = (calendar: Calendar, date: IsoDate): SessionInterval[] =>
  calendar.sessionsOf(date).map(({ session, start, end }) => ({ session, start, end }));

/** The days of a range: stored entries where they exist, the market calendar for the other dates. */
async function daysOf(deps: TradingCalendarDeps, subject: Subject, start: IsoDate, end: IsoDate) {
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
function hasClosed(day: Day, calendar: Calendar, now: number): boolean {
  const regular = day.sessions.filter((session) => session.session === "Intraday");
  const end = regular.length ? regular[regular.length - 1]!.end : zonedTimeToUtc(calendar.timeZone, dayNumberOf(day.date) + 1, 0);
  return end <= now;
}

/** Per trading day and period: expected and stored regular-session bars. */
async function readinessOf(
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

const allReady = (readiness: Record<string, PeriodReadiness> | undefined) =>
  readiness !== undefined && Object.values(readiness).every((period) => period.ready);

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

/** LongPort answers at most a month per `trading_days` call, so the range is asked month by month. */
async function providerDays(marketData: MarketData, market: Market, start: IsoDate, end: IsoDate) {
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
