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

  it.each([
    ["after its save reached the table, before the answer came back", "after"],
    ["before its save reached the table", "before"],
  ] as const)("lose no event and write none twice when the worker is killed mid-save (%s)", async (_, when) => {
    const session = await h.startSession(`killed mid-save ${when}`, barsSessionConfig);
    const runs = h.api.services.trading.sessions.runs;
    const first = await h.newWorker();
    await h.minutes(first, 10);
    const before = (await runs.get(session.id))!;
    expect(before.progress!.bars).toBe(10);
    // The next write of the run's state item (its save of the next minute) dies with the worker, on one side of the table or the other.
    let killed = false;
    const client = h.api.services.db.client;
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const save =
          ["PutItemCommand", "TransactWriteItemsCommand"].includes(String(context.commandName)) && JSON.stringify(args.input).includes(`"RUN#${session.id}"`);
        if (!save || killed) return next(args);
        killed = true;
        if (when === "after") await next(args);
        throw new Error("killed mid-save");
      },
      { step: "initialize", name: "killMidSave" },
    );
    try {
      await h.minutes(first, 1).catch(() => undefined);
    } finally {
      client.middlewareStack.remove("killMidSave");
    }
    expect(killed).toBe(true);
    await first.stop();
    // What the table holds: the minute's save whole, or nothing of it.
    expect((await runs.get(session.id))!.version).toBe(when === "after" ? before.version + 1 : before.version);
    const second = await h.newWorker();
    await h.minutes(second, 9);
    await second.stop();

    // Every minute fed once; every event once, in order, with no gap.
    expect((await runs.get(session.id))!.progress).toMatchObject({ bars: 20, cursor_ms: h.clock });
    const events = await h.logs(session.id);
    expect(events.map((e) => e.sequence)).toEqual(Array.from({ length: events.length }, (_, i) => i + 1));
    const orders = (await runs.orders(session.id, { limit: 100 })).items;
    expect(new Set(orders.map((o) => o.id)).size).toBe(orders.length);
    expect(orders.length).toBe(events.filter((e) => e.type === "order_submitted" || e.type === "order_denied").length);
  });
});
