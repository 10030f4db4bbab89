import type { TradingEngine } from "@tp/core/engine/engine";
import type { EngineEvent } from "@tp/core/engine/events";
import { engineOf } from "@tp/core/trading/run/update";
import type { RunSave, RunStore, StoredRun } from "@tp/core/trading/run/runs";
import { TurnBatch } from "@tp/core/util/turn-batch";

/**
 * The runs the worker fed, kept in memory while the stored version still matches (crash-only:
 * the table is the truth, this a cache; docs/session-worker.md "Each step"). `get` answers the run
 * as this worker last saved it, without a read; `save` stays conditional on the version, so a run
 * another writer changed meanwhile (an API command, the rollover, another task) fails its save,
 * is dropped from the cache, and the retry reads it from the table. The saves that arrive
 * together (a step's sessions, fed side by side) go to the store in one `saveMany`: as few
 * transactions as hold them, each run's save still all or nothing on its own version. Everything
 * else goes to the store.
 *
 * The engine that made a saved run is kept with it (`engineOf` hands it out again for that very
 * run object instead of restoring the snapshot). That holds because the worker's feeds are this
 * store's only writers, one feed per session at a time: each save is of one step, whose engine is
 * the one handed out for it.
 */
export class RunCache implements RunStore {
  private readonly saved = new Map<string, StoredRun>();
  private readonly engines = new Map<string, { run: StoredRun; engine: TradingEngine }>();
  private readonly handedOut = new Map<string, TradingEngine>();
  /** The saves of the feeds that reach them together (a step's sessions, fed side by side) go to the store as one `saveMany`. */
  private readonly saves: TurnBatch<RunSave, boolean>;

  constructor(private readonly store: RunStore) {
    this.saves = new TurnBatch((saves) =>
      store.saveMany ? store.saveMany(saves) : Promise.allSettled(saves.map(({ run, expectedVersion, events }) => store.save(run, expectedVersion, events))),
    );
  }

  async get(runId: string): Promise<StoredRun | undefined> {
    const cached = this.saved.get(runId);
    if (cached) return cached;
    const run = await this.store.get(runId);
    if (run) this.saved.set(runId, run);
    return run;
  }

  async progress(runId: string) {
    const cached = this.saved.get(runId);
    return cached ? cached.progress : this.store.progress(runId);
  }

  /** The run as this worker last saved or read it, without a read (undefined when it has none). */
  peek(runId: string): StoredRun | undefined {
    return this.saved.get(runId);
  }

  /** The run as this worker last saved it and the engine that made it, while no feed has it in hand (the step's `channel_metrics` read them). */
  kept(runId: string): { run: StoredRun; engine: TradingEngine } | undefined {
    const kept = this.engines.get(runId);
    return kept && kept.run === this.saved.get(runId) ? kept : undefined;
  }

  /** The run's engine: the one kept with this very run when it was saved here, else restored from its snapshot. */
  engineOf(run: StoredRun): TradingEngine {
    const kept = this.engines.get(run.run_id);
    this.engines.delete(run.run_id);
    const engine = kept && kept.run === run ? kept.engine : engineOf(run);
    this.handedOut.set(run.run_id, engine);
    return engine;
  }

  async save(run: StoredRun, expectedVersion: number, events: EngineEvent[]): Promise<boolean> {
    const id = run.run_id;
    const engine = this.handedOut.get(id);
    this.drop(id);
    const done = await this.saves.add({ run, expectedVersion, events });
    if (done) this.keep(run, engine);
    return done;
  }

  /** Forgets a run (its session let go, a feed of it failed, a command changed it): the next `get` reads the table. */
  forget(runId: string): void {
    this.drop(runId);
  }

  private drop(runId: string): void {
    this.saved.delete(runId);
    this.engines.delete(runId);
    this.handedOut.delete(runId);
  }

  private keep(run: StoredRun, engine: TradingEngine | undefined): void {
    this.saved.set(run.run_id, run);
    if (engine) this.engines.set(run.run_id, { run, engine });
  }

  events(...args: Parameters<RunStore["events"]>) {
    return this.store.events(...args);
  }

  orders(...args: Parameters<RunStore["orders"]>) {
    return this.store.orders(...args);
  }

  order(orderId: string) {
    return this.store.order(orderId);
  }

  async delete(runId: string): Promise<void> {
    this.forget(runId);
    await this.store.delete(runId);
  }
}
