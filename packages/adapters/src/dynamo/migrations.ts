import { log } from "@tp/core/log";
import type { Db } from "./db";
import { Keys } from "./keys";
import { batchGetStored } from "./batches";
import { Repository } from "./repository";
import { transactIfUnchanged } from "./transactions";

/**
 * A change of stored shapes: items written in an older shape are moved to the new one, once per
 * table, so the code reads one shape (docs/data-model.md "Migrations"). `run` is idempotent (a
 * second run, or two at once, finds nothing left to move) and answers how many items it moved.
 */
export interface Migration {
  id: string;
  description: string;
  run(db: Db): Promise<number>;
}

/** A migration applied to the table: when, and how many items it moved. */
interface Applied {
  id: string;
  applied_at: string;
  items: number;
}

/**
 * The live sessions' markers and the worker's leases were one partition each (`SESSIONS#LIVE`,
 * `WORKER#LEASES`), and a marker held only the session's id: each marker is written again in its
 * shard with the session's version (the worker reads a session again only when it moved), each
 * lease in its shard, and the old items deleted.
 */
const shardLiveLists: Migration = {
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

/** Every migration, oldest first: a table is brought to the newest shapes by applying those it has not recorded. */
export const MIGRATIONS: readonly Migration[] = [shardLiveLists];

/**
 * Applies the migrations the table has not recorded (`pk=MIGRATIONS`, `sk=<id>`), in order, each
 * recorded once done. Run by the embedded runtime at start, by the deploy (stacks/Storage.ts's
 * `Migrations` script) before the new functions and worker take traffic, and by `npm run migrate`.
 */
export async function migrate(db: Db, migrations: readonly Migration[] = MIGRATIONS): Promise<Applied[]> {
  const records = new Repository<Applied>(db, { type: "Migration", key: (applied) => ({ pk: "MIGRATIONS", sk: applied.id }) });
  const done = new Set((await records.queryAll("MIGRATIONS", { consistent: true })).map((applied) => applied.id));
  const applied: Applied[] = [];
  for (const migration of migrations) {
    if (done.has(migration.id)) continue;
    const items = await migration.run(db);
    const record = { id: migration.id, applied_at: new Date().toISOString(), items };
    await records.put(record);
    applied.push(record);
    log.info("Migration applied", { source: "migrations", migration: migration.id, description: migration.description, items });
  }
  return applied;
}

/** Every item of one partition in an older shape, without its key attributes. */
function itemsOf<T extends object>(db: Db, pk: string): Promise<T[]> {
  return new Repository<T>(db, { type: "Old", key: () => ({ pk, sk: "" }) }).queryAll(pk, { consistent: true });
}
