import type { StoredSweep, SweepStore } from "@tp/core/backtests/sweeps";
import type { Db } from "../dynamo/db";
import { Keys } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";
import { transact, transactIfUnchanged } from "../dynamo/transactions";

const ACTIVE = new Set(["queued", "importing", "running", "pausing", "stopping"]);

/** A sweep's flags as their item holds them. */
interface SweepFlags {
  sweep_id: string;
  pause_requested: boolean;
  stop_requested: boolean;
}

/**
 * Parameter sweeps on the single table: one item per sweep (its plan: every run's id and
 * parameters, about 100 bytes a run, so 1,000 runs stay far under the item limit); its runs are
 * backtest items. While active it sits in the sparse gsi2 partition `Keys.activeSweeps`.
 * Replacements are conditional on `version`. Beside it, in the same partition, its control flags
 * (`Keys.sweepFlags`), written in the same transaction as every version of the sweep: each run
 * reads them at its checkpoints, and reading the sweep's item instead (about 100 KB with 1,000
 * runs, billed whole whatever the projection: 25 read units) cost each run of a large sweep about
 * 100 read units, a cost growing with the sweep.
 */
export class DynamoSweepStore implements SweepStore {
  private readonly sweeps: Repository<StoredSweep>;
  private readonly flagItems: Repository<SweepFlags>;

  constructor(db: Db) {
    this.flagItems = new Repository<SweepFlags>(db, { type: "SweepFlags", key: (f) => Keys.sweepFlags(f.sweep_id) });
    this.sweeps = new Repository<StoredSweep>(db, {
      type: "Sweep",
      key: (s) => Keys.sweep(s.id),
      indexes: {
        gsi1: (s) => Keys.sweepOfSession(s.session_id, s.created_at, s.id),
        gsi2: (s) => (ACTIVE.has(s.status) ? Keys.activeSweep(s.created_at, s.id) : undefined),
      },
    });
  }

  async create(sweep: StoredSweep): Promise<void> {
    await transact(this.sweeps.db, [{ put: this.sweeps.toItem(sweep), ifAbsent: true }, { put: this.flagsOf(sweep) }]);
  }

  get(id: string) {
    return this.sweeps.get(Keys.sweep(id));
  }

  replace(sweep: StoredSweep, expectedVersion: number): Promise<boolean> {
    return transactIfUnchanged(this.sweeps.db, [{ put: this.sweeps.toItem(sweep), ifVersion: expectedVersion }, { put: this.flagsOf(sweep) }]);
  }

  active() {
    return this.sweeps.queryAll(Keys.activeSweeps, { index: "gsi2" });
  }

  /** The flags' item of `sweep`, written beside it. */
  private flagsOf(sweep: StoredSweep): Record<string, unknown> {
    return this.flagItems.toItem({ sweep_id: sweep.id, pause_requested: sweep.pause_requested, stop_requested: sweep.stop_requested });
  }

  /** The flags' own item; a sweep stored before it had one answers from its own item (those two attributes alone). */
  async flags(id: string) {
    const stored = await this.flagItems.get(Keys.sweepFlags(id));
    const sweep = stored ?? (await this.sweeps.get(Keys.sweep(id), { projection: ["pause_requested", "stop_requested"] }));
    return sweep ? { pause_requested: sweep.pause_requested, stop_requested: sweep.stop_requested } : undefined;
  }
}
