import { describe, expect, it } from "vitest";
import { combineBeats, workerStatus } from "./worker-status";

describe("the worker tasks' heartbeats", () => {
  it("combine into one: the latest beat, the earliest start, sessions, feeds, bars and last bars together", () => {
    const a = { at: 5_000, started_at: 1_000, sessions: 2, feeds: ["AAPL.US|1m"], last_bar: { s1: 4_000, s2: 4_000 }, bars: 10 };
    const b = { at: 6_000, started_at: 2_000, sessions: 1, feeds: ["AAPL.US|1m", "0700.HK|5m"], last_bar: { s3: 5_000 }, bars: 3 };
    const beat = combineBeats([a, b]);
    expect(beat).toEqual({
      at: 6_000,
      started_at: 1_000,
      sessions: 3,
      feeds: ["0700.HK|5m", "AAPL.US|1m"],
      last_bar: { s1: 4_000, s2: 4_000, s3: 5_000 },
      bars: 13,
    });
    expect(workerStatus(beat, 7_000, "s3")).toMatchObject({ alive: true, sessions: 3, last_bar_at: new Date(5_000).toISOString() });
    expect(combineBeats([a])).toBe(a);
    expect(combineBeats([])).toBeUndefined();
  });
});
