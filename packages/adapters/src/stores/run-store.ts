import type { EngineEvent } from "@tp/core/engine/events";
import type { EngineSetup } from "@tp/core/engine/setup";
import type { EventQuery, OrderStatus, RunProgress, RunSave, RunStore, SaveOptions, StoredRun } from "@tp/core/trading/run/runs";
import { TRANSACTION_BYTES, TRANSACTION_ITEMS } from "../dynamo/batches";
import type { Db } from "../dynamo/db";
import { Keys } from "../dynamo/keys";
import type { Repository } from "../dynamo/repository";
import { stepsBytes, transactGroups, transactIfUnchanged, type TransactionStep } from "../dynamo/transactions";
import { newer, type OrderItem, type RunBlocks } from "./run-blocks";
import {
  applyOrderChanges,
  expiring,
  isOpen,
  KNOWN_RUNS,
  ordersToRead,
  runOf,
  runTables,
  setupItemOf,
  stateItemOf,
  type RunItem,
  type RunTables,
  type SetupItem,
} from "./run-item";
import { runEvents, runOrder, runOrders } from "./run-reads";

/** Reads of a run's state and setup items that may find them of two different saves before one is given up (`get`). */
const READ_ATTEMPTS = 5;

/**
 * What this process knows of a run as it last read or saved it at `version`: the setup object the
 * table holds (written by the save of run version `setupVersion`), and the records of the open
 * orders it wrote. A save conditional on that version writes neither the setup again nor reads
 * those records (the table holds them as known, or the save fails).
 */
interface Known {
  version: number;
  setup: EngineSetup;
  setupVersion: number;
  orders: Map<string, OrderItem>;
}

/**
 * A save prepared: the steps of its one transaction (a lone state item: a plain conditional put),
 * their size (`stepsBytes`, sized once) and the order records it writes as items; or a run's one
 * writer's writes, its blocks first.
 */
type PreparedSave =
  | { steps: TransactionStep[]; bytes: number; orders: OrderItem[]; setupVersion: number }
  | { blocksFirst: () => Promise<boolean>; setupVersion: number };

/**
 * Runs on the single table (docs/data-model.md "Runs"): a run is its state item
 * (`Keys.runState`), the commit point of every save, written conditionally on the run's version;
 * its setup item (`Keys.runSetup`), written with the save that changes the setup; its log of event
 * blocks, a save's events in one block item (`RunBlocks`); and an item per order
 * (`Keys.runOrder`, listed per run on gsi1 and per run and status on gsi2), written with each save
 * that creates or changes it. A save is one transaction of those items, or one plain conditional
 * put when it is the state item alone (a quiet bar). Only a run's one writer (a backtest's chunk)
 * saves more than a transaction holds: its blocks first, then its state, which commits them.
 */
export class DynamoRunStore implements RunStore {
  private readonly tables: RunTables;
  private readonly states: Repository<RunItem>;
  private readonly setups: Repository<SetupItem>;
  private readonly orders_: Repository<OrderItem>;
  private readonly blocks: RunBlocks;
  private readonly known = new Map<string, Known>();

  constructor(private readonly db: Db) {
    this.tables = runTables(db);
    ({ states: this.states, setups: this.setups, orders: this.orders_, blocks: this.blocks } = this.tables);
  }

  /**
   * The run: its state item and the setup item it goes with, read side by side (a save that
   * changes the setup between the two reads shows as two versions apart: read again).
   */
  async get(runId: string): Promise<StoredRun | undefined> {
    for (let attempt = 1; ; attempt++) {
      const [item, setup] = await Promise.all([this.states.get(Keys.runState(runId)), this.setups.get(Keys.runSetup(runId))]);
      if (!item) return undefined;
      if (setup?.version === item.setup_version) {
        const run = runOf(item, setup);
        this.keep(runId, { version: item.version, setup: run.setup, setupVersion: setup.version, orders: new Map() });
        return run;
      }
      if (attempt >= READ_ATTEMPTS) throw new Error(`Run ${runId}: its state goes with the setup of version ${item.setup_version}, which is not stored`);
    }
  }

  async progress(runId: string): Promise<RunProgress | null | undefined> {
    const item = await this.states.get(Keys.runState(runId), { projection: ["progress"] });
    return item ? (item.progress ?? null) : undefined;
  }

  /**
   * Saves the run with its events and the order changes they imply, all or nothing, conditionally
   * on the run's version: a writer that lost the race has written nothing (docs/session-worker.md
   * "One order of events").
   */
  async save(run: StoredRun, expectedVersion: number, events: EngineEvent[], options: SaveOptions = {}): Promise<boolean> {
    const save = { run, expectedVersion, events };
    const { read, toRead } = await this.ordersOf([save]);
    const prepared = await this.prepare(save, toRead[0]!, read, options);
    const done = "steps" in prepared ? await transactIfUnchanged(this.db, prepared.steps) : await prepared.blocksFirst();
    this.remember(save, done, prepared);
    return done;
  }

