import { DomainError } from "@tp/core/errors";
import type { EventQuery, OrderStatus, StoredEvent } from "@tp/core/trading/runs";
import { Keys } from "../dynamo/keys";
import { Cursor, type Repository } from "../dynamo/repository";
import { Table } from "../dynamo/table";
import { eventsMatching, newer, type OrderItem } from "./run-blocks";
import { carriedEvents, carriedOrders, runOfOrder, withoutSequence, type RunTables } from "./run-item";

/**
 * Reading a run's events and orders (`DynamoRunStore.events`, `orders`, `order`): the items, the
 * blocks and what the run's item carries, merged by sequence, paged with cursors of one shape.
 */

/**
 * One page of the run's events: the item-per-event log's page, merged by sequence with the
 * blocks' events and the tail's past the cursor. The run's item is read first: a save that moves
 * its tail into a block meanwhile leaves those events in the block the read finds after.
 */
export async function runEvents(t: RunTables, runId: string, query: EventQuery) {
  const index = query.level ? "gsi1" : query.category ? "gsi2" : undefined;
  const partition = query.level
    ? Keys.runEventsByLevel(runId, query.level)
    : query.category
      ? Keys.runEventsByCategory(runId, query.category)
      : Keys.runEvents(runId);
  const after = sequenceOf(query.cursor, index);
  const ascending = query.ascending ?? true;
  const state = await t.states.get(Keys.runState(runId), { projection: ["tail", "last_sequence"] });
  const committed = state?.last_sequence ?? Number.MAX_SAFE_INTEGER;
  const [page, blocked] = await Promise.all([
    t.events.query(partition, { index, limit: query.limit, cursor: query.cursor, ascending: query.ascending }),
    t.blocks.events(runId, query, after, query.limit + 1, async () => committed),
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
  return { items, cursor: more && end ? eventCursor(t.events, end, index) : undefined };
}

/**
 * One page of the run's orders (by the sequence that created them): its order items over the
 * records of its blocks, and the open ones its item carries. The run's item is read first: a save
 * that writes one of those as an item meanwhile leaves it in the items read after (where the
 * later change wins).
 */
export async function runOrders(t: RunTables, runId: string, query: { limit: number; cursor?: string; status?: OrderStatus }) {
  const index = query.status ? "gsi2" : "gsi1";
  const state = await t.states.get(Keys.runState(runId), { projection: ["open", "last_sequence"] });
  const committed = state?.last_sequence ?? Number.MAX_SAFE_INTEGER;
  const [page, blocked] = await Promise.all([
    query.status
      ? t.orders.query(Keys.runOrdersByStatus(runId, query.status), { index, limit: query.limit, cursor: query.cursor })
      : t.orders.query(Keys.runOrders(runId), { index, limit: query.limit, cursor: query.cursor }),
    t.blocks.orders(runId, async () => committed),
  ]);
  const after = sequenceOf(query.cursor, index) ?? -1;
  const carried = carriedOrders(state?.open).filter((o) => o.sequence > after && (!query.status || o.status === query.status));
  if (blocked.length === 0 && carried.length === 0) return { items: page.items.map(withoutSequence), cursor: page.cursor };
  // Every record of the run when it has blocks (its items a later change of an order of theirs), else the page's; the carried ones under them.
  const items = blocked.length > 0 ? await t.orders.queryAll(Keys.runOrders(runId), { index: "gsi1" }) : page.items;
  const byId = new Map<string, OrderItem>();
  for (const order of [...carried, ...blocked, ...items]) {
    const seen = byId.get(order.id);
    if (!seen || newer(order, Number.MAX_SAFE_INTEGER, seen, 0)) byId.set(order.id, order);
  }
  const listed = [...byId.values()].filter((o) => o.sequence > after && (!query.status || o.status === query.status)).sort((a, b) => a.sequence - b.sequence);
  const shown = listed.slice(0, query.limit);
  const more = listed.length > query.limit || (blocked.length === 0 && page.cursor !== undefined);
  const end = shown[shown.length - 1];
  return { items: shown.map(withoutSequence), cursor: more && end ? orderCursor(t.orders, end, index) : undefined };
}

/**
 * One order by id: its item; else the record its run's item carries (the run its id names),
 * the item read again when the run's no longer does (written as an item meanwhile); else the
 * record of a large save's blocks.
 */
export async function runOrder(t: RunTables, orderId: string) {
  const order = await t.orders.get(Keys.runOrder(orderId));
  if (order) return withoutSequence(order);
  const runId = runOfOrder(orderId);
  if (!runId) return undefined;
  const state = await t.states.get(Keys.runState(runId), { projection: ["open", "last_sequence"] });
  const carried = carriedOrders(state?.open).find((o) => o.id === orderId);
  if (carried) return withoutSequence(carried);
  const written = await t.orders.get(Keys.runOrder(orderId));
  if (written) return withoutSequence(written);
  const blocked = (await t.blocks.orders(runId, async () => state?.last_sequence ?? Number.MAX_SAFE_INTEGER)).find((o) => o.id === orderId);
  return blocked ? withoutSequence(blocked) : undefined;
}

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
