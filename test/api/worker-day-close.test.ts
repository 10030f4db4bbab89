import { describe, expect, it } from "vitest";
import { runDayRollover } from "../support/day-rollover";
import { startMtfSession, WorkerHarness } from "../support/worker-harness";

/**
 * The live worker's hourly bars at the end of a US day (issue 21: event times never go
 * backwards): the day's last hourly bar opens at 19:30Z and is fed as closing at the 20:00Z close,
 * not at 20:30Z, so what it causes comes before the day's end that the rollover stamps at the close.
 */
const h = WorkerHarness.forSuite("2024-03-15T18:00:00Z");

describe("the session worker at a day's close", () => {
  it("feeds the last hourly bar of the day as closing at the market's close, before the rollover's day_end", async () => {
    const created = { id: await startMtfSession(h.api, h.token, "hours to the close", "5m") };
    const worker = await h.newWorker();
    // 18:00 to 20:10Z: past the close (20:00Z, EDT) and the rollover's five minutes of grace.
    await h.minutes(worker, 130);
    const rolled = await runDayRollover(h.api.services);
    expect(rolled.rolled_sessions.map((r) => r.session_id)).toEqual([created.id]);

    const logs = await h.logs(created.id);
    const hours = logs.filter((line) => line.type === "strategy_output" && line.data.timeframe === "1h");
    // The hours that opened 17:30, 18:30 and 19:30 (the regular session's hours start at the 13:30 open).
    expect(hours.map((line) => [new Date(line.data.bar.timestamp).toISOString(), line.timestamp])).toEqual([
      ["2024-03-15T17:30:00.000Z", "2024-03-15T18:30:00.000Z"],
      ["2024-03-15T18:30:00.000Z", "2024-03-15T19:30:00.000Z"],
      ["2024-03-15T19:30:00.000Z", "2024-03-15T20:00:00.000Z"],
    ]);
    const dayEnd = logs.find((line) => line.type === "day_end");
    expect(dayEnd.timestamp).toBe("2024-03-15T20:00:00.000Z");
    // No event of the day, in sequence before the day's end, is stamped after it; the bars' events never go backwards.
    const ordered = [...logs].sort((a, b) => a.sequence - b.sequence);
    expect(ordered.filter((line) => line.sequence < dayEnd.sequence && line.timestamp > dayEnd.timestamp)).toEqual([]);
    const fed = ordered.filter((line) => line.type === "strategy_output" || line.type === "signal");
    expect(fed.every((line, i) => i === 0 || line.timestamp >= fed[i - 1]!.timestamp)).toBe(true);
  });
});
