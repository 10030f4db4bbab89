import { retrying } from "../../util/backoff";
import { serviceUnavailable } from "../../errors";
import { KeyedQueue } from "../../util/keyed-queue";
import { TradingEngine } from "../../engine/engine";
import type { EngineEvent } from "../../engine/events";
import type { EngineSetup } from "../../engine/setup";
import { orderChangeOf, type RunProgress, type SaveOptions, type RunStore, type StoredRun, type TradingOrderResponse } from "./runs";

/**
 * The engine a batch has at hand for the run a step is given (the engine the step before it
 * returned, at that run's state): `engineOf` hands it over once instead of restoring the snapshot
 * again. Set only while the step runs.
 */
const atHand = new WeakMap<StoredRun, TradingEngine>();

/**
 * The run's engine as it was left: restored from its snapshot, or new at its setup. `setup` replaces the stored one (a configuration change).
 * Inside `updateRun`'s steps, the engine the previous step of the batch left (no restore), when the setup is the run's.
 */
export function engineOf(run: StoredRun, setup: EngineSetup = run.setup): TradingEngine {
  const engine = atHand.get(run);
  if (engine) {
    atHand.delete(run);
    if (setup === run.setup) return engine;
  }
  return run.snapshot ? TradingEngine.restore(setup, run.snapshot) : new TradingEngine(setup);
}

/**
 * An order's record as the step's own events left it: what its save wrote for it (a later step
 * of the same batch may have changed it since), without reading it back. Undefined when the
 * step's events did not create it.
 */
export function orderOf(update: RunUpdate<unknown>, orderId: string): TradingOrderResponse | undefined {
  let order: TradingOrderResponse | undefined;
  for (const event of update.events) {
    const change = orderChangeOf(event, update.run);
    if (change?.kind === "create" && change.order.id === orderId) order = change.order;
    else if (change?.kind === "set" && order && change.order_id === orderId) order = { ...order, ...change.fields };
  }
  return order;
}

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
/** Steps applied to one read of a run and saved in one write, at most (the others wait for the next). */
export const RUN_BATCH_STEPS = 100;

interface Waiting {
  deps: Deps;
  options?: SaveOptions;
  step: Step<unknown>;
  whenMissing?: () => Error;
  resolve: (done: RunUpdate<unknown> | null) => void;
  reject: (error: unknown) => void;
}

/** What lives while one run's writers in this process drain their queue. */
interface RunDrain {
  /**
   * The run as the last batch saved it: the next batch of the same drain starts from it instead of
   * reading it again. Only a cache: the save stays conditional on its version, so a run another
   * process changed meanwhile loses the save and is read again.
   */
  saved?: StoredRun;
}

/** Per run store, its runs' writers in this process, queued per run and applied a batch at a time. */
const queues = new WeakMap<RunStore, KeyedQueue<Waiting, RunDrain>>();

