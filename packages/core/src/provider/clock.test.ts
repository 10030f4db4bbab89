import { describe, expect, it } from "vitest";
import { ManualClock, SystemClock } from "./clock";

describe("clocks", () => {
  it("moves a manual clock only when told to", () => {
    const clock = new ManualClock("2026-03-09T13:30:00Z");
    expect(clock.now()).toBe(Date.parse("2026-03-09T13:30:00Z"));
    expect(clock.advance(60_000)).toBe(Date.parse("2026-03-09T13:31:00Z"));
    clock.set(0);
    expect(clock.now()).toBe(0);
  });

  it("rejects an instant that is not a date", () => {
    expect(() => new ManualClock("not a date")).toThrowError(RangeError);
  });

  it("reads the system clock", () => {
    const before = Date.now();
    const now = new SystemClock().now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });
});
