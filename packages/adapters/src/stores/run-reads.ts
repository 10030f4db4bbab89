import { DomainError } from "@tp/core/errors";
import type { EventQuery, OrderStatus } from "@tp/core/trading/run/runs";
import { Keys } from "../dynamo/keys";
import { Cursor, type Repository } from "../dynamo/repository";
import { Table } from "../dynamo/table";
import { newer, type OrderItem } from "./run-blocks";
import { runOfOrder, withoutSequence, type RunTables } from "./run-item";

/**
 * Reading a run's events and orders (`DynamoRunStore.events`, `orders`, `order`): its log of event
 * blocks, its order items over the order records of its blocks, paged by sequence.
 */

/** The sequence a run committed last: a block past it is of a large save that never committed (`RunBlocks.events`). */
const committedOf = (t: RunTables, runId: string) => async () =>
  (await t.states.get(Keys.runState(runId), { projection: ["last_sequence"] }))?.last_sequence ?? Number.MAX_SAFE_INTEGER;

/** One page of the run's events, from its blocks, after the cursor's sequence. */
export async function runEvents(t: RunTables, runId: string, query: EventQuery) {
  const after = eventCursorSequence(query.cursor);
  const { events, more } = await t.blocks.events(runId, query, after, query.limit + 1, committedOf(t, runId));
  const items = events.slice(0, query.limit);
  const end = items[items.length - 1];
  return { items, cursor: (events.length > query.limit || more) && end ? Cursor.encode({ sequence: end.sequence }) : undefined };
}

/**
 * One page of the run's orders (by the sequence that created them): its order items, over the
 * records of its blocks when it has any (a later change of an order wins).
 */
export async function runOrders(t: RunTables, runId: string, query: { limit: number; cursor?: string; status?: OrderStatus }) {
  const index = query.status ? "gsi2" : "gsi1";
  const [page, blocked] = await Promise.all([
    query.status
      ? t.orders.query(Keys.runOrdersByStatus(runId, query.status), { index, limit: query.limit, cursor: query.cursor })
      : t.orders.query(Keys.runOrders(runId), { index, limit: query.limit, cursor: query.cursor }),
    t.blocks.orders(runId, committedOf(t, runId)),
  ]);
  if (blocked.length === 0) return { items: page.items.map(withoutSequence), cursor: page.cursor };
  // Every record of the run when it has blocks (its items a later change of an order of theirs).
  const after = orderCursorSequence(query.cursor, index) ?? -1;
  const items = await t.orders.queryAll(Keys.runOrders(runId), { index: "gsi1" });
  const byId = new Map<string, OrderItem>();
  for (const order of [...blocked, ...items]) {
    const seen = byId.get(order.id);
    if (!seen || newer(order, Number.MAX_SAFE_INTEGER, seen, 0)) byId.set(order.id, order);
  }
  const listed = [...byId.values()].filter((o) => o.sequence > after && (!query.status || o.status === query.status)).sort((a, b) => a.sequence - b.sequence);
  const shown = listed.slice(0, query.limit);
  const end = shown[shown.length - 1];
  return { items: shown.map(withoutSequence), cursor: listed.length > query.limit && end ? orderCursor(t.orders, end, index) : undefined };
}

/** One order by id: its item, else the record of its run's blocks (the run its id names). */
export async function runOrder(t: RunTables, orderId: string) {
  const order = await t.orders.get(Keys.runOrder(orderId));
  if (order) return withoutSequence(order);
  const runId = runOfOrder(orderId);
  if (!runId) return undefined;
  const blocked = (await t.blocks.orders(runId, committedOf(t, runId))).find((o) => o.id === orderId);
  return blocked ? withoutSequence(blocked) : undefined;
}

/** The sequence an events' cursor stands after. */
function eventCursorSequence(cursor: string | undefined): number | undefined {
  const key = Cursor.decode(cursor);
  if (!key) return undefined;
  if (!Number.isInteger(key.sequence)) throw new DomainError(422, "INVALID_CURSOR", "The cursor is not one this service issued");
  return key.sequence as number;
}

/** The sequence an orders' cursor stands after (its sort key on `index`). */
function orderCursorSequence(cursor: string | undefined, index: "gsi1" | "gsi2"): number | undefined {
  const key = Cursor.decode(cursor);
  if (!key) return undefined;
  const sortKey = key[Table.indexes[index].sortKey];
  const sequence = Number(sortKey);
  if (typeof sortKey !== "string" || !Number.isInteger(sequence)) throw new DomainError(422, "INVALID_CURSOR", "The cursor is not one this service issued");
  return sequence;
}

/** The cursor the orders' query would give after `order` (its keys on the table and on `index`): the blocks' pages and the items' share one shape. */
function orderCursor(orders: Repository<OrderItem>, order: OrderItem, index: "gsi1" | "gsi2") {
  const item = orders.toItem(order);
  const names: string[] = [Table.partitionKey, Table.sortKey, Table.indexes[index].partitionKey, Table.indexes[index].sortKey];
  return Cursor.encode(Object.fromEntries(names.map((name) => [name, item[name]])));
}
