import type { EngineEvent } from "@tp/core/engine/events";
import { storedEvent, type EventQuery, type StoredEvent, type TradingOrderResponse } from "@tp/core/trading/run/runs";
import type { Db } from "../dynamo/db";
import { gunzipJson, gzipJson } from "../dynamo/gzip-json";
import { batchWrite } from "../dynamo/batches";
import { Keys } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";

/** An order record as stored: the view plus the sequences that order and date it. */
export interface OrderItem extends TradingOrderResponse {
  /** Sequence of the event that created the order: orders list in the order they were placed. */
  sequence: number;
  /** Sequence of the last event that changed it (absent on records written before blocks: `sequence`). */
  changed?: number;
  /** When (epoch seconds) the item expires: its run's (`StoredRun.expires_at`, a sweep's run); absent, kept. */
  expires_at?: number;
}

/** The most a block carries, gzipped (DynamoDB's item limit is 400 KB, the block's other attributes included). */
export const BLOCK_BYTES = 350_000;
/** Events or orders a block holds at most before it is compressed (halved until it fits in `BLOCK_BYTES`). */
const BLOCK_ENTRIES = 4_000;
/** Blocks read per query while paging, at first (each is at most `BLOCK_BYTES`: a query answers at most 1 MB). */
const BLOCKS_PER_READ = 2;
/** Blocks read per query at most, when they are small (a session's steps' blocks, a few events each). */
const MAX_BLOCKS_PER_READ = 200;

/** One item of a run's blocks: events (`kind: "events"`) or order records, gzipped JSON. */
interface BlockItem {
  run_id: string;
  kind: "events" | "orders";
  /** First sequence of the save that wrote it (events: the block's own first). */
  first: number;
  /** Last sequence the block holds (events). */
  last: number;
  /** The run version the save committed. */
  version: number;
  part: number;
  count: number;
  body: Uint8Array;
  /** When (epoch seconds) the block expires: its run's (`StoredRun.expires_at`); absent, kept. */
  expires_at?: number;
}

const keyOf = (b: BlockItem) =>
  b.kind === "events" ? Keys.runEventBlock(b.run_id, b.first, b.version) : Keys.runOrderBlock(b.run_id, b.first, b.version, b.part);

/** `entries` in parts of at most `BLOCK_ENTRIES`, each halved until its gzipped JSON fits in `BLOCK_BYTES`: the same parts for the same entries. */
function pack<T>(entries: T[]): { entries: T[]; body: Uint8Array }[] {
  const parts: { entries: T[]; body: Uint8Array }[] = [];
  const add = (slice: T[]) => {
    const body = gzipJson(slice);
    if (body.byteLength <= BLOCK_BYTES || slice.length === 1) parts.push({ entries: slice, body });
    else {
      const half = Math.ceil(slice.length / 2);
      add(slice.slice(0, half));
      add(slice.slice(half));
    }
  };
  for (let from = 0; from < entries.length; from += BLOCK_ENTRIES) add(entries.slice(from, from + BLOCK_ENTRIES));
  return parts;
}

const unpack = <T>(block: BlockItem): T[] => gunzipJson<T[]>(block.body);

/**
 * Of a run's `events`, those past sequence `after` in the query's direction (every one when
 * undefined) and up to its committed sequence, that match the query's level or category, as stored.
 */
export function eventsMatching(runId: string, events: EngineEvent[], query: EventQuery, after: number | undefined, committed: number): StoredEvent[] {
  const ascending = query.ascending ?? true;
  const out: StoredEvent[] = [];
  for (const event of events) {
    if ((after !== undefined && (ascending ? event.sequence <= after : event.sequence >= after)) || event.sequence > committed) continue;
    const stored = storedEvent(event, runId);
    if ((!query.level || stored.level === query.level) && (!query.category || stored.category === query.category)) out.push(stored);
  }
  return out;
}

/**
 * A run's blocks (docs/data-model.md "Runs"): its log of events, each save's in one item (or a few
 * of many: a backtest's chunk), and the order records of a save with more than a transaction holds
 * as items, instead of an item per event and per order with two index entries each. Written once
 * under keys made of the save's sequences and version, so writing a save again (a retried chunk)
 * puts the same items. Read back by sequence (`DynamoRunStore`).
 */
export class RunBlocks {
  private readonly blocks: Repository<BlockItem>;

  constructor(db: Db) {
    this.blocks = new Repository<BlockItem>(db, { type: "RunBlock", key: keyOf, expiresAt: (b) => b.expires_at });
  }

  /**
   * The block items of one save's events, committed (or about to be) at `version`, as stored: a
   * session's step that placed or filled an order writes its few events in one item of its
   * transaction; a backtest's chunk, thousands in a few.
   */
  eventItems(runId: string, version: number, events: EngineEvent[], expiresAt?: number): Record<string, unknown>[] {
    return this.asStored(
      pack(events).map(({ entries, body }, part) => ({
        run_id: runId,
        kind: "events" as const,
        first: entries[0]!.sequence,
        last: entries[entries.length - 1]!.sequence,
        version,
        part,
        count: entries.length,
        body,
      })),
      expiresAt,
    );
  }

  /**
   * The block items of one save's order records, committed (or about to be) at `version`, as
   * stored, under the sequence of the save's first event (`events`): apart from its event items, so
   * a save whose records do not fit its transaction as items adds these to the event items it built.
   */
  orderItems(runId: string, version: number, events: EngineEvent[], orders: OrderItem[], expiresAt?: number): Record<string, unknown>[] {
    const first = events[0]?.sequence ?? 0;
    return this.asStored(
      pack(orders).map(({ entries, body }, part) => ({
        run_id: runId,
        kind: "orders" as const,
        first,
        last: first,
        version,
        part,
        count: entries.length,
        body,
      })),
      expiresAt,
    );
  }

