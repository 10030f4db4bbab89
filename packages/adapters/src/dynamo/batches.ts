/**
 * Requests in batches: many keys read in one round trip per 100 (`batchGetStored`), many items
 * written or deleted 25 per BatchWriteItem with its unprocessed items retried (`batchWrite`; on
 * DynamoDB Local, packed into transactions instead), and the packing of writes into as few
 * TransactWriteItems as hold them (`packed`, `TRANSACTION_ITEMS`), which grouped transactions use too.
 */
import { BatchGetCommand, BatchWriteCommand, TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import type { Db } from "./db";
import type { Key } from "./entity";
import { Table } from "./table";

/**
 * Stored items (key attributes included) for keys of any entity types, in one round trip per
 * 100 keys; for reads that must see several entities together.
 */
export async function batchGetStored(db: Db, keys: Key[]): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  for (let start = 0; start < keys.length; start += 100) {
    let request: Record<string, { Keys: Record<string, unknown>[]; ConsistentRead?: boolean }> | undefined = {
      [db.tableName]: {
        Keys: keys.slice(start, start + 100).map((k) => ({ [Table.partitionKey]: k.pk, [Table.sortKey]: k.sk })),
        ConsistentRead: true,
      },
    };
    while (request && Object.keys(request).length > 0) {
      const result = await db.client.send(new BatchGetCommand({ RequestItems: request }));
      found.push(...(result.Responses?.[db.tableName] ?? []));
      request = result.UnprocessedKeys as typeof request;
    }
  }
  return found;
}

export type WriteRequest = { PutRequest: { Item: Record<string, unknown> } } | { DeleteRequest: { Key: Record<string, unknown> } };

/** Requests of a bulk or grouped write in flight at once: enough to keep the table busy, few enough not to be throttled. */
export const BATCH_WRITE_CONCURRENCY = 8;

/** Items one TransactWriteItems takes, and the bytes packed into one: well under the 4 MB a transaction may carry. */
export const TRANSACTION_ITEMS = 100;
export const TRANSACTION_BYTES = 3_000_000;

/** An item's size, near enough to keep a transaction under its limit (strings and binaries dominate). */
export function approximateBytes(value: unknown): number {
  if (typeof value === "string") return value.length * 3;
  if (value instanceof Uint8Array) return value.byteLength;
  if (Array.isArray(value)) return value.reduce((sum: number, v) => sum + approximateBytes(v), 8);
  if (value !== null && typeof value === "object") return Object.entries(value).reduce((sum, [k, v]) => sum + k.length + approximateBytes(v), 8);
  return 16;
}

/** Units (an item, or a group of items that go together) packed in order into as few transactions as hold them, a unit never split. */
export function packed<U>(units: readonly U[], itemsOf: (unit: U) => number, bytesOf: (unit: U) => number): U[][] {
  const packs: U[][] = [];
  let pack: U[] = [];
  let [items, bytes] = [0, 0];
  for (const unit of units) {
    const [count, size] = [itemsOf(unit), bytesOf(unit)];
    if (pack.length > 0 && (items + count > TRANSACTION_ITEMS || bytes + size > TRANSACTION_BYTES)) {
      packs.push(pack);
      pack = [];
      [items, bytes] = [0, 0];
    }
    pack.push(unit);
    items += count;
    bytes += size;
  }
  if (pack.length > 0) packs.push(pack);
  return packs;
}

/**
 * The inputs of the transactions that stand in for BatchWriteItem on DynamoDB Local: AWS is sent
 * BatchWriteItem for the same write and bills it so, once per item, which a meter of AWS's prices
 * (bench/support/aws-meter.ts) reads from here.
 */
export const emulatorBulkWrites = new WeakSet<object>();

/** Bulk writes on DynamoDB Local: transactions of many items, one commit each (item by item, a year's backtest events took tens of seconds on disk). */
async function transactionalWrite(db: Db, requests: WriteRequest[]): Promise<void> {
  const batches = packed(
    requests,
    () => 1,
    (request) => approximateBytes("PutRequest" in request ? request.PutRequest.Item : request.DeleteRequest.Key),
  );
  const TableName = db.tableName;
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      const items = batches[next++]!;
      const command = new TransactWriteCommand({
        TransactItems: items.map((r) =>
          "PutRequest" in r ? { Put: { TableName, Item: r.PutRequest.Item } } : { Delete: { TableName, Key: r.DeleteRequest.Key } },
        ),
      });
      emulatorBulkWrites.add(command.input);
      // Another writer's transaction on one of these items cancels this one: try again, as BatchWriteItem's unprocessed items are.
      for (let attempt = 0; ; attempt++) {
        try {
          await db.client.send(command);
          break;
        } catch (error) {
          const conflict =
            error instanceof TransactionCanceledException && (error.CancellationReasons ?? []).some((reason) => reason.Code === "TransactionConflict");
          if (!conflict || attempt >= 8) throw error;
          await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 25 * 2 ** attempt)));
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(BATCH_WRITE_CONCURRENCY, batches.length) }, worker));
}

export async function batchWrite(db: Db, requests: WriteRequest[]): Promise<void> {
  if (db.local) return transactionalWrite(db, requests);
  const batches: WriteRequest[][] = [];
  for (let start = 0; start < requests.length; start += 25) batches.push(requests.slice(start, start + 25));
  const writeOne = async (batch: WriteRequest[]) => {
    let pending = batch;
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 25 * 2 ** attempt)));
      const result = await db.client.send(new BatchWriteCommand({ RequestItems: { [db.tableName]: pending } }));
      pending = (result.UnprocessedItems?.[db.tableName] ?? []) as WriteRequest[];
    }
  };
  let next = 0;
  const worker = async () => {
    while (next < batches.length) await writeOne(batches[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(BATCH_WRITE_CONCURRENCY, batches.length) }, worker));
}
