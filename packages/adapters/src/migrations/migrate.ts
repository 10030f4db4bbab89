import { log } from "@tp/core/log";
import type { Db } from "../dynamo/db";
import { Repository } from "../dynamo/repository";
import { shardLiveLists } from "./live-lists";
import type { Migration } from "./migration";
import { runLog } from "./run-log";

/** A migration applied to the table: when, and how many items it moved. */
interface Applied {
  id: string;
  applied_at: string;
  items: number;
}

/** Every migration, oldest first: a table is brought to the newest shapes by applying those it has not recorded. */
export const MIGRATIONS: readonly Migration[] = [shardLiveLists, runLog];

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
