import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { DomainError } from "../errors";
import { Calendar } from "./calendar";
import { HkClosures, HkHalfDays, UsClosures, UsEarlyCloses } from "./calendar-data";
import { dayNumberOf, isoDateOf, weekdayOf } from "./zoned-time";

const us = Calendar.for("US");
const hk = Calendar.for("HK");
const iso = (ms: number) => new Date(ms).toISOString();

// Independent NYSE rule engine, used to check the dated table rather than trusting it.
function easterSunday(year: number): number {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return Date.UTC(year, month - 1, day) / 86_400_000;
}
const day = (y: number, m: number, d: number) => Date.UTC(y, m - 1, d) / 86_400_000;
function nthWeekday(year: number, month: number, weekday: number, n: number): number {
  let d = day(year, month, 1);
  while (weekdayOf(d) !== weekday) d++;
  return d + 7 * (n - 1);
}
function lastWeekday(year: number, month: number, weekday: number): number {
  let d = day(year, month + 1, 1) - 1;
  while (weekdayOf(d) !== weekday) d--;
  return d;
}
function observed(d: number, allowFriday = true): number | null {
  const w = weekdayOf(d);
  if (w === 0) return d + 1;
  if (w === 6) return allowFriday ? d - 1 : null;
  return d;
}
function nyseRuleHolidays(year: number): number[] {
  const days = [
    observed(day(year, 1, 1), false), // a Saturday New Year is not moved into the old accounting year
    nthWeekday(year, 1, 1, 3),
    nthWeekday(year, 2, 1, 3),
    easterSunday(year) - 2,
    lastWeekday(year, 5, 1),
    year >= 2022 ? observed(day(year, 6, 19)) : null,
    observed(day(year, 7, 4)),
    nthWeekday(year, 9, 1, 1),
    nthWeekday(year, 11, 4, 4),
    observed(day(year, 12, 25)),
  ];
  return days.filter((d): d is number => d !== null).sort((a, b) => a - b);
}

