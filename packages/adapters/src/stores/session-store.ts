import type { EngineEvent } from "@tp/core/engine/events";
import type { EngineSetup } from "@tp/core/engine/setup";
import {
  orderChangeOf,
  orderTouched,
  type EventQuery,
  type OrderStatus,
  type RunProgress,
  type RunSave,
  type RunStore,
  type SaveOptions,
  type StoredEvent,
  type StoredRun,
  type TradingOrderResponse,
} from "@tp/core/trading/runs";
import type { SessionStatus, SessionStore, StoredSession } from "@tp/core/trading/sessions";
import { isListed } from "@tp/core/trading/sessions";
import { replayRunId } from "@tp/core/trading/replay";
import { DomainError } from "@tp/core/errors";
import type { Db } from "../dynamo/db";
import { gunzipJson, gzipJson } from "../dynamo/gzip-json";
import { Keys, LIVE_SHARDS, shardOf } from "../dynamo/keys";
import { Cursor, Repository, TRANSACTION_ITEMS, transactGroups, transactIfUnchanged, type TransactionStep } from "../dynamo/repository";
import { Table } from "../dynamo/table";
import { deleteChannelItems } from "./channel-store";
import { eventsMatching, newer, RunBlocks, type OrderItem } from "./run-blocks";

/**
 * Trading sessions on the single table: one item per session, listed per owner through gsi1
 * and per owner and status through gsi2 (both by `created_at#id`, read backwards for newest
 * first). Replacements are conditional on `version`.
 */
export class DynamoSessionStore implements SessionStore {
  private readonly sessions: Repository<StoredSession>;
  private readonly markers: Repository<LiveMarker>;
  /** The listed sessions as this process last read them: a refresh reads again only those whose marker names another version. */
  private readonly listed = new Map<string, StoredSession>();

  constructor(
    db: Db,
    private readonly runs: DynamoRunStore,
  ) {
    this.sessions = new Repository<StoredSession>(db, {
      type: "TradingSession",
      key: (s) => Keys.tradingSession(s.id),
      indexes: {
        gsi1: (s) => Keys.sessionOfUser(s.user_id, s.created_at, s.id),
        gsi2: (s) => Keys.sessionOfUserByStatus(s.user_id, s.status, s.created_at, s.id),
      },
    });
    this.markers = new Repository<LiveMarker>(db, { type: "LiveSessionMarker", key: (m) => Keys.liveSession(m.session_id) });
  }

  async create(session: StoredSession): Promise<void> {
    await this.sessions.put(session, { ifAbsent: true });
  }

  /** The marker step that keeps the live list in line with the session, written in the session's transaction. */
  private markerStep(session: StoredSession): TransactionStep {
    const key = Keys.liveSession(session.id);
    return isListed(session)
      ? { put: { pk: key.pk, sk: key.sk, _type: "LiveSessionMarker", session_id: session.id, version: session.version } }
      : { delete: key };
  }

  get(id: string) {
    return this.sessions.get(Keys.tradingSession(id));
  }

  replace(session: StoredSession, expectedVersion: number): Promise<boolean> {
    return transactIfUnchanged(this.sessions.db, [{ put: this.sessions.toItem(session), ifVersion: expectedVersion }, this.markerStep(session)]);
  }

  /**
   * The running, paused and stopping sessions: their markers (one statement over the shards), and
   * of the sessions only those whose version this process has not read yet; the others as it read
   * them (a session changes only with its marker, in one transaction).
   */
  readonly liveShards = LIVE_SHARDS;

  async listLive(shard?: number): Promise<StoredSession[]> {
    const partitions = shard === undefined ? Keys.liveSessionsPartitions : [Keys.liveSessionsPartitions[shard]!];
    const markers = await this.markers.queryPartitions(partitions);
    const stale = markers.filter((marker) => this.listed.get(marker.session_id)?.version !== marker.version);
    const read = await this.sessions.getMany(stale.map((marker) => Keys.tradingSession(marker.session_id)));
    const marked = new Set(markers.map((marker) => marker.session_id));
    for (const id of this.listed.keys()) if (!marked.has(id) && (shard === undefined || shardOf(id) === shard)) this.listed.delete(id);
    for (const session of read) this.listed.set(session.id, session);
    return markers.flatMap((marker) => this.listed.get(marker.session_id) ?? []).filter(isListed);
  }

