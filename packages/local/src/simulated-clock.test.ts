import { describe, expect, it } from "vitest";
import { AcceleratedClock } from "@tp/core/provider/clock";
import { lastRegularOpen, marketPacedInterval, simulatedClockFromEnv } from "./simulated-clock";

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

  it("starts by default at the US regular session in progress, or the last one", () => {
    // Friday 2024-03-15 10:00 New York (EDT): the session opened at 09:30.
    expect(lastRegularOpen("US", Date.parse("2024-03-15T14:00:00Z"))).toBe(Date.parse("2024-03-15T13:30:00Z"));
    // Sunday: Friday's open. Before Monday's open: Friday's too.
    expect(lastRegularOpen("US", Date.parse("2024-03-17T12:00:00Z"))).toBe(Date.parse("2024-03-15T13:30:00Z"));
    expect(lastRegularOpen("US", Date.parse("2024-03-18T13:00:00Z"))).toBe(Date.parse("2024-03-15T13:30:00Z"));
    // Hong Kong opens at 09:30 HKT (01:30 UTC).
    expect(lastRegularOpen("HK", Date.parse("2024-03-15T03:00:00Z"))).toBe(Date.parse("2024-03-15T01:30:00Z"));
  });

  it("reads SIMULATED_CLOCK_SPEED and SIMULATED_CLOCK_START, and leaves the wall clock alone without them", () => {
    expect(simulatedClockFromEnv({})).toBeUndefined();
    const wall = () => Date.parse("2024-03-17T12:00:00Z");
    expect(simulatedClockFromEnv({ SIMULATED_CLOCK_SPEED: "60" }, wall)).toMatchObject({ speed: 60, start: Date.parse("2024-03-15T13:30:00Z") });
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
