import { describe, expect, it } from "vitest";
import { barsSessionConfig, WorkerHarness } from "../support/worker-harness";

/**
 * Every bar the session worker feeds reaches the table in that step (no save is held back: in
 * production a bar comes a minute apart, and a held save would be written the next second anyway,
 * docs/aws-costs.md): against DynamoDB Local and the simulated market on a manual clock, API
 * commands that write the run between bars and a worker that stops lose no bar and feed none twice.
 */
// The US regular session opens (EDT).
const h = WorkerHarness.forSuite("2024-03-15T13:30:00Z");

describe("the worker's saves", () => {
  it("write every bar at once, although API commands write the run between bars and the worker is replaced", async () => {
    const session = await h.startSession("every bar saved", barsSessionConfig);
    const runs = h.api.services.trading.sessions.runs;
    const first = await h.newWorker();
    for (let minute = 1; minute <= 30; minute++) {
      await h.minutes(first, 1);
      // The table's run has every bar fed so far.
      expect((await runs.get(session.id))!.progress!.bars).toBe(minute);
      // Every seventh minute an API command writes the run: the worker's next save is on the version it left.
      if (minute % 7 === 0)
        expect((await h.api.request("POST", `/api/v1/trading/sessions/${session.id}/risk/reset-daily`, { token: h.token })).status).toBe(200);
    }
    await first.stop();
    const second = await h.newWorker();
    await h.minutes(second, 10);
    await second.stop();

    // Every minute closed since the start, each fed once.
    expect((await runs.get(session.id))!.progress).toMatchObject({ bars: 40, cursor_ms: h.clock });
    const events = await h.logs(session.id);
    expect(events.map((e) => e.sequence)).toEqual(Array.from({ length: events.length }, (_, i) => i + 1));
    // The reset-dailies, each once.
    expect(events.filter((e) => e.type === "risk_event" && e.data?.kind === "daily_reset").length).toBe(4);
  });
});
