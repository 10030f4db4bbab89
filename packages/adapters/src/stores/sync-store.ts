import type { SyncRecord, SyncStore } from "@tp/core/data-sync/index";
import type { Db } from "../dynamo/db";
import { Keys } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";
import { transactIfUnchanged } from "../dynamo/transactions";

/** The data sync record on the single table, replaced conditionally on `version`; log sequences are atomic counters. */
export class DynamoSyncStore implements SyncStore {
  private readonly records: Repository<SyncRecord>;
  private readonly sequences: Repository<{ sequence: number }>;

  constructor(db: Db) {
    this.records = new Repository<SyncRecord>(db, { type: "DataSync", key: () => Keys.dataSync() });
    this.sequences = new Repository<{ sequence: number }>(db, { type: "SyncLogSequence", key: () => Keys.dataSync() });
  }

  get() {
    return this.records.get(Keys.dataSync(), { consistent: true });
  }

  replace(record: SyncRecord, expectedVersion: number): Promise<boolean> {
    const put = this.records.toItem(record);
    return transactIfUnchanged(this.records.db, [expectedVersion === 0 ? { put, ifAbsent: true } : { put, ifVersion: expectedVersion }]);
  }

  async nextSequence(symbol: string): Promise<number> {
    return (await this.sequences.increment(Keys.syncLogSequence(symbol), "sequence", 1)).sequence;
  }
}
