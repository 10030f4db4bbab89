import type { ReplayMarkers } from "@tp/core/trading/replay";
import type { Db } from "../dynamo/db";
import { Keys } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";

/**
 * The list of playing replays (`Keys.playingReplay`): one marker per session whose replay is
 * playing, which the session worker's playing loop reads every tick. The replay's state lives on
 * its run; a marker whose run is no longer playing is dropped by the loop.
 */
export class DynamoReplayMarkers implements ReplayMarkers {
  private readonly markers: Repository<{ session_id: string }>;

  constructor(db: Db) {
    this.markers = new Repository<{ session_id: string }>(db, { type: "PlayingReplayMarker", key: (m) => Keys.playingReplay(m.session_id) });
  }

  async mark(sessionId: string): Promise<void> {
    await this.markers.put({ session_id: sessionId });
  }

  async unmark(sessionId: string): Promise<void> {
    await this.markers.delete(Keys.playingReplay(sessionId));
  }

  async list(): Promise<string[]> {
    return (await this.markers.queryAll(Keys.playingReplaysPartition)).map((m) => m.session_id);
  }
}