  private asStored(items: BlockItem[], expiresAt: number | undefined): Record<string, unknown>[] {
    return items.map((item) => this.blocks.toItem(expiresAt === undefined ? item : { ...item, expires_at: expiresAt }));
  }

  /** Writes the events and order records of one save, committed (or about to be) at `version` (a run's one writer's large save, before its state). */
  async write(runId: string, version: number, events: EngineEvent[], orders: OrderItem[], expiresAt?: number): Promise<void> {
    if (events.length === 0 && orders.length === 0) return;
    const items = [...this.eventItems(runId, version, events, expiresAt), ...this.orderItems(runId, version, events, orders, expiresAt)];
    await batchWrite(
      this.blocks.db,
      items.map((item) => ({ PutRequest: { Item: item } })),
    );
  }

  /**
   * Events of the blocks past sequence `after` in the query's direction (every one when undefined)
   * and up to the run's committed sequence (`committed`, asked when there are blocks: a block past
   * it is of a save that did not commit), that match the query's level or category, in sequence
   * order, up to `want` (more when a block holds more); `more` when blocks may hold further ones.
   */
  async events(
    runId: string,
    query: EventQuery,
    after: number | undefined,
    want: number,
    committed: () => Promise<number>,
  ): Promise<{ events: StoredEvent[]; more: boolean }> {
    const ascending = query.ascending ?? true;
    const partition = Keys.runBlocks(runId);
    let between: [string, string];
    if (ascending) {
      // From the block that holds `after` (the last one starting at or before it).
      let start = 0;
      if (after !== undefined) {
        const [holding] = (await this.blocks.query(partition, { between: Keys.runEventBlocksUpTo(after), ascending: false, limit: 1 })).items;
        start = holding?.first ?? 0;
      }
      between = Keys.runEventBlocksFrom(start);
    } else between = Keys.runEventBlocksUpTo(after === undefined ? 999_999_999_999 : after - 1);
    // Of two blocks holding one sequence (a chunk written again with other cuts), the later version's.
    const found = new Map<number, { event: StoredEvent; version: number }>();
    let last: number | undefined;
    let cursor: string | undefined;
    // Blocks read per query: two at first (a backtest's are large), then as many as the events still wanted need at the blocks' size so far (a session's steps' blocks hold a few each).
    let blocks = 0;
    let entries = 0;
    do {
      const limit =
        blocks === 0
          ? BLOCKS_PER_READ
          : Math.min(MAX_BLOCKS_PER_READ, Math.max(BLOCKS_PER_READ, Math.ceil(((want - found.size) * blocks) / Math.max(1, entries))));
      const page = await this.blocks.query(partition, { between, ascending, limit, cursor });
      if (page.items.length > 0) last ??= await committed();
      for (const block of page.items) {
        blocks += 1;
        entries += block.count;
        for (const stored of eventsMatching(runId, unpack<EngineEvent>(block), query, after, last!)) {
          const seen = found.get(stored.sequence);
          if (!seen || seen.version < block.version) found.set(stored.sequence, { event: stored, version: block.version });
        }
      }
      cursor = page.cursor;
    } while (cursor && found.size < want);
    const events = [...found.values()].map((entry) => entry.event);
    events.sort((a, b) => (ascending ? a.sequence - b.sequence : b.sequence - a.sequence));
    return { events, more: cursor !== undefined };
  }

  /**
   * Every order record of the blocks of a run changed up to its committed sequence (`committed`,
   * asked when there are blocks), the latest of each order (by the last event that changed it, then by version).
   */
  async orders(runId: string, committed: () => Promise<number>): Promise<OrderItem[]> {
    const blocks = await this.blocks.queryAll(Keys.runBlocks(runId), { prefix: Keys.runOrderBlocksPrefix });
    if (blocks.length === 0) return [];
    const last = await committed();
    const latest = new Map<string, { order: OrderItem; version: number }>();
    for (const block of blocks) {
      for (const order of unpack<OrderItem>(block)) {
        if ((order.changed ?? order.sequence) > last) continue;
        const seen = latest.get(order.id);
        if (!seen || newer(order, block.version, seen.order, seen.version)) latest.set(order.id, { order, version: block.version });
      }
    }
    return [...latest.values()].map((entry) => entry.order);
  }

  /** Removes every block of a run. */
  async delete(runId: string): Promise<void> {
    const blocks = await this.blocks.queryAll(Keys.runBlocks(runId), { projection: ["run_id", "kind", "first", "version", "part"] });
    await this.blocks.deleteMany(blocks.map(keyOf));
  }

  /** Writes the run's blocks that expire again without their expiry (`DynamoRunStore.keepForever`). */
  async keepForever(runId: string): Promise<void> {
    const expiring = (await this.blocks.queryAll(Keys.runBlocks(runId))).filter((block) => block.expires_at !== undefined);
    await this.blocks.putMany(expiring.map(({ expires_at: _expiresAt, ...block }) => block));
  }
}

/** Whether record `a` (of a block of `va`) is later than `b` (of `vb`): changed by a later event, or written by a later save. */
export function newer(a: OrderItem, va: number, b: OrderItem, vb: number): boolean {
  const ca = a.changed ?? a.sequence;
  const cb = b.changed ?? b.sequence;
  return ca !== cb ? ca > cb : va > vb;
}
