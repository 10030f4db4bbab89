import type { BacktestStore, StoredBacktest } from "@tp/core/backtests/backtests";
import type { Db } from "../dynamo/db";
import { Keys } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";
import { transactIfUnchanged } from "../dynamo/transactions";

const ACTIVE = new Set(["queued", "importing", "running", "pausing", "stopping"]);

/**
 * Backtests on the single table: one item per backtest; while it is active it also sits in the
 * sparse gsi2 partition `Keys.activeBacktests` (the embedded runtime's recovery list).
 * Replacements are conditional on `version`. A sweep's run carries the table's `ttl` while it
 * may expire (`expires_at`; reads treat it as gone after that, before DynamoDB deletes it).
 */
export class DynamoBacktestStore implements BacktestStore {
  private readonly backtests: Repository<StoredBacktest>;

  constructor(db: Db) {
    this.backtests = new Repository<StoredBacktest>(db, {
      type: "Backtest",
      key: (b) => Keys.backtest(b.id),
      indexes: {
        gsi1: (b) => Keys.backtestOfSession(b.session_id, b.created_at, b.id),
        gsi2: (b) => (ACTIVE.has(b.status) ? Keys.activeBacktest(b.created_at, b.id) : undefined),
      },
      expiresAt: (b) => b.expires_at,
    });
  }

  async create(backtest: StoredBacktest): Promise<void> {
    await this.backtests.put(backtest, { ifAbsent: true });
  }

  get(id: string) {
    return this.backtests.get(Keys.backtest(id));
  }

  replace(backtest: StoredBacktest, expectedVersion: number): Promise<boolean> {
    return transactIfUnchanged(this.backtests.db, [{ put: this.backtests.toItem(backtest), ifVersion: expectedVersion }]);
  }

  active() {
    return this.backtests.queryAll(Keys.activeBacktests, { index: "gsi2" });
  }

  async createMany(backtests: StoredBacktest[]): Promise<void> {
    await this.backtests.putMany(backtests);
  }

  getMany(ids: string[]) {
    return this.backtests.getMany(ids.map(Keys.backtest));
  }

  listBySession(sessionId: string, page: { limit: number; cursor?: string }) {
    return this.backtests.query(Keys.backtestsOfSession(sessionId), { index: "gsi1", ascending: false, limit: page.limit, cursor: page.cursor });
  }
}
