import type { EngineEvent } from "@tp/core/engine/events";
import type { EngineSetup } from "@tp/core/engine/setup";
import { orderChangeOf, orderTouched, type RunProgress, type StoredRun, type TradingOrderResponse } from "@tp/core/trading/run/runs";
import type { Db } from "../dynamo/db";
import { gunzipJson, gzipJson } from "../dynamo/gzip-json";
import { Keys } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";
import { RunBlocks, type OrderItem } from "./run-blocks";

/**
 * A run's items on the single table (docs/data-model.md "Runs"): its state item (the commit
 * point), its setup item, its blocks of events (and of a large save's order records) and an item
 * per order; the repositories of each (`runTables`) and the codecs the run store's saves and reads
 * share.
 */

/** The shape of the run's state and setup items this code writes and reads (older ones are moved by the `run-log` migration). */
export const RUN_SHAPE = 2;

/** The repositories of a run's items: its state item, its setup item, its orders' items and its blocks. */
export interface RunTables {
  states: Repository<RunItem>;
  setups: Repository<SetupItem>;
  orders: Repository<OrderItem>;
  blocks: RunBlocks;
}

export function runTables(db: Db): RunTables {
  return {
    blocks: new RunBlocks(db),
    states: new Repository<RunItem>(db, { type: "RunState", key: (r) => Keys.runState(r.run_id), expiresAt: (r) => r.expires_at }),
    setups: new Repository<SetupItem>(db, { type: "RunSetup", key: (s) => Keys.runSetup(s.run_id), expiresAt: (s) => s.expires_at }),
    orders: new Repository<OrderItem>(db, {
      type: "RunOrder",
      key: (o) => Keys.runOrder(o.id),
      expiresAt: (o) => o.expires_at,
      indexes: {
        gsi1: (o) => Keys.runOrderBySequence(o.run_id, o.sequence),
        gsi2: (o) => Keys.runOrderByStatus(o.run_id, o.status, o.sequence),
      },
    }),
  };
}

/**
 * A run's state item, the commit point of its saves: its snapshot and progress gzipped into one
 * binary attribute, its progress again in the clear, the last sequence it committed and its
 * version. Nothing else rides in it: a save with no events and no order changes writes it alone.
 */
export interface RunItem {
  shape: typeof RUN_SHAPE;
  run_id: string;
  session_id: string;
  user_id: string;
  /** Snapshot and progress, gzipped JSON. */
  state: Uint8Array;
  /** The state's progress in the clear: what progress views read without the state. */
  progress: RunProgress | null;
  last_sequence: number;
  version: number;
  /** The run version whose save wrote the setup item this state goes with. */
  setup_version: number;
  updated_at: string;
  /** When (epoch seconds) the run's items expire (`StoredRun.expires_at`, a sweep's run); absent, kept. */
  expires_at?: number;
}

/** A run's engine setup, gzipped JSON, in an item of its own: it changes only with the configuration, so it is written only then. */
export interface SetupItem {
  shape: typeof RUN_SHAPE;
  run_id: string;
  setup: Uint8Array;
  /** The run version whose save wrote it (the state's `setup_version`). */
  version: number;
  expires_at?: number;
}

export const isOpen = (order: OrderItem) => order.status === "pending" || order.status === "partially_filled";

/** Runs whose setups and open order records a process keeps as it read or wrote them, at most (then it forgets them all and reads again). */
export const KNOWN_RUNS = 10_000;

/**
 * The gzipped setups of the runs this process saved or read, by setup object: a run's setup is
 * replaced, never changed in place (`setupAfter`, `updateRun`), so a setup is gzipped once.
 */
const gzippedSetups = new WeakMap<EngineSetup, Uint8Array>();

export const setupBytes = (setup: EngineSetup): Uint8Array => {
  let bytes = gzippedSetups.get(setup);
  if (!bytes) gzippedSetups.set(setup, (bytes = gzipJson(setup)));
  return bytes;
};

/** The run of a state item and its setup item. */
export const runOf = (item: RunItem, setupItem: SetupItem): StoredRun => {
  const { snapshot, progress } = gunzipJson<Pick<StoredRun, "snapshot" | "progress">>(item.state);
  const setup = gunzipJson<EngineSetup>(setupItem.setup);
  gzippedSetups.set(setup, setupItem.setup);
  return {
    run_id: item.run_id,
    session_id: item.session_id,
    user_id: item.user_id,
    setup,
    snapshot,
    progress: progress ?? null,
    version: item.version,
    updated_at: item.updated_at,
    ...(item.expires_at === undefined ? {} : { expires_at: item.expires_at }),
  };
};

/** The state item of `run` as a save writes it, going with the setup item of run version `setupVersion`. */
export const stateItemOf = (run: StoredRun, setupVersion: number): RunItem => ({
  shape: RUN_SHAPE,
  run_id: run.run_id,
  session_id: run.session_id,
  user_id: run.user_id,
  state: gzipJson({ snapshot: run.snapshot, progress: run.progress }),
  progress: run.progress,
  last_sequence: run.snapshot?.sequence ?? 0,
  version: run.version,
  setup_version: setupVersion,
  updated_at: run.updated_at,
  ...(run.expires_at === undefined ? {} : { expires_at: run.expires_at }),
});

/** The setup item of `run` as its save at `run.version` writes it. */
export const setupItemOf = (run: StoredRun): SetupItem => ({
  shape: RUN_SHAPE,
  run_id: run.run_id,
  setup: setupBytes(run.setup),
  version: run.version,
  ...(run.expires_at === undefined ? {} : { expires_at: run.expires_at }),
});

/** The orders a save's events change that they did not create: their records are read to be changed. */
export function ordersToRead(run: StoredRun, events: EngineEvent[]): string[] {
  const created = new Set<string>();
  const changed = new Set<string>();
  for (const event of events) {
    const touched = orderTouched(event, run.run_id);
    if (touched) (touched.creates ? created : changed).add(touched.order_id);
  }
  return [...changed].filter((id) => !created.has(id));
}

/**
 * The order records `events` create and change, as they will be: `touched` (the records of the
 * orders they change, as stored) with the events applied, in the order they came.
 */
export function applyOrderChanges(run: StoredRun, events: EngineEvent[], touched: Map<string, OrderItem>): OrderItem[] {
  for (const event of events) {
    const change = orderChangeOf(event, run);
    if (!change) continue;
    const { sequence } = event;
    // Object.assign, not spreads: a spread and the properties after it cost microseconds an order here (see `storedEvent`).
    if (change.kind === "create") touched.set(change.order.id, Object.assign(change.order, { sequence, changed: sequence }));
    else {
      const order = touched.get(change.order_id);
      if (order) touched.set(order.id, Object.assign({}, order, change.fields, { changed: sequence }));
    }
  }
  return [...touched.values()];
}

/** The run an order's id names (`<session id>-<n>`, engine.ts; a denied one's `<run id>-d<sequence>`): a live run's id is its session's. */
export const runOfOrder = (orderId: string) => orderId.slice(0, Math.max(0, orderId.lastIndexOf("-")));

export const withoutSequence = ({ sequence: _sequence, changed: _changed, expires_at: _expiresAt, ...order }: OrderItem): TradingOrderResponse => order;

/** An order record to write for a run that expires: with the run's expiry. */
export const expiring = (order: OrderItem, expiresAt: number | undefined): OrderItem => (expiresAt === undefined ? order : { ...order, expires_at: expiresAt });
