import { z } from "zod";
import { dayNumberOf, zonedTimeToUtc } from "../market/zoned-time";

const DATE_ONLY = /^(\d{4}-\d{2}-\d{2})$/;
const LOCAL_DATE_TIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?$/;

/** An IANA time zone name, checked against the runtime's zone database. */
export const TimeZone = z
  .string()
  .refine((zone) => {
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: zone });
      return true;
    } catch {
      return false;
    }
  }, "unknown time zone (use an IANA name such as Asia/Hong_Kong)")
  .meta({ id: "TimeZone", description: "IANA time zone name used to read dates without an offset (default UTC)" });

/** The dates the service takes, inclusive: calendars, candles and time arithmetic are defined over these years. */
export const MIN_DATE = "1970-01-01";
export const MAX_DATE = "2100-12-31";
const DATE_PREFIX = /^(\d{4})-(\d{2})-(\d{2})/;

/** Whether `YYYY-MM-DD` names a day that exists (not 2026-02-30). */
export function isRealDate(value: string): boolean {
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
}

/** What is wrong with the date part of an input (`YYYY-MM-DD…`), or null: not real, or outside the supported years. */
export function datePartProblem(value: string): string | null {
  const prefix = DATE_PREFIX.exec(value);
  if (!prefix) return "must be a date YYYY-MM-DD";
  const date = prefix[0];
  if (!isRealDate(date)) return "must be a real calendar date";
  if (date < MIN_DATE || date > MAX_DATE) return `must be between ${MIN_DATE} and ${MAX_DATE}`;
  return null;
}

/** Adds `datePartProblem` as a validation issue: the one date rule every date schema shares. */
const checkDatePart = (value: string, ctx: z.RefinementCtx) => {
  const problem = datePartProblem(value);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
};

/**
 * A calendar date `YYYY-MM-DD` that exists and lies within ${MIN_DATE}..${MAX_DATE}; every
 * date-only field of the service uses it (impossible dates are a 422 like any invalid input).
 */
export const CalendarDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date YYYY-MM-DD")
  .superRefine(checkDatePart);

/** An ISO 8601 date-time with an offset, whose date is a calendar date within the supported years. */
export const InstantInput = z.iso.datetime({ offset: true }).superRefine(checkDatePart);

/** A date (`2024-01-31`) or date-time (`2024-01-31T09:30:00`, with or without offset), within the supported years. */
export const DateInput = z
  .string()
  .max(64)
  .refine(
    (value) => DATE_PREFIX.test(value) && (DATE_ONLY.test(value) || LOCAL_DATE_TIME.test(value) || !Number.isNaN(Date.parse(value))),
    "expected an ISO 8601 date or date-time",
  )
  .superRefine((value, ctx) => {
    if (DATE_PREFIX.test(value)) checkDatePart(value, ctx);
  });

/**
 * Times are UTC inside; a request's dates are read at the edge in its `timezone`. A date alone
 * means the start of that day, or its last second when `endOfDay` is set (inclusive ends).
 */
export const Instants = {
  /** UNIX seconds of an ISO date or date-time read in `timeZone` when it carries no offset. */
  parseSeconds(value: string, timeZone = "UTC", options: { endOfDay?: boolean } = {}): number {
    const dateOnly = DATE_ONLY.exec(value);
    if (dateOnly) {
      const day = dayNumberOf(dateOnly[1]!);
      if (options.endOfDay) return Math.floor(zonedTimeToUtc(timeZone, day + 1, 0) / 1000) - 1;
      return Math.floor(zonedTimeToUtc(timeZone, day, 0) / 1000);
    }
    const local = LOCAL_DATE_TIME.exec(value);
    if (local) {
      const minutes = Number(local[2]) * 60 + Number(local[3]);
      return Math.floor(zonedTimeToUtc(timeZone, dayNumberOf(local[1]!), minutes) / 1000) + Number(local[4] ?? 0);
    }
    return Math.floor(Date.parse(value) / 1000);
  },
};

/** An instant (epoch ms) as the ISO-8601 UTC text every stored and answered time uses. */
export const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * Tokens live on the wall clock, as the JWT library's expiry check and every other instance do,
 * not on the service clock that simulations and tests move: `iat`, `exp` and `tokens_valid_after`.
 */
export const tokenSeconds = (): number => Math.floor(Date.now() / 1000);