/** A save that another process's writer got to first, or answers given from a saved run that may be stale. */
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
 *
 * A batch restores the engine once: each step's `engineOf(run)` gets the engine the step before
 * it left, and each caller's `engine` is at its own step's state (restored from that step's
 * snapshot when the caller first asks for it, but for the batch's last step). While the queue
 * keeps draining, the next batch starts from the run as this one saved it, without reading it.
 */
export function updateRun<T>(deps: Deps, runId: string, step: Step<T>, whenMissing?: () => Error, options?: SaveOptions): Promise<RunUpdate<T> | null> {
  return new Promise<RunUpdate<T> | null>((resolve, reject) => {
    writersOf(deps.runs).push(runId, { deps, options, step: step as Step<unknown>, whenMissing, resolve: resolve as Waiting["resolve"], reject });
  });
}

function writersOf(runs: RunStore): KeyedQueue<Waiting, RunDrain> {
  let writers = queues.get(runs);
  if (!writers) {
    writers = new KeyedQueue<Waiting, RunDrain>(
      (waiting) => Math.min(waiting.length, RUN_BATCH_STEPS),
      applyBatch,
      () => ({}),
    );
    queues.set(runs, writers);
  }
  return writers;
}

/** A step that acted, with its events and the run right after it. */
type Done = RunStep<unknown> & { events: EngineEvent[]; after: StoredRun };
/** What a step came to: its caller's answer once the batch is saved (null: nothing to save), or its refusal. */
type Outcome = { done: Done | null } | { refused: unknown };

/**
 * Applies the batch's steps in order to one read of the run and saves them in one write; a refused
 * step leaves the run as it was before it. A batch that fails rejects each of its writers.
 */
async function applyBatch(runId: string, batch: Waiting[], drain: RunDrain): Promise<void> {
  try {
    await retrying(() => tryBatch(runId, batch, drain), {
      attempts: RUN_SAVE_ATTEMPTS,
      baseMs: BACKOFF_BASE_MS,
      maxMs: BACKOFF_MAX_MS,
      retryable: (error) => error instanceof LostRace,
    });
  } catch (error) {
    drain.saved = undefined;
    const failure =
      error instanceof LostRace
        ? serviceUnavailable(
            `The trading engine of run ${runId} is unavailable: another writer saved it on every one of ${RUN_SAVE_ATTEMPTS} attempts; try again`,
            1,
          )
        : error;
    for (const waiting of batch) waiting.reject(failure);
  }
}

/**
 * One attempt: read (or take the run the previous batch saved), apply the steps, save conditionally
 * on the version (LostRace when another process saved first).
 */
async function tryBatch(runId: string, batch: Waiting[], drain: RunDrain): Promise<void> {
  const { deps } = batch[0]!;
  const known = drain.saved;
  drain.saved = undefined;
  const run = known ?? (await deps.runs.get(runId));
  if (!run) {
    for (const waiting of batch) {
      if (waiting.whenMissing) waiting.reject(waiting.whenMissing());
      else waiting.resolve(null);
    }
    return;
  }
  let current = run;
  /** The engine at `current`'s state, when the batch has one (none before the first step: it restores the snapshot). */
  let engine: TradingEngine | undefined;
  const events: EngineEvent[] = [];
  const outcomes: Outcome[] = [];
  for (const waiting of batch) {
    if (engine) atHand.set(current, engine);
    let done: RunStep<unknown> | null = null;
    let outcome: Outcome;
    try {
      done = await waiting.step(current);
      outcome = { done: null };
    } catch (error) {
      outcome = { refused: error };
    }
    // A step that took the engine and saved nothing may have changed it: the next one restores `current`'s snapshot.
    if (!atHand.delete(current) && !done) engine = undefined;
    if (done) {
      const stepEvents = done.engine.drainEvents();
      current = {
        ...current,
        setup: done.setup ?? current.setup,
        snapshot: done.engine.snapshot(),
        progress: done.progress ?? current.progress,
        version: run.version + 1,
        updated_at: new Date(deps.now()).toISOString(),
      };
      engine = done.engine;
      events.push(...stepEvents);
      outcome = { done: { ...done, events: stepEvents, after: current } };
    }
    outcomes.push(outcome);
  }
  if (current === run) {
    // Nothing to save: answers given on a run saved earlier may be stale if another process wrote it since; read it and redo them.
    if (known) throw new LostRace();
  } else if (!(await deps.runs.save(current, run.version, events, batch[0]!.options))) throw new LostRace();
  else drain.saved = current;
  const saved = current;
  const last = engine;
  outcomes.forEach((outcome, index) => {
    const waiting = batch[index]!;
    if ("refused" in outcome) waiting.reject(outcome.refused);
    else waiting.resolve(outcome.done && updateOf(outcome.done, saved, last));
  });
}

/**
 * What a step's caller gets. Its engine is the batch's own when nothing acted on it after this step
 * (the run as saved), else one restored from the step's snapshot when the caller first asks for it.
 */
function updateOf(done: Done, run: StoredRun, last: TradingEngine | undefined): RunUpdate<unknown> {
  let engine = done.after === run && done.engine === last ? done.engine : undefined;
  const { setup, snapshot } = done.after;
  return {
    value: done.value,
    events: done.events,
    run,
    get engine() {
      engine ??= TradingEngine.restore(setup, snapshot!);
      return engine;
    },
  };
}