  /**
   * `save` of many runs (a step of the session worker): the saves are packed together into as few
   * transactions as hold them (`transactGroups`; a lone state item is a plain conditional put),
   * each still all or nothing and conditional on its own run's version; a run that lost its race is
   * told so (false) from the cancellation's reasons while the others of its transaction are written.
   */
  async saveMany(saves: readonly RunSave[]): Promise<PromiseSettledResult<boolean>[]> {
    const { read, toRead } = await this.ordersOf(saves);
    const prepared = await Promise.all(saves.map((save, index) => this.prepare(save, toRead[index]!, read)));
    const grouped = prepared.flatMap((save, index) => ("steps" in save ? [{ index, steps: save.steps, bytes: save.bytes }] : []));
    const outcomes: PromiseSettledResult<boolean>[] = new Array(saves.length);
    const [written] = await Promise.all([
      transactGroups(
        this.db,
        grouped.map((save) => save.steps),
        grouped.map((save) => save.bytes),
      ),
      ...prepared.map(async (save, index) => {
        if (!("steps" in save)) [outcomes[index]] = await Promise.allSettled([save.blocksFirst()]);
      }),
    ]);
    for (const [at, { index }] of grouped.entries()) outcomes[index] = written[at]!;
    prepared.forEach((save, index) => {
      const outcome = outcomes[index]!;
      this.remember(saves[index]!, outcome.status === "fulfilled" && outcome.value, save);
    });
    return outcomes;
  }

  /**
   * The ids of the orders each of `saves` changes and did not create (`toRead`, a list per save),
   * and their items: those this process wrote last for a run at the version a save is conditional
   * on, the others read together.
   */
  private async ordersOf(saves: readonly RunSave[]): Promise<{ read: Map<string, OrderItem>; toRead: string[][] }> {
    const read = new Map<string, OrderItem>();
    const missing: string[] = [];
    const toRead = saves.map(({ run, events }) => ordersToRead(run, events));
    for (const [index, { run, expectedVersion }] of saves.entries()) {
      const known = this.known.get(run.run_id);
      for (const id of toRead[index]!) {
        const order = known?.version === expectedVersion ? known.orders.get(id) : undefined;
        if (order) read.set(id, order);
        else missing.push(id);
      }
    }
    if (missing.length > 0) for (const order of await this.orders_.getMany(missing.map(Keys.runOrder))) read.set(order.id, order);
    return { read, toRead };
  }

  private keep(runId: string, known: Known): void {
    if (this.known.size >= KNOWN_RUNS) this.known.clear();
    this.known.set(runId, known);
  }

  /** After a save: the run's setup and the order items it wrote that are not over, known at the run's new version (after a lost save, nothing). */
  private remember({ run, expectedVersion }: RunSave, done: boolean, prepared: PreparedSave): void {
    if (!done) {
      this.known.delete(run.run_id);
      return;
    }
    const before = this.known.get(run.run_id);
    const orders = before?.version === expectedVersion ? before.orders : new Map<string, OrderItem>();
    for (const order of "steps" in prepared ? prepared.orders : []) {
      if (isOpen(order)) orders.set(order.id, order);
      else orders.delete(order.id);
    }
    this.keep(run.run_id, { version: run.version, setup: run.setup, setupVersion: prepared.setupVersion, orders: "steps" in prepared ? orders : new Map() });
  }

