import type { EngineEvent } from "@tp/core/engine/events";
import type { EngineSetup } from "@tp/core/engine/setup";
import { orderTouched, type RunProgress, type StoredEvent, type StoredRun, type TradingOrderResponse } from "@tp/core/trading/runs";
import type { Db } from "../dynamo/db";
import { gunzipJson, gzipJson } from "../dynamo/gzip-json";
import { Keys } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";
import type { TransactionStep } from "../dynamo/transactions";
import { RunBlocks, type OrderItem } from "./run-blocks";

/**
 * A run's items on the single table (docs/data-model.md "Runs"): the state item's shape and what
 * it carries, the repositories of the state, event and order items and the blocks (`runTables`),
 * and the codecs the run store's saves and reads share.
 */

/** The repositories of a run's items: its state item, its events' and orders' items, and its blocks. */
export interface RunTables {
  states: Repository<RunItem>;
  events: Repository<StoredEvent>;
  orders: Repository<OrderItem>;
  blocks: RunBlocks;
}

export function runTables(db: Db): RunTables {
  return {
    blocks: new RunBlocks(db),
    states: new Repository<RunItem>(db, { type: "RunState", key: (r) => Keys.runState(r.run_id), expiresAt: (r) => r.expires_at }),
    events: new Repository<StoredEvent>(db, {
      type: "RunEvent",
      key: (e) => Keys.runEvent(e.run_id, e.sequence),
      indexes: {
        gsi1: (e) => Keys.runEventByLevel(e.run_id, e.level, e.sequence),
        gsi2: (e) => Keys.runEventByCategory(e.run_id, e.category, e.sequence),
      },
    }),
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

/** A run's state item: its snapshot and progress gzipped into one binary attribute, its setup into another. */
export interface RunItem {
  run_id: string;
  session_id: string;
  user_id: string;
  /** Snapshot and progress (and in items written before `setup`, the setup too), gzipped JSON. */
  state: Uint8Array;
  /** The engine's setup, gzipped JSON: it changes only with the configuration, so it is gzipped once per setup (`setupBytes`), not at every save. */
  setup?: Uint8Array;
  last_sequence: number;
  version: number;
  updated_at: string;
  /** The events of a save too large for one transaction, until their own items are written (gzipped JSON). */
  outbox?: Uint8Array;
  /** The state's progress again, in the clear: what progress views read without the state (absent in items written before it). */
  progress?: RunProgress | null;
  /**
   * The run's newest events, committed after its last events' block, gzipped JSON (absent when
   * none): the small saves' events ride here until they fill a block (`TAIL_EVENTS`, `TAIL_BYTES`).
   */
  tail?: Uint8Array;
  /**
   * The records of the run's open orders placed by its small saves that were never written as
   * items (gzipped JSON, absent when none): an order's record is written as an item when it is
   * over or when the open ones would pass `OPEN_ORDERS` or `OPEN_BYTES`, and changes there after.
   */
  open?: Uint8Array;
  /** When (epoch seconds) the run's items expire (`StoredRun.expires_at`, a sweep's run); absent, kept. */
  expires_at?: number;
}

/** The events a run's item carries at most in its tail: a save that would pass it writes them as a block instead. */
export const TAIL_EVENTS = 50;
/**
 * The most the tail's gzipped JSON may take: DynamoDB Local's cost of an item hardly grows with it
 * up to a few KB, DynamoDB's write units do (a unit a KB), so a tail stays near the size of the
 * block item it saves (docs/data-model.md "Runs").
 */
export const TAIL_BYTES = 2_048;

/** The open orders' records a run's item carries at most, and their gzipped JSON's bytes: beyond them, they are written as items. */
export const OPEN_ORDERS = 20;
export const OPEN_BYTES = 2_048;

/**
 * What a run's item carries besides its state, as a process last read or wrote it at `version`:
 * the tail's events and the open orders' records, gzipped (`body`) and parsed when needed.
 */
export interface Carried {
  version: number;
  body: { tail?: Uint8Array; open?: Uint8Array };
  tail?: EngineEvent[];
  open?: Map<string, OrderItem>;
}

/** A save prepared: the steps of its one transaction, with the order items and what the run's item carries that they write; or the writes of a large save. */
export type PreparedSave = { steps: TransactionStep[]; orders: OrderItem[]; carried: Omit<Carried, "version"> } | { large: () => Promise<boolean> };

/** The events of a run's item's `tail`, and the order records of its `open` (none when absent). */
export const carriedEvents = (body: Uint8Array | undefined): EngineEvent[] => (body ? gunzipJson<EngineEvent[]>(body) : []);
export const carriedOrders = (body: Uint8Array | undefined): OrderItem[] => (body ? gunzipJson<OrderItem[]>(body) : []);

export const isOpen = (order: OrderItem) => order.status === "pending" || order.status === "partially_filled";

/** The run an order's id names (`<session id>-<n>`, engine.ts; a denied one's `<run id>-d<sequence>`): a live run's id is its session's. */
export const runOfOrder = (orderId: string) => orderId.slice(0, Math.max(0, orderId.lastIndexOf("-")));

/** Runs whose order records (and what their items carry) a process keeps as it wrote them, at most (then it forgets them all and reads again). */
export const WRITTEN_ORDER_RUNS = 10_000;

/** The most a run's item may carry of state and outbox (DynamoDB's item limit is 400 KB, attribute names and the rest included). */
export const OUTBOX_BYTES = 350_000;

/**
 * The gzipped setups of the runs this process saved or read, by setup object: a run's setup is
 * replaced, never changed in place (`setupAfter`, `updateRun`), so a run saved every bar gzips its
 * setup (most of its state's JSON) once.
 */
const gzippedSetups = new WeakMap<EngineSetup, Uint8Array>();

export const setupBytes = (setup: EngineSetup): Uint8Array => {
  let bytes = gzippedSetups.get(setup);
  if (!bytes) gzippedSetups.set(setup, (bytes = gzipJson(setup)));
  return bytes;
};

export const runOf = (item: RunItem): StoredRun => {
  const state = gunzipJson<Pick<StoredRun, "snapshot" | "progress"> & { setup?: EngineSetup }>(item.state);
  const { snapshot, progress } = state;
  let setup = state.setup;
  if (item.setup) gzippedSetups.set((setup = gunzipJson<EngineSetup>(item.setup)), item.setup);
  return {
    run_id: item.run_id,
    session_id: item.session_id,
    user_id: item.user_id,
    setup: setup!,
    snapshot,
    progress: progress ?? null,
    version: item.version,
    updated_at: item.updated_at,
    ...(item.expires_at === undefined ? {} : { expires_at: item.expires_at }),
  };
};

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

export const withoutSequence = ({ sequence: _sequence, changed: _changed, expires_at: _expiresAt, ...order }: OrderItem): TradingOrderResponse => order;

/** An order record to write for a run that expires: with the run's expiry. */
export const expiring = (order: OrderItem, expiresAt: number | undefined): OrderItem => (expiresAt === undefined ? order : { ...order, expires_at: expiresAt });
