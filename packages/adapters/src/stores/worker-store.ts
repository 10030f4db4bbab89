import type { Db } from "../dynamo/db";
import { Keys } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";

/** What the session worker last reported about itself. */
export interface WorkerHeartbeat {
  /** Epoch ms of the beat. */
  at: number;
  started_at: number;
  /** Sessions it drives and the (symbol, period) feeds it is subscribed to. */
  sessions: number;
  feeds: string[];
  /** Close time (epoch ms) of the last bar it fed, per session. */
  last_bar: Record<string, number>;
  /** Bars fed since it started. */
  bars: number;
}

/** The worker's heartbeat: one item, overwritten every few seconds, read by the status endpoints. */
export class DynamoWorkerStore {
  private readonly beats: Repository<WorkerHeartbeat>;

  constructor(db: Db) {
    this.beats = new Repository<WorkerHeartbeat>(db, { type: "WorkerHeartbeat", key: () => Keys.workerHeartbeat() });
  }

  async beat(heartbeat: WorkerHeartbeat): Promise<void> {
    await this.beats.put(heartbeat);
  }

  last(): Promise<WorkerHeartbeat | undefined> {
    return this.beats.get(Keys.workerHeartbeat());
  }
}
