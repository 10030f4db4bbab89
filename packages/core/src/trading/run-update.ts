import { retrying } from "../backoff";
import { serviceUnavailable } from "../errors";
import { TradingEngine } from "../engine/engine";
import type { EngineEvent } from "../engine/events";
import type { EngineSetup } from "../engine/setup";
import type { RunProgress, RunStore, StoredRun } from "./runs";

/** The run's engine as it was left: restored from its snapshot, or new at its setup. `setup` replaces the stored one (a configuration change). */
export const engineOf = (run: StoredRun, setup: EngineSetup = run.setup): TradingEngine =>
  run.snapshot ? TradingEngine.restore(setup, run.snapshot) : new TradingEngine(setup);

/** What a step did: the engine it acted on, what it answers, and the run's setup or progress when they change. */
export interface RunStep<T> {
  engine: TradingEngine;
  value: T;
  setup?: EngineSetup;
  progress?: RunProgress;
}

export interface RunUpdate<T> {
  value: T;
  events: EngineEvent[];
  engine: TradingEngine;
  /** The run as saved (with the steps saved together with this one, docs/session-worker.md "Commands from the API"). */
  run: StoredRun;
}

type Deps = { runs: RunStore; now: () => number };
type Step<T> = (run: StoredRun) => RunStep<T> | null | Promise<RunStep<T> | null>;

/** Saves tried per batch before the run counts as unavailable; between them a full-jitter wait. */
export const RUN_SAVE_ATTEMPTS = 12;
const BACKOFF_BASE_MS = 5;
const BACKOFF_MAX_MS = 250;
/** Steps saved together at most (their events and order records go in one save). */
export const RUN_BATCH_STEPS = 32;

interface Waiting {
  deps: Deps;
  step: Step<unknown>;
  whenMissing?: () => Error;
  resolve: (done: RunUpdate<unknown> | null) => void;
  reject: (error: unknown) => void;
}

/** Per run store and run: the steps waiting, in the order they arrived; a run is listed while one of this process's writers drains it. */
const queues = new WeakMap<RunStore, Map<string, Waiting[]>>();

/** A save that another process's writer got to first. */
class LostRace extends Error {}

/**
 * The one way an input reaches a stored run outside its backtest chunks (orders, cancels,
 * replacements, channel commands, risk changes, the worker's bars, broker reports, the day
 * rollover, replay steps): `step` acts on the run's engine and the snapshot is saved with the
 * events it caused, conditionally on the run's version. `step` returns null when there is nothing
 * to save (then so does this), and throws to refuse. A run that does not exist gives null, or the
 * error `whenMissing` makes.
 *
 * Writers of one run never fail for being many (docs/session-worker.md "Commands from the API"):
 * inside a process they queue per run and are applied one after the other in the order they
 * arrived, the steps waiting while a save is under way being applied together on one read and
 * saved in one write (group commit); against writers in other processes a lost save reads the
 * run again and redoes the steps after a full-jitter wait. 503 `SERVICE_UNAVAILABLE` only when
 * the run changed on every one of `RUN_SAVE_ATTEMPTS` saves.
 */
export function updateRun<T>(deps: Deps, runId: string, step: Step<T>, whenMissing?: () => Error): Promise<RunUpdate<T> | null> {
  let byRun = queues.get(deps.runs);
  if (!byRun) queues.set(deps.runs, (byRun = new Map()));
  return new Promise<RunUpdate<T> | null>((resolve, reject) => {
    const waiting: Waiting = { deps, step: step as Step<unknown>, whenMissing, resolve: resolve as Waiting["resolve"], reject };
    const queue = byRun.get(runId);
    if (queue) queue.push(waiting);
    else {
      const fresh = [waiting];
      byRun.set(runId, fresh);
      void drain(byRun, runId, fresh);
    }
  });
}

async function drain(byRun: Map<string, Waiting[]>, runId: string, queue: Waiting[]) {
  while (queue.length > 0) {
    const batch = queue.splice(0, RUN_BATCH_STEPS);
    try {
      await applyBatch(runId, batch);
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
    }
  }
  byRun.delete(runId);
}

type Outcome = { kind: "done"; value: unknown; events: EngineEvent[]; engine: TradingEngine } | { kind: "none" } | { kind: "refused"; error: unknown };

/** Applies the batch's steps in order to one read of the run and saves them in one write; a refused step leaves the run as it was before it. */
async function applyBatch(runId: string, batch: Waiting[]) {
  try {
    await retrying(() => tryBatch(runId, batch), {
      attempts: RUN_SAVE_ATTEMPTS,
      baseMs: BACKOFF_BASE_MS,
      maxMs: BACKOFF_MAX_MS,
      retryable: (error) => error instanceof LostRace,
    });
  } catch (error) {
    if (!(error instanceof LostRace)) throw error;
    throw serviceUnavailable(
      `The trading engine of run ${runId} is unavailable: another writer saved it on every one of ${RUN_SAVE_ATTEMPTS} attempts; try again`,
      1,
    );
  }
}

/** One attempt: read, apply every step, save conditionally on the version read (LostRace when another process saved first). */
async function tryBatch(runId: string, batch: Waiting[]) {
  const { deps } = batch[0]!;
  const run = await deps.runs.get(runId);
  if (!run) {
    for (const waiting of batch) {
      if (waiting.whenMissing) waiting.reject(waiting.whenMissing());
      else waiting.resolve(null);
    }
    return;
  }
  let current = run;
  const events: EngineEvent[] = [];
  const outcomes: Outcome[] = [];
  for (const waiting of batch) {
    try {
      const done = await waiting.step(current);
      if (!done) {
        outcomes.push({ kind: "none" });
        continue;
      }
      const stepEvents = done.engine.drainEvents();
      current = {
        ...current,
        setup: done.setup ?? current.setup,
        snapshot: done.engine.snapshot(),
        progress: done.progress ?? current.progress,
        version: run.version + 1,
        updated_at: new Date(deps.now()).toISOString(),
      };
      events.push(...stepEvents);
      outcomes.push({ kind: "done", value: done.value, events: stepEvents, engine: done.engine });
    } catch (error) {
      outcomes.push({ kind: "refused", error });
    }
  }
  if (current !== run && !(await deps.runs.save(current, run.version, events))) throw new LostRace();
  batch.forEach((waiting, index) => {
    const outcome = outcomes[index]!;
    if (outcome.kind === "refused") waiting.reject(outcome.error);
    else if (outcome.kind === "none") waiting.resolve(null);
    else waiting.resolve({ value: outcome.value, events: outcome.events, engine: outcome.engine, run: current });
  });
}