  /**
   * A save as the steps of one transaction: the state item (conditional on the version), the setup
   * item when the setup is not the one the table holds, the events' block and the order records
   * the events create or change as items (as order blocks when the items would pass a
   * transaction). A run's one writer (a backtest's chunk) writes its blocks first, events and order
   * records, then its state item: no transaction doubles their write units, and no save of its is
   * too large.
   */
  private async prepare(
    { run, expectedVersion, events }: RunSave,
    toRead: readonly string[],
    read: Map<string, OrderItem>,
    options: SaveOptions = {},
  ): Promise<PreparedSave> {
    const known = this.known.get(run.run_id);
    const setupKnown = expectedVersion !== 0 && known?.version === expectedVersion && known.setup === run.setup;
    const setupVersion = setupKnown ? known.setupVersion : run.version;
    const state = this.states.toItem(stateItemOf(run, setupVersion));
    const commit: TransactionStep[] = [
      expectedVersion === 0 ? { put: state, ifAbsent: true } : { put: state, ifVersion: expectedVersion },
      ...(setupKnown ? [] : [{ put: this.setups.toItem(setupItemOf(run)) }]),
    ];
    const orders = (await this.orderChanges(run, events, toRead, read)).map((o) => expiring(o, run.expires_at));
    if (options.soleWriter) {
      // Its blocks written first, then the run, conditionally: a retried chunk writes the same blocks
      // again, and readers take no event past the run's last committed sequence (a save that never
      // commits shows nothing). Only a run's one writer may: two writers' blocks would share keys.
      return {
        setupVersion,
        blocksFirst: async () => {
          await this.blocks.write(run.run_id, run.version, events, orders, run.expires_at);
          return transactIfUnchanged(this.db, commit);
        },
      };
    }
    // Each step sized once, here: to know the save fits one transaction, and to pack saves together (`transactGroups`).
    const withEvents = [...commit, ...this.blocks.eventItems(run.run_id, run.version, events, run.expires_at).map((put) => ({ put }))];
    const eventBytes = stepsBytes(withEvents);
    const orderItems = orders.map((o) => ({ put: this.orders_.toItem(o) }));
    const asItems = { steps: [...withEvents, ...orderItems], bytes: eventBytes + stepsBytes(orderItems) };
    if (fits(asItems)) return { ...asItems, orders, setupVersion };
    // The events' blocks as they are (gzipped and sized once), the order records' blocks added.
    const orderBlocks = this.blocks.orderItems(run.run_id, run.version, events, orders, run.expires_at).map((put) => ({ put }));
    const asBlocks = { steps: [...withEvents, ...orderBlocks], bytes: eventBytes + stepsBytes(orderBlocks) };
    if (fits(asBlocks)) return { ...asBlocks, orders: [], setupVersion };
    throw new Error(`Run ${run.run_id}: a save of ${events.length} events is larger than one transaction, which only a run's one writer may save`);
  }

  /**
   * The order records the events create and change, as they will be (read and changed here,
   * written by the caller): those the events change (`toRead`) from `read`, else from the run's blocks.
   */
  private async orderChanges(run: StoredRun, events: EngineEvent[], toRead: readonly string[], read: Map<string, OrderItem>): Promise<OrderItem[]> {
    const touched = new Map<string, OrderItem>();
    for (const id of toRead) {
      const order = read.get(id);
      if (order) touched.set(id, order);
    }
    // Orders of an earlier save with more than a transaction held as items live in its blocks (a later record of one wins over them).
    if (toRead.some((id) => !touched.has(id))) {
      for (const order of await this.blocks.orders(run.run_id, async () => events[0]!.sequence - 1)) {
        const item = touched.get(order.id);
        if (toRead.includes(order.id) && (!item || newer(order, 0, item, 0))) touched.set(order.id, order);
      }
    }
    return applyOrderChanges(run, events, touched);
  }

  /** One page of the run's events (run-reads.ts). */
  events(runId: string, query: EventQuery) {
    return runEvents(this.tables, runId, query);
  }

  /** One page of the run's orders (run-reads.ts). */
  orders(runId: string, query: { limit: number; cursor?: string; status?: OrderStatus }) {
    return runOrders(this.tables, runId, query);
  }

  /** One order by id (run-reads.ts). */
  order(orderId: string) {
    return runOrder(this.tables, orderId);
  }

  /**
   * Keeps a run written to expire (a sweep's best runs, docs/operations.md "Sweeps"): its items
   * written again without their expiry. Nothing else writes a finished backtest's run, so the
   * writes need no condition.
   */
  async keepForever(runId: string): Promise<void> {
    const item = await this.states.get(Keys.runState(runId));
    if (!item || item.expires_at === undefined) return;
    await this.blocks.keepForever(runId);
    const orders = (await this.orders_.queryAll(Keys.runOrders(runId), { index: "gsi1" })).filter((o) => o.expires_at !== undefined);
    await this.orders_.putMany(orders.map(({ expires_at: _expiresAt, ...order }) => order));
    const setup = await this.setups.get(Keys.runSetup(runId));
    if (setup) {
      const { expires_at: _setupExpiry, ...kept } = setup;
      await this.setups.put(kept);
    }
    // The run's item last: a Finalize retried after a crash finds it still expiring and keeps the rest again.
    const { expires_at: _expiresAt, ...kept } = item;
    await this.states.put(kept);
    this.known.delete(runId);
  }

  async delete(runId: string): Promise<void> {
    this.known.delete(runId);
    const orders = await this.orders_.queryAll(Keys.runOrders(runId), { index: "gsi1", projection: ["id"] });
    await this.orders_.deleteMany(orders.map((o) => Keys.runOrder(o.id)));
    await this.blocks.delete(runId);
    await this.setups.deleteMany([Keys.runSetup(runId)]);
    await this.states.delete(Keys.runState(runId));
  }
}

/** Whether a transaction's steps, of `bytes` (`stepsBytes`), fit in one TransactWriteItems. */
const fits = ({ steps, bytes }: { steps: TransactionStep[]; bytes: number }) => steps.length <= TRANSACTION_ITEMS && bytes <= TRANSACTION_BYTES;
