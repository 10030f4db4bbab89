import { describe, expect, it } from "vitest";
import { combineBeats, workerStatus } from "./status";

describe("the worker tasks' heartbeats", () => {
  it("combine into one: the latest beat, the earliest start, sessions, feeds and bars together, nothing per session", () => {
    const a = { at: 5_000, started_at: 1_000, sessions: 2, feeds: ["AAPL.US|1m"], bars: 10 };
    const b = { at: 6_000, started_at: 2_000, sessions: 1, feeds: ["AAPL.US|1m", "0700.HK|5m"], bars: 3 };
    const beat = combineBeats([a, b]);
    expect(beat).toEqual({ at: 6_000, started_at: 1_000, sessions: 3, feeds: ["0700.HK|5m", "AAPL.US|1m"], bars: 13 });
    expect(combineBeats([a])).toBe(a);
    expect(combineBeats([])).toBeUndefined();
  });

  it("show a session's last bar from its run (progress.cursor_ms), null before its first", () => {
    const beat = { at: 6_000, started_at: 1_000, sessions: 3, feeds: [], bars: 13 };
    expect(workerStatus(beat, 7_000, 5_000)).toMatchObject({ alive: true, sessions: 3, last_bar_at: new Date(5_000).toISOString() });
    expect(workerStatus(beat, 7_000, 0).last_bar_at).toBeNull();
    expect(workerStatus(beat, 7_000).last_bar_at).toBeNull();
    expect(workerStatus(beat, 40_000)).toMatchObject({ alive: false });
  });
});