describe("US calendar", () => {
  it("matches the NYSE holiday rules for 2020–2028, except the 2025-01-09 day of mourning", () => {
    for (let year = 2020; year <= 2028; year++) {
      const table = UsClosures.filter(([d]) => d.startsWith(String(year)) && d !== "2025-01-09").map(([d]) => dayNumberOf(d));
      expect(table.map(isoDateOf), String(year)).toEqual(nyseRuleHolidays(year).map(isoDateOf));
    }
  });

  it("closes on 2025-01-09 for the national day of mourning", () => {
    expect(us.isTradingDay("2025-01-09")).toBe(false);
    expect(us.dayName("2025-01-09")).toBe("National Day of Mourning for President Jimmy Carter");
    expect(us.sessionsOf("2025-01-09")).toEqual([]);
  });

  it("closes early at 13:00 ET on 2026-11-27 with after-hours 13:00–17:00", () => {
    expect(us.isHalfDay("2026-11-27")).toBe(true);
    const sessions = us.sessionsOf("2026-11-27");
    expect(sessions.map((s) => [s.session, iso(s.start), iso(s.end)])).toEqual([
      ["Pre", "2026-11-27T09:00:00.000Z", "2026-11-27T14:30:00.000Z"],
      ["Intraday", "2026-11-27T14:30:00.000Z", "2026-11-27T18:00:00.000Z"],
      ["Post", "2026-11-27T18:00:00.000Z", "2026-11-27T22:00:00.000Z"],
    ]);
    expect(us.minutesOf("2026-11-27", "Intraday")).toBe(210);
  });

  it("lists the reference's early closes for 2025–2028", () => {
    const early = UsEarlyCloses.map(([d]) => d).filter((d) => d >= "2025");
    expect(early).toEqual(["2025-07-03", "2025-11-28", "2025-12-24", "2026-11-27", "2026-12-24", "2027-11-26", "2028-07-03", "2028-11-24"]);
  });

  it("keeps 2027-12-31 open because 2028-01-01 falls on a Saturday", () => {
    expect(us.isTradingDay("2027-12-31")).toBe(true);
    expect(us.isTradingDay("2021-12-31")).toBe(true);
  });

  it("moves the regular session by an hour in UTC across the March 2026 DST switch", () => {
    const friday = us.sessionsOf("2026-03-06").find((s) => s.session === "Intraday")!;
    const monday = us.sessionsOf("2026-03-09").find((s) => s.session === "Intraday")!;
    expect(iso(friday.start)).toBe("2026-03-06T14:30:00.000Z");
    expect(iso(monday.start)).toBe("2026-03-09T13:30:00.000Z");
    expect(iso(monday.end)).toBe("2026-03-09T20:00:00.000Z");
  });

  it("moves the regular session back when DST ends on 2026-11-01", () => {
    expect(iso(us.sessionsOf("2026-10-30").find((s) => s.session === "Intraday")!.start)).toBe("2026-10-30T13:30:00.000Z");
    expect(iso(us.sessionsOf("2026-11-02").find((s) => s.session === "Intraday")!.start)).toBe("2026-11-02T14:30:00.000Z");
  });

  it("counts the overnight session from the previous evening toward the next trading day, only when enabled", () => {
    expect(us.sessionsOf("2026-03-09").map((s) => s.session)).toEqual(["Pre", "Intraday", "Post"]);
    const overnight = us.sessionsOf("2026-03-09", { overnight: true })[0];
    expect(overnight.session).toBe("Overnight");
    // Sunday 2026-03-08 20:00 EDT (DST started that morning) to Monday 03:50 EDT.
    expect(iso(overnight.start)).toBe("2026-03-09T00:00:00.000Z");
    expect(iso(overnight.end)).toBe("2026-03-09T07:50:00.000Z");
    expect(us.minutesOf("2026-03-09", "Overnight")).toBe(470);
  });

  it("finds the session and trading date of an instant", () => {
    const atPre = us.sessionAt(Date.parse("2026-03-09T12:00:00Z"));
    expect(atPre).toMatchObject({ date: "2026-03-09", session: "Pre" });
    expect(us.sessionAt(Date.parse("2026-03-10T01:00:00Z"))).toBeNull();
    expect(us.sessionAt(Date.parse("2026-03-10T01:00:00Z"), { overnight: true })).toMatchObject({
      date: "2026-03-10",
      session: "Overnight",
    });
    expect(us.sessionAt(Date.parse("2026-03-09T07:55:00Z"), { overnight: true })).toBeNull();
  });

  it("has the regular, pre and post minute counts of a full day", () => {
    expect(us.minutesOf("2026-06-15", "Pre")).toBe(330);
    expect(us.minutesOf("2026-06-15", "Intraday")).toBe(390);
    expect(us.minutesOf("2026-06-15", "Post")).toBe(240);
    expect(us.minutesOf("2026-06-13", "Intraday")).toBe(0);
  });
});

describe("HK calendar", () => {
  it("has morning-only half days on 2026-02-16, 2026-12-24 and 2026-12-31", () => {
    expect(hk.halfDays("2026-01-01", "2026-12-31")).toEqual(["2026-02-16", "2026-12-24", "2026-12-31"]);
    const sessions = hk.sessionsOf("2026-12-24");
    expect(sessions.map((s) => [s.session, iso(s.start), iso(s.end)])).toEqual([["Intraday", "2026-12-24T01:30:00.000Z", "2026-12-24T04:00:00.000Z"]]);
    expect(hk.minutesOf("2026-12-24", "Intraday")).toBe(150);
  });

  it("splits a full day into a morning and an afternoon session around the lunch break", () => {
    const sessions = hk.sessionsOf("2026-03-10");
    expect(sessions.map((s) => [s.session, iso(s.start), iso(s.end)])).toEqual([
      ["Intraday", "2026-03-10T01:30:00.000Z", "2026-03-10T04:00:00.000Z"],
      ["Intraday", "2026-03-10T05:00:00.000Z", "2026-03-10T08:00:00.000Z"],
    ]);
    expect(hk.minutesOf("2026-03-10", "Intraday")).toBe(330);
    expect(hk.sessionAt(Date.parse("2026-03-10T04:30:00Z"))).toBeNull();
    expect(hk.sessionsOf("2026-03-10", { overnight: true })).toHaveLength(2);
  });

  it("is closed over the 2026 Lunar New Year and the Easter and Ching Ming holidays", () => {
    for (const date of ["2026-02-17", "2026-02-18", "2026-02-19", "2026-04-03", "2026-04-06", "2026-04-07"]) {
      expect(hk.isTradingDay(date), date).toBe(false);
    }
    expect(hk.isTradingDay("2026-04-08")).toBe(true);
  });

  it("lists only weekdays and no date twice in its tables", () => {
    for (const table of [HkClosures, HkHalfDays, UsClosures, UsEarlyCloses]) {
      const days = table.map(([d]) => dayNumberOf(d));
      expect(new Set(days).size).toBe(days.length);
      for (const d of days) expect([0, 6]).not.toContain(weekdayOf(d));
    }
  });

  it("puts every half day on the weekday eve of Christmas, New Year or Lunar New Year", () => {
    for (const [date, name] of HkHalfDays) {
      if (name === "Christmas Eve") expect(date.slice(5)).toBe("12-24");
      if (name === "New Year's Eve") expect(date.slice(5)).toBe("12-31");
      if (name === "Lunar New Year's Eve") expect(hk.isTradingDay(hk.nextTradingDay(date)!)).toBe(true);
    }
  });

  it("has about 245–250 trading days a year", () => {
    for (let year = 2020; year <= 2028; year++) {
      const count = hk.tradingDays(`${year}-01-01`, `${year}-12-31`).length;
      expect(count, String(year)).toBeGreaterThanOrEqual(244);
      expect(count, String(year)).toBeLessThanOrEqual(250);
    }
  });
});

