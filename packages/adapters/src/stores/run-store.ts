import type { EngineEvent } from "@tp/core/engine/events";
import {
  orderChangeOf,
  type EventQuery,
  type OrderStatus,
  type RunProgress,
  type RunSave,
  type RunStore,
  type SaveOptions,
  type StoredEvent,
  type StoredRun,
} from "@tp/core/trading/runs";
import type { Db } from "../dynamo/db";
import { gunzipJson, gzipJson } from "../dynamo/gzip-json";
import { Keys } from "../dynamo/keys";
import { TRANSACTION_ITEMS } from "../dynamo/batches";
import type { Repository } from "../dynamo/repository";
import { transactGroups, transactIfUnchanged, type TransactionStep } from "../dynamo/transactions";
import { newer, type OrderItem, type RunBlocks } from "./run-blocks";
import {
  carriedEvents,
  carriedOrders,
  expiring,
  isOpen,
  OPEN_BYTES,
  OPEN_ORDERS,
  ordersToRead,
  OUTBOX_BYTES,
  runOf,
  runOfOrder,
  runTables,
  setupBytes,
  TAIL_BYTES,
  TAIL_EVENTS,
  WRITTEN_ORDER_RUNS,
  type Carried,
  type PreparedSave,
  type RunItem,
  type RunTables,
} from "./run-item";
import { runEvents, runOrder, runOrders } from "./run-reads";

/**
 * Runs on the single table: the state item (`Keys.runState`) with the run's newest events in its
 * tail and the records of its open orders that were never written as items, one item per other
 * order (`Keys.runOrder`, listed per run on gsi1 and per run and status on gsi2), and blocks
 * (`RunBlocks`): a tail that fills, with the events of the save that fills it, and the events and
 * order records of a save too large for one transaction (a backtest's chunk).
 * Runs saved before tails have an item per event (`Keys.runEvent`, indexed by level on gsi1 and by
 * category on gsi2). The readers page over all three by sequence, with cursors of one shape (the
 * item-per-event query's), so a run written any way reads the same.
 */
export class DynamoRunStore implements RunStore {
  private readonly tables: RunTables;
  private readonly states: Repository<RunItem>;
  private readonly events_: Repository<StoredEvent>;
  private readonly orders_: Repository<OrderItem>;
  private readonly blocks: RunBlocks;
  /**
   * The order records this process wrote last for each run, while they are not over, with the run
   * version its save committed: a save conditional on that version changes them without reading
   * them (the worker's fills of the orders it placed the bar before).
   */
  private readonly writtenOrders = new Map<string, { version: number; orders: Map<string, OrderItem> }>();
  /**
   * What each run's item carries (its newest events, its open orders' records) as this process
   * last read or wrote it, with that item's version: a save conditional on the version carries them
   * on without reading them.
   */
  private readonly carried = new Map<string, Carried>();

  constructor(private readonly db: Db) {
    this.tables = runTables(db);
    ({ states: this.states, events: this.events_, orders: this.orders_, blocks: this.blocks } = this.tables);
  }

  async get(runId: string): Promise<StoredRun | undefined> {
    const item = await this.states.get(Keys.runState(runId));
    if (!item) return undefined;
    const run = runOf(item);
    this.keep(runId, { version: item.version, body: { tail: item.tail, open: item.open } });
    // A save too large for one transaction committed its events here first; a crash may have kept them from their own items.
    if (item.outbox) await this.writeEvents(run, gunzipJson<EngineEvent[]>(item.outbox));
    return run;
  }

  async progress(runId: string): Promise<RunProgress | null | undefined> {
    const item = await this.states.get(Keys.runState(runId), { projection: ["progress"] });
    if (!item) return undefined;
    return item.progress !== undefined ? item.progress : ((await this.get(runId))?.progress ?? null);
  }

  /**
   * Saves the run with its events and the order changes they imply, all or nothing, conditionally
   * on the run's version: a writer that lost the race has written nothing (docs/session-worker.md
   * "One order of events"). One transaction when they fit in one (`TRANSACTION_ITEMS`); a larger
   * save commits the run with its events inside it (`outbox`), then writes them as blocks, then
   * clears the outbox; a crash in between leaves them to the next `get`, which writes them first
   * (the same blocks: their keys are the save's sequences and version).
   */
  async save(run: StoredRun, expectedVersion: number, events: EngineEvent[], options: SaveOptions = {}): Promise<boolean> {
    const save = { run, expectedVersion, events };
    const carried = await this.carriedOf([save]);
    const prepared = await this.prepare(save, await this.ordersOf([save], carried), carried, options);
    const done = "steps" in prepared ? await transactIfUnchanged(this.db, prepared.steps) : await prepared.large();
    this.remember(save, done, prepared);
    return done;
  }

