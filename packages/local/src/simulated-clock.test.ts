import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AcceleratedClock } from "@tp/core/provider/clock";
import { CLOCK_MARK_FILE, keepClockMark, marketPacedInterval, readClockMark, regularOpenFrom, resumeFrom, simulatedClockFromEnv } from "./simulated-clock";

describe("the accelerated simulated clock", () => {
  it("runs N times faster than the clock under it, from its start", () => {
    let wall = 1_000_000;
    const clock = new AcceleratedClock(Date.parse("2024-03-15T13:30:00Z"), 60, () => wall);
    expect(clock.now()).toBe(Date.parse("2024-03-15T13:30:00Z"));
    wall += 1_000;
    expect(clock.now()).toBe(Date.parse("2024-03-15T13:31:00Z"));
    wall += 59_000;
    expect(clock.now()).toBe(Date.parse("2024-03-15T14:30:00Z"));
    // Restarted: from the start again, at the same speed.
    clock.restart();
    expect(clock.now()).toBe(Date.parse("2024-03-15T13:30:00Z"));
    wall += 500;
    expect(clock.now()).toBe(Date.parse("2024-03-15T13:30:30Z"));
  });

  it("refuses a speed that is not a positive number", () => {
    expect(() => new AcceleratedClock(0, 0)).toThrowError(RangeError);
    expect(() => new AcceleratedClock(0, Number.NaN)).toThrowError(RangeError);
  });

  it("starts by default at the open of the full US regular session in progress, or of the next one: weekends, holidays and half days skipped", () => {
    const at = (iso: string) => regularOpenFrom("US", Date.parse(iso));
    // Friday 2024-03-15 10:00 New York (EDT): the session opened at 09:30.
    expect(at("2024-03-15T14:00:00Z")).toBe(Date.parse("2024-03-15T13:30:00Z"));
    // After Friday's close, Saturday, Sunday, and Monday before the open: Monday's open.
    expect(at("2024-03-15T20:00:00Z")).toBe(Date.parse("2024-03-18T13:30:00Z"));
    expect(at("2024-03-16T12:00:00Z")).toBe(Date.parse("2024-03-18T13:30:00Z"));
    expect(at("2024-03-17T12:00:00Z")).toBe(Date.parse("2024-03-18T13:30:00Z"));
    expect(at("2024-03-18T13:00:00Z")).toBe(Date.parse("2024-03-18T13:30:00Z"));
    // The weekend after Thanksgiving 2026: Thursday closed, Friday a half day (09:30-13:00), so Monday's open,
    // from Thursday, from inside Friday's short session, and from Saturday.
    expect(at("2026-11-26T15:00:00Z")).toBe(Date.parse("2026-11-30T14:30:00Z"));
    expect(at("2026-11-27T15:00:00Z")).toBe(Date.parse("2026-11-30T14:30:00Z"));
    expect(at("2026-11-28T10:00:00Z")).toBe(Date.parse("2026-11-30T14:30:00Z"));
    // Christmas Eve 2024 (a half day) and Christmas (closed): the 26th.
    expect(at("2024-12-23T22:00:00Z")).toBe(Date.parse("2024-12-26T14:30:00Z"));
    // Hong Kong opens at 09:30 HKT (01:30 UTC).
    expect(regularOpenFrom("HK", Date.parse("2024-03-15T03:00:00Z"))).toBe(Date.parse("2024-03-15T01:30:00Z"));
  });

  it("goes on from the instant a data directory's clock reached: on from it inside a session, else at the next full session's open", () => {
    expect(resumeFrom("US", Date.parse("2024-03-15T18:00:00Z"))).toBe(Date.parse("2024-03-15T18:00:00Z"));
    expect(resumeFrom("US", Date.parse("2024-03-15T20:30:00Z"))).toBe(Date.parse("2024-03-18T13:30:00Z"));
    const wall = () => Date.parse("2024-03-16T12:00:00Z"); // a Saturday
    // The kept instant is later than the default start (the clock ran ahead of the wall clock): on from it.
    expect(simulatedClockFromEnv({ SIMULATED_CLOCK_SPEED: "60" }, wall, Date.parse("2024-03-19T15:00:00Z"))).toMatchObject({
      start: Date.parse("2024-03-19T15:00:00Z"),
      asked: Date.parse("2024-03-18T13:30:00Z"),
    });
    // Earlier than the default start: the default start.
    const later = simulatedClockFromEnv({ SIMULATED_CLOCK_SPEED: "60" }, wall, Date.parse("2024-03-15T15:00:00Z"));
    expect(later).toMatchObject({ start: Date.parse("2024-03-18T13:30:00Z") });
    expect(later).not.toHaveProperty("asked");
    // SIMULATED_CLOCK_START before the kept instant is moved up to it (and says what it asked for).
    expect(
      simulatedClockFromEnv({ SIMULATED_CLOCK_SPEED: "600", SIMULATED_CLOCK_START: "2024-03-15T19:00:00Z" }, wall, Date.parse("2024-03-15T19:42:00Z")),
    ).toMatchObject({ start: Date.parse("2024-03-15T19:42:00Z"), asked: Date.parse("2024-03-15T19:00:00Z") });
  });

  it("keeps the clock's reading in the data directory, every interval and at the stop", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "tp-clock-mark-"));
    expect(readClockMark(dataDir)).toBeUndefined();
    let now = Date.parse("2024-03-15T14:00:00Z");
    const stop = keepClockMark(dataDir, { now: () => now }, 20);
    expect(readClockMark(dataDir)).toBe(Date.parse("2024-03-15T14:00:00Z"));
    now = Date.parse("2024-03-15T14:05:00Z");
    await new Promise((done) => setTimeout(done, 60));
    expect(readClockMark(dataDir)).toBe(Date.parse("2024-03-15T14:05:00Z"));
    now = Date.parse("2024-03-15T14:06:00Z");
    stop();
    expect(JSON.parse(readFileSync(join(dataDir, CLOCK_MARK_FILE), "utf8"))).toEqual({ reached: "2024-03-15T14:06:00.000Z" });
    expect(existsSync(join(dataDir, `${CLOCK_MARK_FILE}.tmp`))).toBe(false);
  });

  it("reads SIMULATED_CLOCK_SPEED and SIMULATED_CLOCK_START, and leaves the wall clock alone without them", () => {
    expect(simulatedClockFromEnv({})).toBeUndefined();
    const wall = () => Date.parse("2024-03-17T12:00:00Z");
    expect(simulatedClockFromEnv({ SIMULATED_CLOCK_SPEED: "60" }, wall)).toMatchObject({ speed: 60, start: Date.parse("2024-03-18T13:30:00Z") });
    expect(simulatedClockFromEnv({ SIMULATED_CLOCK_SPEED: "10", SIMULATED_CLOCK_START: "2024-03-18T14:00:00Z" }, wall)).toMatchObject({
      speed: 10,
      start: Date.parse("2024-03-18T14:00:00Z"),
    });
    expect(simulatedClockFromEnv({ SIMULATED_CLOCK_START: "2024-03-18T14:00:00Z" }, wall)).toMatchObject({ speed: 1 });
    expect(() => simulatedClockFromEnv({ SIMULATED_CLOCK_SPEED: "fast" }, wall)).toThrowError(/SIMULATED_CLOCK_SPEED/);
    expect(() => simulatedClockFromEnv({ SIMULATED_CLOCK_SPEED: "-2" }, wall)).toThrowError(/SIMULATED_CLOCK_SPEED/);
    expect(() => simulatedClockFromEnv({ SIMULATED_CLOCK_SPEED: "60", SIMULATED_CLOCK_START: "tomorrow" }, wall)).toThrowError(/SIMULATED_CLOCK_START/);
  });

  it("paces the runtime's schedules by market time: the 5-minute gap fill every 5 market minutes", () => {
    expect(marketPacedInterval(5 * 60_000, undefined)).toBe(300_000);
    expect(marketPacedInterval(5 * 60_000, 60)).toBe(5_000);
    expect(marketPacedInterval(60_000, 600)).toBe(1_000);
  });
});
