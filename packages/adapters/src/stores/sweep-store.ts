import type { StoredSweep, SweepStore } from "@tp/core/backtests/sweeps";
import type { Db } from "../dynamo/db";
import { Keys } from "../dynamo/keys";
import { Repository, transactIfUnchanged } from "../dynamo/repository";

const ACTIVE = new Set(["queued", "importing", "running", "pausing", "stopping"]);

/**
 * Parameter sweeps on the single table: one item per sweep (its plan: every run's id and
 * parameters, about 100 bytes a run, so 1,000 runs stay far under the item limit); its runs are
 * backtest items. While active it sits in the sparse gsi2 partition `Keys.activeSweeps`.
 * Replacements are conditional on `version`.
 */
export class DynamoSweepStore implements SweepStore {
  private readonly sweeps: Repository<StoredSweep>;

  constructor(db: Db) {
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
    await this.sweeps.put(sweep, { ifAbsent: true });
  }

  get(id: string) {
    return this.sweeps.get(Keys.sweep(id));
  }

  replace(sweep: StoredSweep, expectedVersion: number): Promise<boolean> {
    return transactIfUnchanged(this.sweeps.db, [{ put: this.sweeps.toItem(sweep), ifVersion: expectedVersion }]);
  }

  active() {
    return this.sweeps.queryAll(Keys.activeSweeps, { index: "gsi2" });
  }

  /**
   * The two flags alone: every run reads them at its checkpoints, and the whole item (the plan of
   * every run, ~100 KB for a walk-forward of 1,000 runs) read and parsed each time made a run's
   * cost grow with its sweep's size. DynamoDB bills the whole item's size all the same.
   */
  async flags(id: string) {
    const sweep = await this.sweeps.get(Keys.sweep(id), { projection: ["pause_requested", "stop_requested"] });
    return sweep ? { pause_requested: sweep.pause_requested, stop_requested: sweep.stop_requested } : undefined;
  }
}
