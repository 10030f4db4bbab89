import type { ReplayMarkers } from "@tp/core/trading/drivers/replay";
import type { Db } from "../dynamo/db";
import { Keys } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";

/**
 * The list of playing driven runs (`Keys.playingReplay`): one marker per run that is playing (a
 * replay, a running historical MTF session), which the session worker's playing loop reads every
 * tick. The state lives on the run; a marker whose run is no longer playing is dropped by the loop.
 */
export class DynamoReplayMarkers implements ReplayMarkers {
  private readonly markers: Repository<{ run_id: string }>;

  constructor(db: Db) {
    this.markers = new Repository<{ run_id: string }>(db, { type: "PlayingReplayMarker", key: (m) => Keys.playingReplay(m.run_id) });
  }

  async mark(runId: string): Promise<void> {
    await this.markers.put({ run_id: runId });
  }

  async unmark(runId: string): Promise<void> {
    await this.markers.delete(Keys.playingReplay(runId));
  }

  async list(): Promise<string[]> {
    return (await this.markers.queryAll(Keys.playingReplaysPartition)).map((m) => m.run_id);
  }
}
