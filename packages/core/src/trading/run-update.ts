import { retrying } from "../backoff";
import { serviceUnavailable } from "../errors";
import { TradingEngine } from "../engine/engine";
import type { EngineEvent } from "../engine/events";
import type { EngineSetup } from "../engine/setup";
import { orderChangeOf, type RunProgress, type RunStore, type StoredRun, type TradingOrderResponse } from "./runs";

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
/** Steps saved together at most (their events and order records go in one save). */
export const RUN_BATCH_STEPS = 32;

interface Waiting {
  deps: Deps;
  step: Step<unknown>;
  whenMissing?: () => Error;
  resolve: (done: RunUpdate<unknown> | null) => void;
  reject: (error: unknown) => void;
}

/** One run's writers in this process, while one of them drains the queue. */
interface RunQueue {
  /** The steps waiting, in the order they arrived. */
  waiting: Waiting[];
  /**
   * The run as the last batch saved it: the next batch of the same drain starts from it instead of
   * reading it again. Only a cache: the save stays conditional on its version, so a run another
   * process changed meanwhile loses the save and is read again.
   */
  saved?: StoredRun;
}

/** Per run store and run: a run is listed while one of this process's writers drains it. */
const queues = new WeakMap<RunStore, Map<string, RunQueue>>();

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
export function updateRun<T>(deps: Deps, runId: string, step: Step<T>, whenMissing?: () => Error): Promise<RunUpdate<T> | null> {
  let byRun = queues.get(deps.runs);
  if (!byRun) queues.set(deps.runs, (byRun = new Map()));
  return new Promise<RunUpdate<T> | null>((resolve, reject) => {
    const waiting: Waiting = { deps, step: step as Step<unknown>, whenMissing, resolve: resolve as Waiting["resolve"], reject };
    const queue = byRun.get(runId);
    if (queue) queue.waiting.push(waiting);
    else {
      const fresh: RunQueue = { waiting: [waiting] };
      byRun.set(runId, fresh);
      void drain(byRun, runId, fresh);
    }
  });
}

async function drain(byRun: Map<string, RunQueue>, runId: string, queue: RunQueue) {
  while (queue.waiting.length > 0) {
    const batch = queue.waiting.splice(0, RUN_BATCH_STEPS);
    try {
      await applyBatch(runId, batch, queue);
    } catch (error) {
      queue.saved = undefined;
      for (const waiting of batch) waiting.reject(error);
    }
  }
  byRun.delete(runId);
}

type Outcome =
  | { kind: "done"; value: unknown; events: EngineEvent[]; engine: TradingEngine; after: StoredRun }
  | { kind: "none" }
  | { kind: "refused"; error: unknown };

/** Applies the batch's steps in order to one read of the run and saves them in one write; a refused step leaves the run as it was before it. */
async function applyBatch(runId: string, batch: Waiting[], queue: RunQueue) {
  try {
    await retrying(() => tryBatch(runId, batch, queue), {
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

/** One attempt: read (or take the run the previous batch saved), apply every step, save conditionally on the version (LostRace when another process saved first). */
async function tryBatch(runId: string, batch: Waiting[], queue: RunQueue) {
  const { deps } = batch[0]!;
  const known = queue.saved;
  queue.saved = undefined;
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
    try {
      done = await waiting.step(current);
      outcomes.push(done ? { kind: "done", value: done.value, events: [], engine: done.engine, after: current } : { kind: "none" });
    } catch (error) {
      outcomes.push({ kind: "refused", error });
    }
    const taken = !atHand.delete(current);
    if (!done) {
      // A step that took the engine and then refused may have changed it: the next one restores `current`'s snapshot.
      if (taken) engine = undefined;
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
    engine = done.engine;
    events.push(...stepEvents);
    const outcome = outcomes[outcomes.length - 1] as Extract<Outcome, { kind: "done" }>;
    outcome.events = stepEvents;
    outcome.after = current;
  }
  if (current === run) {
    // Nothing to save: answers given on a run saved earlier may be stale if another process wrote it since; read it and redo them.
    if (known) throw new LostRace();
  } else if (!(await deps.runs.save(current, run.version, events))) throw new LostRace();
  else queue.saved = current;
  const saved = current;
  const last = engine;
  batch.forEach((waiting, index) => {
    const outcome = outcomes[index]!;
    if (outcome.kind === "refused") waiting.reject(outcome.error);
    else if (outcome.kind === "none") waiting.resolve(null);
    else waiting.resolve(updateOf(outcome, saved, last));
  });
}

/**
 * What a step's caller gets. Its engine is the batch's own when nothing acted on it after this step
 * (the run as saved), else one restored from the step's snapshot when the caller first asks for it.
 */
function updateOf(outcome: Extract<Outcome, { kind: "done" }>, run: StoredRun, last: TradingEngine | undefined): RunUpdate<unknown> {
  let engine = outcome.after === run && outcome.engine === last ? outcome.engine : undefined;
  const { setup, snapshot } = outcome.after;
  return {
    value: outcome.value,
    events: outcome.events,
    run,
    get engine() {
      engine ??= TradingEngine.restore(setup, snapshot!);
      return engine;
    },
  };
}
