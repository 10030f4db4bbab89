import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import type { EngineEvent } from "@tp/core/engine/events";
import { inParallel } from "@tp/core/util/in-parallel";
import type { EngineSetup } from "@tp/core/engine/setup";
import type { StoredEvent, StoredRun } from "@tp/core/trading/run/runs";
import type { Db } from "../dynamo/db";
import { gunzipJson, gzipJson } from "../dynamo/gzip-json";
import { Keys } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";
import { transactIfUnchanged } from "../dynamo/transactions";
import { newer, type OrderItem } from "../stores/run-blocks";
import { applyOrderChanges, expiring, ordersToRead, RUN_SHAPE, runTables, type RunItem, type SetupItem } from "../stores/run-item";
import type { Migration } from "./migration";

/** A run's state item as saves wrote it before the run log (shape 1: no `shape`). */
interface OldRunItem {
  run_id: string;
  session_id: string;
  user_id: string;
  /** Snapshot and progress, and in the oldest items the setup too, gzipped JSON. */
  state: Uint8Array;
  setup?: Uint8Array;
  last_sequence: number;
  version: number;
  updated_at: string;
  progress?: StoredRun["progress"];
  /** A large save's events, committed here until their blocks were written. */
  outbox?: Uint8Array;
  /** The newest events, after the last block. */
  tail?: Uint8Array;
  /** The records of open orders never written as items. */
  open?: Uint8Array;
  expires_at?: number;
}

/** Moves of one run tried before the migration gives up (a writer of the old code moving it meanwhile). */
const MOVE_ATTEMPTS = 5;
/** Runs moved at once. */
const MOVES_AT_ONCE = 16;

/**
 * Runs as the run log keeps them (docs/data-model.md "Runs"): each state item written before it
 * (no `shape`) is moved. Its setup goes to a setup item; the events of its tail, of its outbox and
 * of its item-per-event log go to event blocks (the item-per-event log under version 0, below
 * every save's blocks); the records of its open orders and the orders of its outbox's events go to
 * order items; then the state item is written in shape 2 at the next version, conditionally on the
 * version it was read at (the commit point: a run moved meanwhile is moved again; a process of the
 * older code still holding the run loses its next save and cannot read the new shape), and the old
 * event items deleted.
 */
export const runLog: Migration = {
  id: "2026-11-29-run-log",
  description:
    "Runs as a state item, a setup item, event blocks and order items: the setup, tail, open orders and outbox out of the state item, the item-per-event log into blocks",
  async run(db) {
    let moved = 0;
    const tables = moveTables(db);
    // A page of the scan at a time, its runs moved side by side (a deploy's script has 15 minutes).
    for await (const page of oldRuns(db)) {
      await inParallel(page, MOVES_AT_ONCE, async (runId) => {
        for (let attempt = 1; !(await moveRun(db, tables, runId)); attempt++)
          if (attempt >= MOVE_ATTEMPTS) throw new Error(`Run ${runId} changed on each of ${MOVE_ATTEMPTS} attempts to move it`);
        moved++;
      });
    }
    return moved;
  },
};

/** The ids of the runs whose state items are in shape 1, a page of the table's scan at a time. */
async function* oldRuns(db: Db): AsyncGenerator<string[]> {
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db.client.send(
      new ScanCommand({
        TableName: db.tableName,
        FilterExpression: "#type = :type AND attribute_not_exists(#shape)",
        ExpressionAttributeNames: { "#type": "_type", "#shape": "shape", "#run": "run_id" },
        ExpressionAttributeValues: { ":type": "RunState" },
        ProjectionExpression: "#run",
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    yield (page.Items ?? []).map((item) => String(item.run_id));
    start = page.LastEvaluatedKey;
  } while (start);
}

/** The repositories a move reads and writes: the run log's, the state item as it was, the item-per-event log. */
const moveTables = (db: Db) => ({
  t: runTables(db),
  olds: new Repository<OldRunItem>(db, { type: "RunState", key: (r) => Keys.runState(r.run_id), expiresAt: (r) => r.expires_at }),
  legacy: new Repository<StoredEvent>(db, { type: "RunEvent", key: (e) => Keys.runEvent(e.run_id, e.sequence) }),
});

/** Moves one run (true), or finds it already moved or gone (true), or changed while it was moved (false: again). */
async function moveRun(db: Db, { t, olds, legacy }: ReturnType<typeof moveTables>, runId: string): Promise<boolean> {
  const old = (await olds.get(Keys.runState(runId))) as (OldRunItem & { shape?: number }) | undefined;
  if (!old || old.shape === RUN_SHAPE) return true;
  const state = gunzipJson<Pick<StoredRun, "snapshot" | "progress"> & { setup?: EngineSetup }>(old.state);
  const setup = old.setup ?? gzipJson(state.setup);
  const run = { run_id: runId, session_id: old.session_id } as StoredRun;
  const expiresAt = old.expires_at;

  // The item-per-event log, as blocks of version 0 (a save's block of the same events wins).
  const items = await legacy.queryAll(Keys.runEvents(runId), { consistent: true });
  const engineEvents = ({ run_id: _run, level: _level, category: _category, ...event }: StoredEvent): EngineEvent => event;
  await t.blocks.write(runId, 0, items.map(engineEvents), [], expiresAt);
  // The tail's events, committed at the item's version after its last block.
  const tail = old.tail ? gunzipJson<EngineEvent[]>(old.tail) : [];
  await t.blocks.write(runId, old.version, tail, [], expiresAt);
  // The open orders' records the item carried, as order items.
  const open = old.open ? gunzipJson<OrderItem[]>(old.open) : [];
  // A large save's outbox: its events' blocks (the same keys its save wrote them under) and the order records they change.
  const outbox = old.outbox ? gunzipJson<EngineEvent[]>(old.outbox) : [];
  let outboxOrders: OrderItem[] = [];
  if (outbox.length > 0) {
    const ids = ordersToRead(run, outbox);
    const touched = new Map<string, OrderItem>();
    for (const order of [...open, ...(await t.orders.getMany(ids.map(Keys.runOrder))), ...(await t.blocks.orders(runId, async () => old.last_sequence))]) {
      const seen = touched.get(order.id);
      if (ids.includes(order.id) && (!seen || newer(order, 0, seen, 0))) touched.set(order.id, order);
    }
    outboxOrders = applyOrderChanges(run, outbox, touched);
    await t.blocks.write(runId, old.version, outbox, [], expiresAt);
  }
  const outboxIds = new Set(outboxOrders.map((o) => o.id));
  await t.orders.putMany([...open.filter((o) => !outboxIds.has(o.id)), ...outboxOrders].map((o) => expiring(o, expiresAt)));
  const version = old.version + 1;
  const setupItem: SetupItem = { shape: RUN_SHAPE, run_id: runId, setup, version, ...(expiresAt === undefined ? {} : { expires_at: expiresAt }) };
  await t.setups.put(setupItem);
  const moved: RunItem = {
    shape: RUN_SHAPE,
    run_id: runId,
    session_id: old.session_id,
    user_id: old.user_id,
    state: gzipJson({ snapshot: state.snapshot, progress: state.progress }),
    progress: state.progress ?? null,
    last_sequence: old.last_sequence,
    version,
    setup_version: version,
    updated_at: old.updated_at,
    ...(expiresAt === undefined ? {} : { expires_at: expiresAt }),
  };
  if (!(await transactIfUnchanged(db, [{ put: t.states.toItem(moved), ifVersion: old.version }]))) return false;
  await legacy.deleteMany(items.map((e) => Keys.runEvent(runId, e.sequence)));
  return true;
}
