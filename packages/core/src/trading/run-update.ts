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
  run: StoredRun;
}

const ATTEMPTS = 5;

/**
 * The one way an input reaches a stored run outside its backtest chunks (orders, cancels,
 * replacements, channel commands, risk changes, the worker's bars, the day rollover, replay
 * steps): read the run, let `step` act on its engine, and save the snapshot with the events it
 * caused, conditionally on the run's version. When another writer (the worker's feed, another
 * request) saved first, the run is read again and the step redone on it, so inputs are applied
 * one at a time in the order they were saved. `step` returns null when there is nothing to save
 * (then so does this), and throws to refuse. A run that does not exist gives null, or the error
 * `whenMissing` makes. 503 `SERVICE_UNAVAILABLE` when the run changed on every attempt.
 */
export async function updateRun<T>(
  deps: { runs: RunStore; now: () => number },
  runId: string,
  step: (run: StoredRun) => RunStep<T> | null | Promise<RunStep<T> | null>,
  whenMissing?: () => Error,
): Promise<RunUpdate<T> | null> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const run = await deps.runs.get(runId);
    if (!run) {
      if (whenMissing) throw whenMissing();
      return null;
    }
    const done = await step(run);
    if (!done) return null;
    const events = done.engine.drainEvents();
    const next: StoredRun = {
      ...run,
      setup: done.setup ?? run.setup,
      snapshot: done.engine.snapshot(),
      progress: done.progress ?? run.progress,
      version: run.version + 1,
      updated_at: new Date(deps.now()).toISOString(),
    };
    if (await deps.runs.save(next, run.version, events)) return { value: done.value, events, engine: done.engine, run: next };
  }
  throw serviceUnavailable(`The trading engine of run ${runId} is busy: it changed on every attempt; try again`, 1);
}
