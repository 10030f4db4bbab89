/**
 * The trading calendar's data: the stored calendar entry (one per symbol and exchange-local date)
 * and its storage port, the dependencies of the use cases, the range limits, and the request and
 * response schemas of the four endpoints (init, entries, missing dates, verify) with the entry's
 * view and the per-period readiness and coverage they answer.
 */
import { z } from "zod";
import { StoredPeriod, StoredPeriods, type CandleStore } from "../candles/index";
import type { DayKind, SessionInterval } from "../market/calendar";
import { Market } from "../market/market";
import { TradeSession } from "../market/trade-session";
import type { IsoDate } from "../market/zoned-time";
import type { MarketData } from "../provider/market-data";
import { DateInput } from "../util/time";

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
