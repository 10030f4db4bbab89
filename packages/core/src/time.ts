import { z } from "zod";
import { dayNumberOf, zonedTimeToUtc } from "./market/zoned-time";

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

/** A date (`2024-01-31`) or date-time (`2024-01-31T09:30:00`, with or without offset). */
export const DateInput = z
  .string()
  .refine(
    (value) => DATE_ONLY.test(value) || LOCAL_DATE_TIME.test(value) || !Number.isNaN(Date.parse(value)),
    "expected an ISO 8601 date or date-time",
  )
  .refine((value) => !DATE_ONLY.test(value) || !Number.isNaN(Date.parse(`${value}T00:00:00Z`)), "not a calendar date");

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
