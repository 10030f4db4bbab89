import type { WorkerBeat } from "@tp/core/trading/worker/status";
import type { Db } from "../dynamo/db";
import { Keys } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";

/**
 * The workers' heartbeat: one item, overwritten every step by each task with the live tasks'
 * beats combined, read by the status endpoints (each task's own beat: `lease-store.ts`).
 */
export class DynamoWorkerStore {
  private readonly beats: Repository<WorkerBeat>;

  constructor(db: Db) {
    this.beats = new Repository<WorkerBeat>(db, { type: "WorkerHeartbeat", key: () => Keys.workerHeartbeat() });
  }

  async beat(heartbeat: WorkerBeat): Promise<void> {
    await this.beats.put(heartbeat);
  }

  last(): Promise<WorkerBeat | undefined> {
    return this.beats.get(Keys.workerHeartbeat());
  }
}
