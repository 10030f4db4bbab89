import { describe, expect, it } from "vitest";
import { HOLD_SAVES } from "../../packages/worker/src/run-cache";
import { barsSessionConfig, WorkerHarness } from "../support/worker-harness";

/**
 * The session worker's held saves of quiet bars (docs/session-worker.md "Quiet bars") against
 * DynamoDB Local and the simulated market on a manual clock: the table's run lags what was fed by
 * at most `HOLD_SAVES` bars, API commands that overtake the held saves and a worker that dies
 * holding some lose no bar and feed none twice.
 */
// The US regular session opens (EDT).
const h = WorkerHarness.forSuite("2024-03-15T13:30:00Z");

const config = barsSessionConfig;

describe("held saves of quiet bars", () => {
  it("feed every bar once although API commands overtake them and the worker dies holding some", async () => {
    const session = await h.startSession("held saves", config);
    const runs = h.api.services.trading.sessions.runs;
    const first = await h.newWorker();
    let behind = 0;
    let minute = 0;
    let stored = 0;
    // Thirty minutes at least, and on until the worker holds saves (it stops holding them below).
    while (minute < 30 || (stored === minute && minute < 60)) {
      minute += 1;
      await h.minutes(first, 1);
      stored = (await runs.get(session.id))!.progress!.bars;
      // The table's run is at most HOLD_SAVES bars behind what the worker fed.
      expect(stored).toBeGreaterThanOrEqual(minute - HOLD_SAVES);
      expect(stored).toBeLessThanOrEqual(minute);
      if (stored < minute) behind += 1;
      // Every seventh minute an API command writes the run as the table has it, overtaking what the worker holds.
      if (minute % 7 === 0)
        expect((await h.api.request("POST", `/api/v1/trading/sessions/${session.id}/risk/reset-daily`, { token: h.token })).status).toBe(200);
    }
    expect(behind).toBeGreaterThan(1);
    expect(stored).toBeLessThan(minute);

    // The worker dies holding saves (they never reach the table); another one takes the session up.
    (first as unknown as { release: () => Promise<void> }).release = async () => undefined;
    await first.stop();
    const second = await h.newWorker();
    await h.minutes(second, 10);
    await second.stop();

    // Every minute closed since the start, each fed once.
    expect((await runs.get(session.id))!.progress).toMatchObject({ bars: minute + 10, cursor_ms: h.clock });
    const events = await h.logs(session.id);
    expect(events.map((e) => e.sequence)).toEqual(Array.from({ length: events.length }, (_, i) => i + 1));
    // The reset-dailies, each once.
    expect(events.filter((e) => e.type === "risk_event" && e.data?.kind === "daily_reset").length).toBe(Math.floor(minute / 7));
  });
});