describe("calendar queries", () => {
  it("answers dates outside 2020–2028 with CALENDAR_OUT_OF_RANGE", () => {
    expect(() => us.isTradingDay("2019-12-31")).toThrowError(DomainError);
    try {
      hk.tradingDays("2028-12-01", "2029-01-10");
    } catch (error) {
      expect((error as DomainError).code).toBe("CALENDAR_OUT_OF_RANGE");
      expect((error as DomainError).status).toBe(400);
    }
  });

  it("rejects malformed dates with INVALID_DATE", () => {
    expect(() => us.isTradingDay("2026-02-30")).toThrowError(/real calendar date/);
    expect(() => us.isTradingDay("20260210")).toThrowError(/YYYY-MM-DD/);
  });

  it("declares CN and SG calendars unsupported", () => {
    expect(() => Calendar.for("CN")).toThrowError(/not supported/);
  });

  it("steps to the next and previous trading day across holidays and weekends", () => {
    expect(us.nextTradingDay("2025-01-08")).toBe("2025-01-10");
    expect(us.previousTradingDay("2025-01-10")).toBe("2025-01-08");
    expect(hk.nextTradingDay("2026-02-16")).toBe("2026-02-20");
    expect(us.nextTradingDay("2028-12-29")).toBeNull();
  });

  it("returns trading days that agree with isTradingDay for any range", () => {
    const first = dayNumberOf("2020-01-01");
    const last = dayNumberOf("2028-12-31");
    fc.assert(
      fc.property(fc.integer({ min: first, max: last }), fc.integer({ min: 0, max: 60 }), fc.constantFrom(us, hk), (start, span, calendar) => {
        const end = Math.min(last, start + span);
        const days = calendar.tradingDays(isoDateOf(start), isoDateOf(end));
        const expected: string[] = [];
        for (let d = start; d <= end; d++) if (calendar.isTradingDay(isoDateOf(d))) expected.push(isoDateOf(d));
        expect(days).toEqual(expected);
      }),
    );
  });

  it("gives sessions that are ordered, disjoint and inside the day's local hours", () => {
    const first = dayNumberOf("2020-01-02");
    const last = dayNumberOf("2028-12-29");
    fc.assert(
      fc.property(fc.integer({ min: first, max: last }), fc.constantFrom(us, hk), (d, calendar) => {
        const sessions = calendar.sessionsOf(isoDateOf(d), { overnight: true });
        for (let i = 0; i < sessions.length; i++) {
          expect(sessions[i].end).toBeGreaterThan(sessions[i].start);
          if (i > 0) expect(sessions[i].start).toBeGreaterThanOrEqual(sessions[i - 1].end);
        }
      }),
    );
  });

  it("publishes the daily timetable in local times", () => {
    expect(hk.sessionTable()).toEqual([
      { session: "Intraday", begin: "09:30", end: "12:00" },
      { session: "Intraday", begin: "13:00", end: "16:00" },
    ]);
    expect(us.sessionTable({ overnight: true }).map((r) => `${r.session} ${r.begin}-${r.end}`)).toEqual([
      "Overnight 20:00-03:50",
      "Pre 04:00-09:30",
      "Intraday 09:30-16:00",
      "Post 16:00-20:00",
    ]);
  });
});