  /**
   * `save` of many runs (a step of the session worker): the saves that fit in one transaction each
   * are packed together into as few as hold them (`transactGroups`), each still all or nothing and
   * conditional on its own run's version; a run that lost its race is told so (false) from the
   * cancellation's reasons while the others of its transaction are written. A larger save goes
   * alone, as `save` writes it.
   */
  async saveMany(saves: readonly RunSave[]): Promise<PromiseSettledResult<boolean>[]> {
    // What the runs' items carry, then the order records the saves change, each read together (but what this process wrote last).
    const carried = await this.carriedOf(saves);
    const read = await this.ordersOf(saves, carried);
    const prepared = await Promise.all(saves.map((save) => this.prepare(save, read, carried)));
    const grouped = prepared.flatMap((save, index) => ("steps" in save ? [{ index, steps: save.steps }] : []));
    const outcomes: PromiseSettledResult<boolean>[] = new Array(saves.length);
    const [written] = await Promise.all([
      transactGroups(
        this.db,
        grouped.map((save) => save.steps),
      ),
      ...prepared.map(async (save, index) => {
        if (!("steps" in save)) [outcomes[index]] = await Promise.allSettled([save.large()]);
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
   * The order items that `saves` change and did not create: those this process wrote last for a
   * run at the version a save is conditional on (the table holds them as written, or the save
   * fails), the others read together; not those the runs' items carry (`carried`).
   */
  private async ordersOf(saves: readonly RunSave[], carried: Map<string, Carried>): Promise<Map<string, OrderItem>> {
    const read = new Map<string, OrderItem>();
    const missing: string[] = [];
    for (const { run, expectedVersion, events } of saves) {
      const known = this.writtenOrders.get(run.run_id);
      const open = carried.get(run.run_id)?.open;
      for (const id of ordersToRead(run, events)) {
        if (open?.has(id)) continue;
        const order = known?.version === expectedVersion ? known.orders.get(id) : undefined;
        if (order) read.set(id, order);
        else missing.push(id);
      }
    }
    if (missing.length > 0) for (const order of await this.orders_.getMany(missing.map(Keys.runOrder))) read.set(order.id, order);
    return read;
  }

  /**
   * What the items of the runs `saves` are conditional on carry, parsed: what this process read or
   * wrote at that version, the rest read (a save on another version fails its condition whatever
   * it carries).
   */
  private async carriedOf(saves: readonly RunSave[]): Promise<Map<string, Carried>> {
    const out = new Map<string, Carried>();
    await Promise.all(
      saves.map(async ({ run, expectedVersion }) => {
        let carried = this.carried.get(run.run_id);
        if (expectedVersion === 0) carried = { version: 0, body: {} };
        else if (carried?.version !== expectedVersion) {
          const item = await this.states.get(Keys.runState(run.run_id), { projection: ["tail", "open", "version"] });
          carried = { version: item?.version ?? 0, body: { tail: item?.tail, open: item?.open } };
        }
        carried.tail ??= carriedEvents(carried.body.tail);
        carried.open ??= new Map(carriedOrders(carried.body.open).map((o) => [o.id, o]));
        out.set(run.run_id, carried);
      }),
    );
    return out;
  }

  private keep(runId: string, carried: Carried): void {
    if (this.carried.size >= WRITTEN_ORDER_RUNS) this.carried.clear();
    this.carried.set(runId, carried);
  }

  /**
   * After a save: what its run's item carries and the order items it wrote that are not over, kept
   * at the run's new version (after a lost save, neither; after a large one, that its item carries
   * nothing).
   */
  private remember({ run, expectedVersion }: RunSave, done: boolean, prepared: PreparedSave): void {
    if (done) this.keep(run.run_id, { version: run.version, ...("steps" in prepared ? prepared.carried : { body: {}, tail: [], open: new Map() }) });
    else this.carried.delete(run.run_id);
    if (!done || !("steps" in prepared)) {
      this.writtenOrders.delete(run.run_id);
      return;
    }
    const written = prepared.orders;
    const known = this.writtenOrders.get(run.run_id);
    const orders = known?.version === expectedVersion ? known.orders : new Map<string, OrderItem>();
    for (const order of written) {
      if (isOpen(order)) orders.set(order.id, order);
      else orders.delete(order.id);
    }
    if (this.writtenOrders.size >= WRITTEN_ORDER_RUNS) this.writtenOrders.clear();
    this.writtenOrders.set(run.run_id, { version: run.version, orders });
  }

  /**
   * A save as the steps of one transaction, or (larger than one) the writes that make it in
   * several. A small save's events join the run's tail in its item; when they would take it past
   * `TAIL_EVENTS` or `TAIL_BYTES`, the tail and they are written as one events' block in the
   * transaction instead, and the item's tail is left empty. The records of the orders it places
   * ride in the run's item while they are open (`open`), and are written as items when they are
   * over, or all of them when they would pass `OPEN_ORDERS` or `OPEN_BYTES`.
   */
  private async prepare(
    { run, expectedVersion, events }: RunSave,
    read: Map<string, OrderItem>,
    carried: Map<string, Carried>,
    options: SaveOptions = {},
  ): Promise<PreparedSave> {
    const { tail = [], open = new Map<string, OrderItem>() } = carried.get(run.run_id) ?? {};
    const item: RunItem = {
      run_id: run.run_id,
      session_id: run.session_id,
      user_id: run.user_id,
      state: gzipJson({ snapshot: run.snapshot, progress: run.progress }),
      setup: setupBytes(run.setup),
      last_sequence: run.snapshot?.sequence ?? 0,
      progress: run.progress,
      version: run.version,
      updated_at: run.updated_at,
      ...(run.expires_at === undefined ? {} : { expires_at: run.expires_at }),
    };
    const guard = (put: RunItem): TransactionStep =>
      expectedVersion === 0 ? { put: this.states.toItem(put), ifAbsent: true } : { put: this.states.toItem(put), ifVersion: expectedVersion };
    const orderItems = await this.orderChanges(run, events, read, open);
    if (1 + events.length + orderItems.length <= TRANSACTION_ITEMS) {
      // The records that ride in the run's item: those it carried and those the save places, while open; the others are written as items.
      const placedFrom = events[0]?.sequence ?? Number.MAX_SAFE_INTEGER;
      const riding = new Map(open);
      const written: OrderItem[] = [];
      let moved = false;
      for (const order of orderItems) {
        const rides = (order.sequence >= placedFrom || open.has(order.id)) && isOpen(order) && runOfOrder(order.id) === run.run_id;
        if (rides) riding.set(order.id, order);
        else {
          riding.delete(order.id);
          written.push(order);
        }
        moved ||= rides || open.has(order.id);
      }
      let openBody = riding.size === 0 || riding.size > OPEN_ORDERS ? undefined : moved ? gzipJson([...riding.values()]) : carried.get(run.run_id)?.body.open;
      if (riding.size > 0 && (openBody === undefined || openBody.byteLength > OPEN_BYTES)) {
        written.push(...riding.values());
        riding.clear();
        openBody = undefined;
      }
      const newest = events.length === 0 ? tail : tail.length === 0 ? events : [...tail, ...events];
      const body = newest.length === 0 || newest.length > TAIL_EVENTS ? undefined : gzipJson(newest);
      const kept = newest.length === 0 || (body !== undefined && body.byteLength <= TAIL_BYTES);
      const block = kept ? undefined : this.blocks.eventsItem(run.run_id, run.version, newest, run.expires_at);
      if (kept || block) {
        if (kept && body) item.tail = body;
        if (openBody) item.open = openBody;
        return {
          steps: [guard(item), ...(block ? [{ put: block }] : []), ...written.map((o) => ({ put: this.orders_.toItem(expiring(o, run.expires_at)) }))],
          orders: written,
          carried: { body: { tail: kept ? body : undefined, open: openBody }, tail: kept ? newest : [], open: riding },
        };
      }
    }
    const carriedOn = { events: tail, orders: [...open.values()], version: expectedVersion };
    return { large: () => this.saveLarge(run, item, guard, events, orderItems, carriedOn, options) };
  }

  /**
   * A save larger than one transaction: the run with its events in its outbox, then their blocks;
   * or the blocks first, then the run, for a run with one writer and for events too many for the
   * outbox.
   */
  private async saveLarge(
    run: StoredRun,
    item: RunItem,
    guard: (put: RunItem) => TransactionStep,
    events: EngineEvent[],
    orderItems: OrderItem[],
    carried: { events: EngineEvent[]; orders: OrderItem[]; version: number },
    { soleWriter }: SaveOptions,
  ) {
    // What the run's item carried (committed at the version this save replaces) goes to blocks first: the item is written without it.
    if (carried.events.length > 0 || carried.orders.length > 0)
      await this.blocks.write(run.run_id, carried.version, carried.events, carried.orders, run.expires_at);
    const outbox = soleWriter ? undefined : gzipJson(events);
    if (!outbox || outbox.byteLength + item.state.byteLength + (item.setup?.byteLength ?? 0) > OUTBOX_BYTES) {
      // Their blocks written first, then the run, conditionally. A retried chunk writes the same
      // blocks again; readers take no event past the run's last committed sequence, and of two
      // blocks holding one sequence the later version (a lost race of two writers would leave the
      // loser's blocks under the winner's keys: only a run's one writer, or events too many to
      // ride in the run's item (DynamoDB's 400 KB), take this way; a backtest's chunk has one
      // writer, its workflow).
      await this.blocks.write(run.run_id, run.version, events, orderItems, run.expires_at);
      return transactIfUnchanged(this.db, [guard(item)]);
    }
    if (!(await transactIfUnchanged(this.db, [guard({ ...item, outbox })]))) return false;
    await this.blocks.write(run.run_id, run.version, events, orderItems, run.expires_at);
    // Only while no later save replaced it (a later writer read it through `get`, which wrote the events).
    await transactIfUnchanged(this.db, [{ put: this.states.toItem(item), ifVersion: run.version }]);
    return true;
  }

  /** Writes the blocks of a committed save's outbox (idempotent: the same blocks again). */
  private async writeEvents(run: StoredRun, events: EngineEvent[]) {
    await this.blocks.write(run.run_id, run.version, events, await this.orderChanges(run, events), run.expires_at);
  }

  /**
   * The order records the events create and change, as they will be (read and changed here,
   * written by the caller): those the run's item carries (`open`) taken from it, the others from
   * `read` (else read here).
   */
  private async orderChanges(run: StoredRun, events: EngineEvent[], read?: Map<string, OrderItem>, open?: Map<string, OrderItem>): Promise<OrderItem[]> {
    const changes = events.map((e) => ({ sequence: e.sequence, change: orderChangeOf(e, run) })).filter((c) => c.change !== null);
    if (changes.length === 0) return [];
    const touched = new Map<string, OrderItem>();
    const toRead: string[] = [];
    for (const id of ordersToRead(run, events)) {
      const carried = open?.get(id);
      if (carried) touched.set(id, carried);
      else toRead.push(id);
    }
    const items = read ? toRead.flatMap((id) => read.get(id) ?? []) : await this.orders_.getMany(toRead.map(Keys.runOrder));
    for (const order of items) touched.set(order.id, order);
    // Orders of an earlier large save live in its blocks (a later record of one wins over them).
    if (toRead.some((id) => !touched.has(id))) {
      for (const order of await this.blocks.orders(run.run_id, async () => events[0]!.sequence - 1)) {
        const item = touched.get(order.id);
        if (toRead.includes(order.id) && (!item || newer(order, 0, item, 0))) touched.set(order.id, order);
      }
    }
    // Object.assign, not spreads: a spread and the properties after it cost microseconds an order here (see `storedEvent`).
    for (const { sequence, change } of changes) {
      if (change!.kind === "create") touched.set(change!.order.id, Object.assign(change!.order, { sequence, changed: sequence }));
      else {
        const order = touched.get(change!.order_id);
        if (order) touched.set(order.id, Object.assign({}, order, change!.fields, { changed: sequence }));
      }
    }
    return [...touched.values()];
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
   * Keeps a run written to expire (a sweep's best runs, docs/operations.md "Sweeps"): its item,
   * blocks and order items written again without their expiry. Nothing else writes a finished
   * backtest's run, so the writes need no condition.
   */
  async keepForever(runId: string): Promise<void> {
    const item = await this.states.get(Keys.runState(runId));
    if (!item || item.expires_at === undefined) return;
    await this.blocks.keepForever(runId);
    const orders = (await this.orders_.queryAll(Keys.runOrders(runId), { index: "gsi1" })).filter((o) => o.expires_at !== undefined);
    await this.orders_.putMany(orders.map(({ expires_at: _expiresAt, ...order }) => order));
    // The run's item last: a Finalize retried after a crash finds it still expiring and keeps the rest again.
    const { expires_at: _expiresAt, ...kept } = item;
    await this.states.put(kept);
    this.carried.delete(runId);
  }

  async delete(runId: string): Promise<void> {
    this.writtenOrders.delete(runId);
    const orders = await this.orders_.queryAll(Keys.runOrders(runId), { index: "gsi1", projection: ["id"] });
    await this.orders_.deleteMany(orders.map((o) => Keys.runOrder(o.id)));
    for (;;) {
      const page = await this.events_.query(Keys.runEvents(runId), { limit: 500, projection: ["sequence"] });
      if (page.items.length === 0) break;
      await this.events_.deleteMany(page.items.map((e) => Keys.runEvent(runId, e.sequence)));
    }
    await this.blocks.delete(runId);
    await this.states.delete(Keys.runState(runId));
  }
}
