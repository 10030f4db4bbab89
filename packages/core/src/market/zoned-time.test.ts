import { describe, expect, it } from "vitest";
import { dayNumberOf, isoDateOf, utcToZoned, weekdayOf, zonedTimeToUtc, zoneOffsetMinutes } from "./zoned-time";

describe("zoned time", () => {
  it("switches New York from EST to EDT at 02:00 local on 2026-03-08", () => {
    expect(zoneOffsetMinutes("America/New_York", Date.parse("2026-03-08T06:59:00Z"))).toBe(-300);
    expect(zoneOffsetMinutes("America/New_York", Date.parse("2026-03-08T07:00:00Z"))).toBe(-240);
    expect(zoneOffsetMinutes("Asia/Hong_Kong", Date.parse("2026-03-08T07:00:00Z"))).toBe(480);
  });

  it("turns local wall-clock times into UTC on both sides of the switch", () => {
    const day = dayNumberOf("2026-11-01");
    expect(new Date(zonedTimeToUtc("America/New_York", day - 1, 9 * 60 + 30)).toISOString()).toBe("2026-10-31T13:30:00.000Z");
    expect(new Date(zonedTimeToUtc("America/New_York", day, 9 * 60 + 30)).toISOString()).toBe("2026-11-01T14:30:00.000Z");
    expect(utcToZoned("Asia/Hong_Kong", Date.parse("2026-03-10T17:30:00Z"))).toEqual({ dayNumber: dayNumberOf("2026-03-11"), minuteOfDay: 90 });
  });

  it("round-trips dates and knows weekdays", () => {
    expect(isoDateOf(dayNumberOf("2028-02-29"))).toBe("2028-02-29");
    expect(weekdayOf(dayNumberOf("2026-03-09"))).toBe(1);
    expect(() => dayNumberOf("2027-02-29")).toThrowError(/real calendar date/);
  });
});