  listByUser(userId: string, status?: SessionStatus) {
    return status
      ? this.sessions.queryAll(Keys.sessionsOfUserByStatus(userId, status), { index: "gsi2", ascending: false })
      : this.sessions.queryAll(Keys.sessionsOfUser(userId), { index: "gsi1", ascending: false });
  }

  async delete(session: StoredSession): Promise<void> {
    // The runs first: a session item is the only way to find them again.
    for (const runId of new Set([session.id, replayRunId(session.id), ...(session.run_id ? [session.run_id] : [])])) await this.runs.delete(runId);
    await deleteChannelItems(this.sessions.db, session.id);
    await this.sessions.delete(Keys.tradingSession(session.id));
    await this.markers.delete(Keys.liveSession(session.id));
  }
}

/** A live session's marker: its id and the version of the session item written with it. */
interface LiveMarker {
  session_id: string;
  version: number;
}

/** A run's state item: its snapshot and progress gzipped into one binary attribute, its setup into another. */
interface RunItem {
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
const TAIL_EVENTS = 50;
/**
 * The most the tail's gzipped JSON may take: DynamoDB Local's cost of an item hardly grows with it
 * up to a few KB, DynamoDB's write units do (a unit a KB), so a tail stays near the size of the
 * block item it saves (docs/data-model.md "Runs").
 */
const TAIL_BYTES = 2_048;

/** The open orders' records a run's item carries at most, and their gzipped JSON's bytes: beyond them, they are written as items. */
const OPEN_ORDERS = 20;
const OPEN_BYTES = 2_048;

/**
 * What a run's item carries besides its state, as a process last read or wrote it at `version`:
 * the tail's events and the open orders' records, gzipped (`body`) and parsed when needed.
 */
interface Carried {
  version: number;
  body: { tail?: Uint8Array; open?: Uint8Array };
  tail?: EngineEvent[];
  open?: Map<string, OrderItem>;
}

/** A save prepared: the steps of its one transaction, with the order items and what the run's item carries that they write; or the writes of a large save. */
type PreparedSave = { steps: TransactionStep[]; orders: OrderItem[]; carried: Omit<Carried, "version"> } | { large: () => Promise<boolean> };

/** The events of a run's item's `tail`, and the order records of its `open` (none when absent). */
const carriedEvents = (body: Uint8Array | undefined): EngineEvent[] => (body ? gunzipJson<EngineEvent[]>(body) : []);
const carriedOrders = (body: Uint8Array | undefined): OrderItem[] => (body ? gunzipJson<OrderItem[]>(body) : []);

const isOpen = (order: OrderItem) => order.status === "pending" || order.status === "partially_filled";

/** The run an order's id names (`<session id>-<n>`, engine.ts; a denied one's `<run id>-d<sequence>`): a live run's id is its session's. */
const runOfOrder = (orderId: string) => orderId.slice(0, Math.max(0, orderId.lastIndexOf("-")));

/** Runs whose order records (and what their items carry) a process keeps as it wrote them, at most (then it forgets them all and reads again). */
const WRITTEN_ORDER_RUNS = 10_000;

/** The most a run's item may carry of state and outbox (DynamoDB's item limit is 400 KB, attribute names and the rest included). */
const OUTBOX_BYTES = 350_000;

/**
 * The gzipped setups of the runs this process saved or read, by setup object: a run's setup is
 * replaced, never changed in place (`setupAfter`, `updateRun`), so a run saved every bar gzips its
 * setup (most of its state's JSON) once.
 */
const gzippedSetups = new WeakMap<EngineSetup, Uint8Array>();

const setupBytes = (setup: EngineSetup): Uint8Array => {
  let bytes = gzippedSetups.get(setup);
  if (!bytes) gzippedSetups.set(setup, (bytes = gzipJson(setup)));
  return bytes;
};

const runOf = (item: RunItem): StoredRun => {
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
    this.blocks = new RunBlocks(db);
    this.states = new Repository<RunItem>(db, { type: "RunState", key: (r) => Keys.runState(r.run_id), expiresAt: (r) => r.expires_at });
    this.events_ = new Repository<StoredEvent>(db, {
      type: "RunEvent",
      key: (e) => Keys.runEvent(e.run_id, e.sequence),
      indexes: {
        gsi1: (e) => Keys.runEventByLevel(e.run_id, e.level, e.sequence),
        gsi2: (e) => Keys.runEventByCategory(e.run_id, e.category, e.sequence),
      },
    });
    this.orders_ = new Repository<OrderItem>(db, {
      type: "RunOrder",
      key: (o) => Keys.runOrder(o.id),
      expiresAt: (o) => o.expires_at,
      indexes: {
        gsi1: (o) => Keys.runOrderBySequence(o.run_id, o.sequence),
        gsi2: (o) => Keys.runOrderByStatus(o.run_id, o.status, o.sequence),
      },
    });
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

  /**
   * One page of the run's events: the item-per-event log's page, merged by sequence with the
   * blocks' events and the tail's past the cursor. The run's item is read first: a save that moves
   * its tail into a block meanwhile leaves those events in the block the read finds after.
   */
  async events(runId: string, query: EventQuery) {
    const index = query.level ? "gsi1" : query.category ? "gsi2" : undefined;
    const partition = query.level
      ? Keys.runEventsByLevel(runId, query.level)
      : query.category
        ? Keys.runEventsByCategory(runId, query.category)
        : Keys.runEvents(runId);
    const after = sequenceOf(query.cursor, index);
    const ascending = query.ascending ?? true;
    const state = await this.states.get(Keys.runState(runId), { projection: ["tail", "last_sequence"] });
    const committed = state?.last_sequence ?? Number.MAX_SAFE_INTEGER;
    const [page, blocked] = await Promise.all([
      this.events_.query(partition, { index, limit: query.limit, cursor: query.cursor, ascending: query.ascending }),
      this.blocks.events(runId, query, after, query.limit + 1, async () => committed),
    ]);
    const tailed = eventsMatching(runId, carriedEvents(state?.tail), query, after, committed);
    // A run without blocks or tail (past the cursor) pages exactly as its items do.
    if (blocked.events.length === 0 && tailed.length === 0) return page;
    const bySequence = new Map<number, StoredEvent>();
    for (const event of blocked.events) bySequence.set(event.sequence, event);
    for (const event of tailed) bySequence.set(event.sequence, event);
    for (const event of page.items) bySequence.set(event.sequence, event);
    const merged = [...bySequence.values()].sort((a, b) => (ascending ? a.sequence - b.sequence : b.sequence - a.sequence));
    const items = merged.slice(0, query.limit);
    const more = merged.length > query.limit || page.cursor !== undefined || blocked.more;
    const end = items[items.length - 1];
    return { items, cursor: more && end ? eventCursor(this.events_, end, index) : undefined };
  }

  /**
   * One page of the run's orders (by the sequence that created them): its order items over the
   * records of its blocks, and the open ones its item carries. The run's item is read first: a save
   * that writes one of those as an item meanwhile leaves it in the items read after (where the
   * later change wins).
   */
  async orders(runId: string, query: { limit: number; cursor?: string; status?: OrderStatus }) {
    const index = query.status ? "gsi2" : "gsi1";
    const state = await this.states.get(Keys.runState(runId), { projection: ["open", "last_sequence"] });
    const committed = state?.last_sequence ?? Number.MAX_SAFE_INTEGER;
    const [page, blocked] = await Promise.all([
      query.status
        ? this.orders_.query(Keys.runOrdersByStatus(runId, query.status), { index, limit: query.limit, cursor: query.cursor })
        : this.orders_.query(Keys.runOrders(runId), { index, limit: query.limit, cursor: query.cursor }),
      this.blocks.orders(runId, async () => committed),
    ]);
    const after = sequenceOf(query.cursor, index) ?? -1;
    const carried = carriedOrders(state?.open).filter((o) => o.sequence > after && (!query.status || o.status === query.status));
    if (blocked.length === 0 && carried.length === 0) return { items: page.items.map(withoutSequence), cursor: page.cursor };
    // Every record of the run when it has blocks (its items a later change of an order of theirs), else the page's; the carried ones under them.
    const items = blocked.length > 0 ? await this.orders_.queryAll(Keys.runOrders(runId), { index: "gsi1" }) : page.items;
    const byId = new Map<string, OrderItem>();
    for (const order of [...carried, ...blocked, ...items]) {
      const seen = byId.get(order.id);
      if (!seen || newer(order, Number.MAX_SAFE_INTEGER, seen, 0)) byId.set(order.id, order);
    }
    const listed = [...byId.values()].filter((o) => o.sequence > after && (!query.status || o.status === query.status)).sort((a, b) => a.sequence - b.sequence);
    const shown = listed.slice(0, query.limit);
    const more = listed.length > query.limit || (blocked.length === 0 && page.cursor !== undefined);
    const end = shown[shown.length - 1];
    return { items: shown.map(withoutSequence), cursor: more && end ? orderCursor(this.orders_, end, index) : undefined };
  }

  /**
   * One order by id: its item; else the record its run's item carries (the run its id names),
   * the item read again when the run's no longer does (written as an item meanwhile); else the
   * record of a large save's blocks.
   */
  async order(orderId: string) {
    const order = await this.orders_.get(Keys.runOrder(orderId));
    if (order) return withoutSequence(order);
    const runId = runOfOrder(orderId);
    if (!runId) return undefined;
    const state = await this.states.get(Keys.runState(runId), { projection: ["open", "last_sequence"] });
    const carried = carriedOrders(state?.open).find((o) => o.id === orderId);
    if (carried) return withoutSequence(carried);
    const written = await this.orders_.get(Keys.runOrder(orderId));
    if (written) return withoutSequence(written);
    const blocked = (await this.blocks.orders(runId, async () => state?.last_sequence ?? Number.MAX_SAFE_INTEGER)).find((o) => o.id === orderId);
    return blocked ? withoutSequence(blocked) : undefined;
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

/** The orders a save's events change that they did not create: their records are read to be changed. */
function ordersToRead(run: StoredRun, events: EngineEvent[]): string[] {
  const created = new Set<string>();
  const changed = new Set<string>();
  for (const event of events) {
    const touched = orderTouched(event, run.run_id);
    if (touched) (touched.creates ? created : changed).add(touched.order_id);
  }
  return [...changed].filter((id) => !created.has(id));
}

const withoutSequence = ({ sequence: _sequence, changed: _changed, expires_at: _expiresAt, ...order }: OrderItem): TradingOrderResponse => order;

/** An order record to write for a run that expires: with the run's expiry. */
const expiring = (order: OrderItem, expiresAt: number | undefined): OrderItem => (expiresAt === undefined ? order : { ...order, expires_at: expiresAt });

/** The sequence a cursor of the events' or orders' query stands after (its sort key, on the table or on `index`). */
function sequenceOf(cursor: string | undefined, index: "gsi1" | "gsi2" | undefined): number | undefined {
  const key = Cursor.decode(cursor);
  if (!key) return undefined;
  const sortKey = key[index ? Table.indexes[index].sortKey : Table.sortKey];
  const sequence = Number(sortKey);
  if (typeof sortKey !== "string" || !Number.isInteger(sequence)) throw new DomainError(422, "INVALID_CURSOR", "The cursor is not one this service issued");
  return sequence;
}

/** The cursor the events' query would give after `event` (its keys on the table and on `index`): the blocks' pages and the items' share one shape. */
function eventCursor(events: Repository<StoredEvent>, event: StoredEvent, index: "gsi1" | "gsi2" | undefined) {
  return keyCursor(events.toItem(event), index);
}

function orderCursor(orders: Repository<OrderItem>, order: OrderItem, index: "gsi1" | "gsi2") {
  return keyCursor(orders.toItem(order), index);
}

function keyCursor(item: Record<string, unknown>, index: "gsi1" | "gsi2" | undefined) {
  const names: string[] = [Table.partitionKey, Table.sortKey, ...(index ? [Table.indexes[index].partitionKey, Table.indexes[index].sortKey] : [])];
  return Cursor.encode(Object.fromEntries(names.map((name) => [name, item[name]])));
}
