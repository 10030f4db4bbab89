import { gunzipSync, gzipSync } from "node:zlib";
import type { EngineEvent } from "@tp/core/engine/events";
import {
  categoryOf,
  levelOf,
  orderChangeOf,
  type EventQuery,
  type OrderStatus,
  type RunStore,
  type StoredEvent,
  type StoredRun,
  type TradingOrderResponse,
} from "@tp/core/trading/runs";
import type { SessionStatus, SessionStore, StoredSession } from "@tp/core/trading/sessions";
import { isListed } from "@tp/core/trading/sessions";
import { replayRunId } from "@tp/core/trading/replay";
import type { Db } from "../dynamo/db";
import { Keys } from "../dynamo/keys";
import { Repository, transactIfUnchanged, type TransactionStep } from "../dynamo/repository";
import { SharedReads } from "../dynamo/shared-reads";
import { deleteChannelItems } from "./channel-store";

/**
 * Trading sessions on the single table: one item per session, listed per owner through gsi1
 * and per owner and status through gsi2 (both by `created_at#id`, read backwards for newest
 * first). Replacements are conditional on `version`.
 */
export class DynamoSessionStore implements SessionStore {
  private readonly sessions: Repository<StoredSession>;
  private readonly markers: Repository<{ session_id: string }>;
  /** A burst of requests to one session (orders from many clients) reads it once or twice, each read begun after its caller asked. */
  private readonly reads = new SharedReads<StoredSession | undefined>();

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
    this.markers = new Repository<{ session_id: string }>(db, { type: "LiveSessionMarker", key: (m) => Keys.liveSession(m.session_id) });
  }

  async create(session: StoredSession): Promise<void> {
    await this.sessions.put(session, { ifAbsent: true });
  }

  /** The marker step that keeps the live list in line with the session, written in the session's transaction. */
  private markerStep(session: StoredSession): TransactionStep {
    const key = Keys.liveSession(session.id);
    return isListed(session) ? { put: { pk: key.pk, sk: key.sk, _type: "LiveSessionMarker", session_id: session.id } } : { delete: key };
  }

  get(id: string) {
    return this.reads.read(id, () => this.sessions.get(Keys.tradingSession(id)));
  }

  replace(session: StoredSession, expectedVersion: number): Promise<boolean> {
    return transactIfUnchanged(this.sessions.db, [{ put: this.sessions.toItem(session), ifVersion: expectedVersion }, this.markerStep(session)]);
  }

  async listLive(): Promise<StoredSession[]> {
    const markers = await this.markers.queryAll(Keys.liveSessionsPartition);
    const sessions = await this.sessions.getMany(markers.map((marker) => Keys.tradingSession(marker.session_id)));
    return sessions.filter(isListed);
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

/** A run's state item: setup and snapshot gzipped into one binary attribute. */
interface RunItem {
  run_id: string;
  session_id: string;
  user_id: string;
  state: Uint8Array;
  last_sequence: number;
  version: number;
  updated_at: string;
  /** The events of a save too large for one transaction, until their own items are written (gzipped JSON). */
  outbox?: Uint8Array;
}

/** Items DynamoDB takes in one TransactWriteItems. */
const TRANSACTION_ITEMS = 100;
/** The most a run's item may carry of state and outbox (DynamoDB's item limit is 400 KB, attribute names and the rest included). */
const OUTBOX_BYTES = 350_000;

const runOf = (item: RunItem): StoredRun => {
  const { setup, snapshot, progress } = JSON.parse(gunzipSync(item.state).toString("utf8")) as Pick<StoredRun, "setup" | "snapshot" | "progress">;
  return {
    run_id: item.run_id,
    session_id: item.session_id,
    user_id: item.user_id,
    setup,
    snapshot,
    progress: progress ?? null,
    version: item.version,
    updated_at: item.updated_at,
  };
};

interface OrderItem extends TradingOrderResponse {
  /** Sequence of the event that created the order: orders list in the order they were placed. */
  sequence: number;
}

/**
 * Runs on the single table: the state item (`Keys.runState`), one item per event (`Keys.runEvent`,
 * indexed by level on gsi1 and by category on gsi2), and one item per order (`Keys.runOrder`,
 * listed per run on gsi1 and per run and status on gsi2).
 */
export class DynamoRunStore implements RunStore {
  private readonly states: Repository<RunItem>;
  private readonly events_: Repository<StoredEvent>;
  private readonly orders_: Repository<OrderItem>;

  constructor(private readonly db: Db) {
    this.states = new Repository<RunItem>(db, { type: "RunState", key: (r) => Keys.runState(r.run_id) });
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
    // A save too large for one transaction committed its events here first; a crash may have kept them from their own items.
    if (item.outbox) await this.writeEvents(run, JSON.parse(gunzipSync(item.outbox).toString("utf8")) as EngineEvent[]);
    return run;
  }

  /**
   * Saves the run with its events and the order changes they imply, all or nothing, conditionally
   * on the run's version: a writer that lost the race has written nothing (docs/session-worker.md
   * "One order of events"). One transaction when they fit in one (`TRANSACTION_ITEMS`); a larger
   * save commits the run with its events inside it (`outbox`), then writes their items, then
   * clears the outbox; a crash in between leaves them to the next `get`, which writes them first.
   */
  async save(run: StoredRun, expectedVersion: number, events: EngineEvent[]): Promise<boolean> {
    const item: RunItem = {
      run_id: run.run_id,
      session_id: run.session_id,
      user_id: run.user_id,
      state: gzipSync(JSON.stringify({ setup: run.setup, snapshot: run.snapshot, progress: run.progress })),
      last_sequence: run.snapshot?.sequence ?? 0,
      version: run.version,
      updated_at: run.updated_at,
    };
    const guard = (put: RunItem): TransactionStep =>
      expectedVersion === 0 ? { put: this.states.toItem(put), ifAbsent: true } : { put: this.states.toItem(put), ifVersion: expectedVersion };
    const eventItems = this.eventItems(run, events);
    const orderItems = await this.orderChanges(run, events);
    if (1 + eventItems.length + orderItems.length <= TRANSACTION_ITEMS) {
      return transactIfUnchanged(this.db, [
        guard(item),
        ...eventItems.map((e) => ({ put: this.events_.toItem(e) })),
        ...orderItems.map((o) => ({ put: this.orders_.toItem(o) })),
      ]);
    }
    const outbox = gzipSync(JSON.stringify(events));
    if (outbox.byteLength + item.state.byteLength > OUTBOX_BYTES) {
      // Events too many to ride in the run's item (DynamoDB's 400 KB): written first, then the run,
      // conditionally; a lost race leaves items a later save rewrites by sequence (a backtest's chunk
      // has one writer, its workflow).
      await this.events_.putMany(eventItems);
      await this.orders_.putMany(orderItems);
      return transactIfUnchanged(this.db, [guard(item)]);
    }
    if (!(await transactIfUnchanged(this.db, [guard({ ...item, outbox })]))) return false;
    await this.events_.putMany(eventItems);
    await this.orders_.putMany(orderItems);
    // Only while no later save replaced it (a later writer read it through `get`, which wrote the events).
    await transactIfUnchanged(this.db, [{ put: this.states.toItem(item), ifVersion: run.version }]);
    return true;
  }

  private eventItems(run: StoredRun, events: EngineEvent[]): StoredEvent[] {
    return events.map((e) => ({ ...e, run_id: run.run_id, level: levelOf(e), category: categoryOf(e) }));
  }

  /** Writes events and their order changes (idempotent: the same items again). */
  private async writeEvents(run: StoredRun, events: EngineEvent[]) {
    await this.events_.putMany(this.eventItems(run, events));
    await this.orders_.putMany(await this.orderChanges(run, events));
  }

  /** The order records the events create and change, as they will be (read and changed here, written by the caller). */
  private async orderChanges(run: StoredRun, events: EngineEvent[]): Promise<OrderItem[]> {
    const changes = events.map((e) => ({ sequence: e.sequence, change: orderChangeOf(e, run) })).filter((c) => c.change !== null);
    if (changes.length === 0) return [];
    const touched = new Map<string, OrderItem>();
    const updatedIds = changes.flatMap(({ change }) => (change!.kind === "set" ? [change!.order_id] : []));
    const createdIds = new Set(changes.flatMap(({ change }) => (change!.kind === "create" ? [change!.order.id] : [])));
    const toRead = [...new Set(updatedIds)].filter((id) => !createdIds.has(id));
    for (const order of await this.orders_.getMany(toRead.map(Keys.runOrder))) touched.set(order.id, order);
    for (const { sequence, change } of changes) {
      if (change!.kind === "create") touched.set(change!.order.id, { ...change!.order, sequence });
      else {
        const order = touched.get(change!.order_id);
        if (order) touched.set(order.id, { ...order, ...change!.fields });
      }
    }
    return [...touched.values()];
  }

  async events(runId: string, query: EventQuery) {
    const page = query.level
      ? await this.events_.query(Keys.runEventsByLevel(runId, query.level), {
          index: "gsi1",
          limit: query.limit,
          cursor: query.cursor,
          ascending: query.ascending,
        })
      : query.category
        ? await this.events_.query(Keys.runEventsByCategory(runId, query.category), {
            index: "gsi2",
            limit: query.limit,
            cursor: query.cursor,
            ascending: query.ascending,
          })
        : await this.events_.query(Keys.runEvents(runId), { limit: query.limit, cursor: query.cursor, ascending: query.ascending });
    return page;
  }

  async orders(runId: string, query: { limit: number; cursor?: string; status?: OrderStatus }) {
    const page = query.status
      ? await this.orders_.query(Keys.runOrdersByStatus(runId, query.status), { index: "gsi2", limit: query.limit, cursor: query.cursor })
      : await this.orders_.query(Keys.runOrders(runId), { index: "gsi1", limit: query.limit, cursor: query.cursor });
    return { items: page.items.map(withoutSequence), cursor: page.cursor };
  }

  async order(orderId: string) {
    const order = await this.orders_.get(Keys.runOrder(orderId));
    return order ? withoutSequence(order) : undefined;
  }

  async delete(runId: string): Promise<void> {
    const orders = await this.orders_.queryAll(Keys.runOrders(runId), { index: "gsi1", projection: ["id"] });
    await this.orders_.deleteMany(orders.map((o) => Keys.runOrder(o.id)));
    for (;;) {
      const page = await this.events_.query(Keys.runEvents(runId), { limit: 500, projection: ["sequence"] });
      if (page.items.length === 0) break;
      await this.events_.deleteMany(page.items.map((e) => Keys.runEvent(runId, e.sequence)));
    }
    await this.states.delete(Keys.runState(runId));
  }
}

const withoutSequence = ({ sequence: _sequence, ...order }: OrderItem): TradingOrderResponse => order;
