import { afterEach, describe, expect, it, vi } from "vitest";
import { TradingEngine } from "../../packages/core/src/engine/engine";
import type { EngineEvent } from "../../packages/core/src/engine/events";
import { engineOf, orderOf, RUN_BATCH_STEPS, type RunStep, type RunUpdate, updateRun } from "../../packages/core/src/trading/run/update";
import type { StoredRun } from "../../packages/core/src/trading/run/runs";
import { WorkerHarness } from "../support/worker-harness";

/**
 * The group commit of a run's writers in one process (docs/session-worker.md "Commands from the
 * API"): the steps that wait while a save is under way are applied in arrival order to one engine
 * and saved in one write; the next batch of the same drain starts from the run as saved, and a
 * run that another process changed meanwhile is read again and the steps redone on it.
 */
const h = WorkerHarness.forSuite("2024-03-15T14:30:00Z");
const config = { strategy_name: "ma_crossover", parameters: { fast_period: 3, slow_period: 8 }, symbols: ["AAPL.US"], timeframe: "1m", venue: "bars" };

const deps = () => h.api.services.trading.sessions;
/** A running session's run, attached by a worker. */
async function runningRun(name: string): Promise<string> {
  const id = (await h.startSession(name, config)).id as string;
  await h.newWorker();
  return id;
}
/** A step that raises an alert named `message`. */
const alert =
  (message: string) =>
  (run: StoredRun): RunStep<string> => {
    const engine = engineOf(run);
    engine.raiseAlert("system", "TEST", message, {}, h.clock);
    return { engine, value: message };
  };
const messagesOf = (events: EngineEvent[]) => events.map((e) => (e.data as { message?: string }).message);
const logged = async (id: string) => {
  const { items } = await deps().runs.events(id, { limit: 1000 });
  return items.filter((e) => e.type === "alert").map((e) => [e.sequence, (e.data as { message: string }).message]);
};
/** A step that waits for `gate` before raising its alert: the steps sent meanwhile queue behind its save. */
const gated = (message: string) => {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  return { open, step: async (run: StoredRun) => (await gate, alert(message)(run)) };
};
/** Another process's save of the run: an alert on the run as stored, conditional on its version. */
async function savedElsewhere(id: string, message: string) {
  const stored = (await deps().runs.get(id))!;
  const engine = engineOf(stored);
  engine.raiseAlert("system", "TEST", message, {}, h.clock);
  const saved = { ...stored, snapshot: engine.snapshot(), version: stored.version + 1 };
  expect(await deps().runs.save(saved, stored.version, engine.drainEvents())).toBe(true);
}

/** A step that records the versions of the runs it is given; before acting on the first, another process saves the run. */
function racedStep<T>(id: string, act: (run: StoredRun, first: boolean) => RunStep<T> | null) {
  const seen: number[] = [];
  const step = async (run: StoredRun) => {
    seen.push(run.version);
    if (seen.length === 1) await savedElsewhere(id, "elsewhere");
    return act(run, seen.length === 1);
  };
  return { seen, step };
}

afterEach(() => vi.restoreAllMocks());

