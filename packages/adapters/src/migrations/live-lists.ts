import type { Db } from "../dynamo/db";
import { Keys } from "../dynamo/keys";
import { batchGetStored } from "../dynamo/batches";
import { Repository } from "../dynamo/repository";
import { transactIfUnchanged } from "../dynamo/transactions";
import type { Migration } from "./migration";

/**
 * The live sessions' markers and the worker's leases were one partition each (`SESSIONS#LIVE`,
 * `WORKER#LEASES`), and a marker held only the session's id: each marker is written again in its
 * shard with the session's version (the worker reads a session again only when it moved), each
 * lease in its shard, and the old items deleted.
 */
export const shardLiveLists: Migration = {
  id: "2026-11-29-shard-live-lists",
  description: "Live session markers (with the session's version) and worker leases spread over LIVE_SHARDS partitions",
  async run(db) {
    let moved = 0;
    const markers = await itemsOf<{ session_id: string }>(db, "SESSIONS#LIVE");
    const sessions = new Map(
      (
        await batchGetStored(
          db,
          markers.map((m) => Keys.tradingSession(m.session_id)),
        )
      ).map((item) => [String(item.id), item]),
    );
    for (const { session_id } of markers) {
      const session = sessions.get(session_id);
      const key = Keys.liveSession(session_id);
      const put = { pk: key.pk, sk: key.sk, _type: "LiveSessionMarker", session_id, version: session?.version };
      // Each marker moved in one transaction with its old item's delete; one whose session is gone is only deleted.
      await transactIfUnchanged(db, [...(session ? [{ put }] : []), { delete: { pk: "SESSIONS#LIVE", sk: session_id } }]);
      moved++;
    }
    for (const lease of await itemsOf<{ session_id: string }>(db, "WORKER#LEASES")) {
      const key = Keys.workerLease(lease.session_id);
      await transactIfUnchanged(db, [
        { put: { ...lease, pk: key.pk, sk: key.sk, _type: "WorkerLease" } },
        { delete: { pk: "WORKER#LEASES", sk: lease.session_id } },
      ]);
      moved++;
    }
    return moved;
  },
};

/** Every item of one partition in an older shape, without its key attributes. */
function itemsOf<T extends object>(db: Db, pk: string): Promise<T[]> {
  return new Repository<T>(db, { type: "Old", key: () => ({ pk, sk: "" }) }).queryAll(pk, { consistent: true });
}
