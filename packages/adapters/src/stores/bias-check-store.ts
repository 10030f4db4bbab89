import type { BiasCheckStore, StoredBiasCheck } from "@tp/core/backtests/bias-check-control";
import type { Db } from "../dynamo/db";
import { Keys } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";

/** Bias check reports on the single table: one item each (a bounded request's findings stay far under the item limit), written once. */
export class DynamoBiasCheckStore implements BiasCheckStore {
  private readonly checks: Repository<StoredBiasCheck>;

  constructor(db: Db) {
    this.checks = new Repository<StoredBiasCheck>(db, { type: "BiasCheck", key: (c) => Keys.biasCheck(c.id) });
  }

  async create(check: StoredBiasCheck): Promise<void> {
    await this.checks.put(check, { ifAbsent: true });
  }

  get(id: string) {
    return this.checks.get(Keys.biasCheck(id));
  }
}