describe("updateRun", () => {
  it("applies the steps that waited in arrival order on one engine, saving them in one write without reading the run again", async () => {
    const id = await runningRun("group commit");
    const before = (await deps().runs.get(id))!;
    const reads = vi.spyOn(deps().runs, "get");
    const saves = vi.spyOn(deps().runs, "save");
    const restores = vi.spyOn(TradingEngine, "restore");
    const first = gated("first");
    const updates = [updateRun(deps(), id, first.step), ...["a", "b", "c", "d", "e"].map((m) => updateRun(deps(), id, alert(m)))];
    first.open();
    const done = (await Promise.all(updates)) as RunUpdate<string>[];

    expect(done.map((d) => d.value)).toEqual(["first", "a", "b", "c", "d", "e"]);
    // Two batches: the first read the run; the second started from what the first saved.
    expect(reads).toHaveBeenCalledTimes(1);
    expect(saves).toHaveBeenCalledTimes(2);
    expect(restores).toHaveBeenCalledTimes(2);
    const sequences = done.flatMap((d) => d.events.map((e) => e.sequence));
    expect(sequences).toEqual(Array.from({ length: sequences.length }, (_, i) => before.snapshot!.sequence + 1 + i));
    expect((await logged(id)).map(([, m]) => m)).toEqual(["first", "a", "b", "c", "d", "e"]);
    const stored = (await deps().runs.get(id))!;
    expect(stored.version).toBe(before.version + 2);
    expect(stored.snapshot!.sequence).toBe(sequences[sequences.length - 1]);
    expect(done.slice(1).every((d) => d.run === done[5]!.run)).toBe(true);
  });

  it("saves the steps that waited in batches of RUN_BATCH_STEPS, each one save, in arrival order", async () => {
    const id = await runningRun("fitted saves");
    const before = (await deps().runs.get(id))!;
    const saves = vi.spyOn(deps().runs, "save");
    const first = gated("first");
    // 150 steps of one event each wait behind the first: 100 to a batch, so 100 + 50.
    const messages = Array.from({ length: 150 }, (_, i) => `m${i}`);
    const updates = [updateRun(deps(), id, first.step), ...messages.map((m) => updateRun(deps(), id, alert(m)))];
    first.open();
    const done = (await Promise.all(updates)) as RunUpdate<string>[];

    expect(done.map((d) => d.value)).toEqual(["first", ...messages]);
    expect(saves.mock.calls.map(([, , events]) => events.length)).toEqual([1, RUN_BATCH_STEPS, 150 - RUN_BATCH_STEPS]);
    const sequences = done.flatMap((d) => d.events.map((e) => e.sequence));
    expect(sequences).toEqual(Array.from({ length: 151 }, (_, i) => before.snapshot!.sequence + 1 + i));
    expect((await logged(id)).map(([, m]) => m)).toEqual(["first", ...messages]);
    expect((await deps().runs.get(id))!.version).toBe(before.version + 3);
  });

  it("gives each caller the engine at its own step's state", async () => {
    const id = await runningRun("engines");
    const first = gated("first");
    const updates = [updateRun(deps(), id, first.step), ...["x", "y", "z"].map((m) => updateRun(deps(), id, alert(m)))];
    first.open();
    const done = (await Promise.all(updates)) as RunUpdate<string>[];
    for (const update of done) expect(update.engine.snapshot().sequence).toBe(update.events[update.events.length - 1]!.sequence);
    expect(done[3]!.engine.snapshot()).toEqual(done[3]!.run.snapshot);
  });

  it("leaves the run as it was before a step that changed the engine and then refused; the others are saved", async () => {
    const id = await runningRun("refusal");
    const first = gated("first");
    const refusing = (run: StoredRun): RunStep<string> => {
      engineOf(run).raiseAlert("system", "TEST", "never saved", {}, h.clock);
      throw new Error("refused");
    };
    const updates = [
      updateRun(deps(), id, first.step),
      updateRun(deps(), id, alert("kept")),
      updateRun(deps(), id, refusing),
      updateRun(deps(), id, alert("after")),
    ];
    first.open();
    const settled = await Promise.allSettled(updates);
    expect(settled.map((s) => s.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
    const events = await logged(id);
    expect(events.map(([, m]) => m)).toEqual(["first", "kept", "after"]);
    // No sequence skipped: the refused step's alert was never part of the run.
    expect(events[2]![0]).toBe((events[1]![0] as number) + 1);
    const kept = (settled[1] as PromiseFulfilledResult<RunUpdate<string>>).value;
    expect(messagesOf(kept.engine.drainEvents())).toEqual([]);
    expect(kept.engine.snapshot().sequence).toBe(events[1]![0]);
  });

  it("reads the run again and redoes the steps when another process saved it after the batch before", async () => {
    const id = await runningRun("other process");
    const first = gated("first");
    const { seen, step: second } = racedStep(id, (run) => alert("second")(run));
    const updates = [updateRun(deps(), id, first.step), updateRun(deps(), id, second)];
    first.open();
    const [, done] = (await Promise.all(updates)) as RunUpdate<string>[];
    // Started from the run the first batch saved, lost the save to the other process, redone on the run as it stands.
    expect(seen).toEqual([seen[0], seen[0]! + 1]);
    expect((await logged(id)).map(([, m]) => m)).toEqual(["first", "elsewhere", "second"]);
    expect(done!.run.version).toBe(seen[0]! + 2);
  });

  it("checks an answer given on the run the batch before saved against the table when the batch saves nothing", async () => {
    const id = await runningRun("stale answer");
    const first = gated("first");
    // Refuses on the run the first batch saved (while another process saves it); nothing to save on the run as it stands.
    const { seen, step } = racedStep(id, (_run, first) => {
      if (first) throw new Error("stale");
      return null;
    });
    const updates = [updateRun(deps(), id, first.step), updateRun(deps(), id, step)];
    first.open();
    const [, answer] = await Promise.all(updates);
    expect(answer).toBeNull();
    expect(seen).toEqual([seen[0], seen[0]! + 1]);
  });

  it("answers a placed order's record from its step's events, as the save wrote it", async () => {
    const id = await runningRun("order record");
    const placed = await updateRun(deps(), id, (run) => {
      const engine = engineOf(run);
      const { order } = engine.submit(
        { channel_id: engine.channelIds()[0]!, symbol: "AAPL.US", side: "buy", quantity: 1, order_type: "limit", price: 1.5, reason: "manual order" },
        h.clock,
      );
      return { engine, value: order!.order_id };
    });
    expect(orderOf(placed!, placed!.value)).toEqual(await deps().runs.order(placed!.value));
    expect(orderOf(placed!, "no-such-order")).toBeUndefined();
  });
});
