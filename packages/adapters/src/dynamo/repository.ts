import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  ExecuteStatementCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type QueryCommandInput,
} from "@aws-sdk/lib-dynamodb";
import { ConditionalCheckFailedException, TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import { DomainError } from "@tp/core/errors";
import { inParallel } from "@tp/core/in-parallel";
import type { Db } from "./db";
import { Table, type IndexName } from "./table";

/** A primary or index key: a partition and a sort value. */
export interface Key {
  pk: string;
  sk: string;
}

/**
 * How one entity maps onto the table: its primary key, the index keys that give its
 * access patterns, and an optional expiry. Key strings are built in `keys.ts` only.
 */
export interface EntityDefinition<T> {
  type: string;
  key: (item: T) => Key;
  indexes?: Partial<Record<IndexName, (item: T) => Key | undefined>>;
  /** Epoch seconds after which DynamoDB may delete the item. */
  expiresAt?: (item: T) => number | undefined;
}

export interface QueryOptions {
  /** Sort key begins with. */
  prefix?: string;
  /** Sort key between (inclusive). */
  between?: [string, string];
  limit?: number;
  cursor?: string;
  ascending?: boolean;
  /** Only these attributes (the result is a partial entity). */
  projection?: string[];
  /** A strongly consistent read (of the table; indexes have none). */
  consistent?: boolean;
}

export interface QueryPage<T> {
  items: T[];
  /** Opaque cursor for the next page; absent on the last page. */
  cursor?: string;
}

const KEY_ATTRIBUTES = new Set<string>([
  Table.partitionKey,
  Table.sortKey,
  Table.ttlAttribute,
  "_type",
  ...Object.values(Table.indexes).flatMap((index) => [index.partitionKey, index.sortKey]),
]);

export const Cursor = {
  encode(lastKey: Record<string, unknown> | undefined): string | undefined {
    return lastKey ? Buffer.from(JSON.stringify(lastKey)).toString("base64url") : undefined;
  },
  decode(cursor: string | undefined): Record<string, unknown> | undefined {
    if (!cursor) return undefined;
    try {
      const value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
      if (value && typeof value === "object" && !Array.isArray(value)) return value;
    } catch {
      // fall through to the domain error below
    }
    throw new DomainError(422, "INVALID_CURSOR", "The cursor is not one this service issued");
  },
};

/** Partition key values PartiQL takes in one `IN`. */
const PARTIQL_IN_PARTITIONS = 50;

/** The one repository pattern: typed get/put/update/delete/query for an entity on the single table. */
export class Repository<T extends object> {
  constructor(
    readonly db: Db,
    readonly definition: EntityDefinition<T>,
  ) {}

  /** The stored form of an item: its attributes plus the key, index and expiry attributes. */
  toItem(item: T): Record<string, unknown> {
    const stored: Record<string, unknown> = { ...item, _type: this.definition.type };
    const key = this.definition.key(item);
    stored[Table.partitionKey] = key.pk;
    stored[Table.sortKey] = key.sk;
    for (const [name, build] of Object.entries(this.definition.indexes ?? {})) {
      const indexKey = build?.(item);
      if (!indexKey) continue;
      const index = Table.indexes[name as IndexName];
      stored[index.partitionKey] = indexKey.pk;
      stored[index.sortKey] = indexKey.sk;
    }
    const expiresAt = this.definition.expiresAt?.(item);
    if (expiresAt !== undefined) stored[Table.ttlAttribute] = expiresAt;
    return stored;
  }

  /** Strips the storage attributes, leaving the entity. */
  fromItem(stored: Record<string, unknown>): T {
    const item: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(stored)) if (!KEY_ATTRIBUTES.has(name)) item[name] = value;
    return item as T;
  }

  /** The item at `key`; with `projection`, only those attributes of it (the others absent from what it answers). */
  async get(key: Key, options: { consistent?: boolean; projection?: string[] } = {}): Promise<T | undefined> {
    const result = await this.db.client.send(
      new GetCommand({
        TableName: this.db.tableName,
        Key: { [Table.partitionKey]: key.pk, [Table.sortKey]: key.sk },
        ConsistentRead: options.consistent ?? true,
        ...projectionOf(options.projection),
      }),
    );
    if (!result.Item || this.isExpired(result.Item)) return undefined;
    return this.fromItem(result.Item);
  }

  /** Reads many keys in one round trip per 100 keys. Missing items are left out. */
  async getMany(keys: Key[]): Promise<T[]> {
    const stored = await batchGetStored(this.db, keys);
    return stored.filter((item) => !this.isExpired(item)).map((item) => this.fromItem(item));
  }

  /** Writes the item. With `ifAbsent`, fails with `conflict` when the key already exists. */
  async put(item: T, options: { ifAbsent?: boolean; conflict?: () => DomainError } = {}): Promise<T> {
    try {
      await this.db.client.send(
        new PutCommand({
          TableName: this.db.tableName,
          Item: this.toItem(item),
          ...(options.ifAbsent ? { ConditionExpression: `attribute_not_exists(${Table.partitionKey})` } : {}),
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException && options.conflict) throw options.conflict();
      throw error;
    }
    return item;
  }

  /**
   * Replaces a stored item only if the named attribute still has the expected value
   * (optimistic concurrency), failing with `conflict` otherwise.
   */
  async replaceIf(item: T, attribute: keyof T & string, expected: unknown, conflict: () => DomainError): Promise<T> {
    try {
      await this.db.client.send(
        new PutCommand({
          TableName: this.db.tableName,
          Item: this.toItem(item),
          ConditionExpression: "#attribute = :expected",
          ExpressionAttributeNames: { "#attribute": attribute },
          ExpressionAttributeValues: { ":expected": expected },
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) throw conflict();
      throw error;
    }
    return item;
  }

  /**
   * Replaces `from` by `to` (their keys differ) in one transaction that requires `from` to
   * still exist; false when someone else moved or deleted it first.
   */
  moveIfPresent(from: T, to: T): Promise<boolean> {
    return transactIfUnchanged(this.db, [{ delete: this.definition.key(from), ifPresent: true }, { put: this.toItem(to) }]);
  }

  /**
   * Adds `by` to a numeric attribute (creating the item when absent) and returns the new item; with
   * `below`, only while the attribute is below it (undefined otherwise, nothing written).
   */
  increment(key: Key, attribute: string, by: number, set?: Record<string, unknown>): Promise<T>;
  increment(key: Key, attribute: string, by: number, set: Record<string, unknown>, below: number): Promise<T | undefined>;
  async increment(key: Key, attribute: string, by: number, set: Record<string, unknown> = {}, below?: number): Promise<T | undefined> {
    const names: Record<string, string> = { "#counter": attribute, "#type": "_type" };
    const values: Record<string, unknown> = { ":by": by, ":zero": 0, ":type": this.definition.type };
    const assignments = ["#counter = if_not_exists(#counter, :zero) + :by", "#type = :type"];
    Object.entries(set).forEach(([name, value], index) => {
      names[`#s${index}`] = name;
      values[`:s${index}`] = value;
      assignments.push(`#s${index} = :s${index}`);
    });
    if (below !== undefined) values[":below"] = below;
    try {
      const result = await this.db.client.send(
        new UpdateCommand({
          TableName: this.db.tableName,
          Key: { [Table.partitionKey]: key.pk, [Table.sortKey]: key.sk },
          UpdateExpression: `SET ${assignments.join(", ")}`,
          ConditionExpression: below === undefined ? undefined : "attribute_not_exists(#counter) OR #counter < :below",
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: "ALL_NEW",
        }),
      );
      return this.fromItem(result.Attributes ?? {});
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw error;
    }
  }

  /** Writes many items (unconditional puts), 25 per request, retrying what DynamoDB leaves unprocessed. */
  async putMany(items: T[]): Promise<void> {
    await batchWrite(
      this.db,
      items.map((item) => ({ PutRequest: { Item: this.toItem(item) } })),
    );
  }

  /** Deletes many keys, 25 per request. */
  async deleteMany(keys: Key[]): Promise<void> {
    await batchWrite(
      this.db,
      keys.map((key) => ({ DeleteRequest: { Key: { [Table.partitionKey]: key.pk, [Table.sortKey]: key.sk } } })),
    );
  }

  /** Deletes and returns the old item, or undefined when there was none (atomic: single-use items rely on it). */
  async delete(key: Key): Promise<T | undefined> {
    const result = await this.db.client.send(
      new DeleteCommand({
        TableName: this.db.tableName,
        Key: { [Table.partitionKey]: key.pk, [Table.sortKey]: key.sk },
        ReturnValues: "ALL_OLD",
      }),
    );
    if (!result.Attributes || this.isExpired(result.Attributes)) return undefined;
    return this.fromItem(result.Attributes);
  }

  /** One page of a partition, on the table or on an index, in sort-key order. */
  async query(partition: string, options: QueryOptions & { index?: IndexName } = {}): Promise<QueryPage<T>> {
    const keyNames = options.index
      ? { pk: Table.indexes[options.index].partitionKey, sk: Table.indexes[options.index].sortKey }
      : { pk: Table.partitionKey, sk: Table.sortKey };
    const input: QueryCommandInput = {
      TableName: this.db.tableName,
      IndexName: options.index ? Table.indexes[options.index].name : undefined,
      KeyConditionExpression: "#pk = :pk",
      ExpressionAttributeNames: { "#pk": keyNames.pk },
      ExpressionAttributeValues: { ":pk": partition },
      ScanIndexForward: options.ascending ?? true,
      Limit: options.limit,
      ExclusiveStartKey: Cursor.decode(options.cursor),
      ConsistentRead: options.consistent,
    };
    if (options.prefix !== undefined) {
      input.KeyConditionExpression += " AND begins_with(#sk, :prefix)";
      input.ExpressionAttributeNames!["#sk"] = keyNames.sk;
      input.ExpressionAttributeValues![":prefix"] = options.prefix;
    } else if (options.between) {
      input.KeyConditionExpression += " AND #sk BETWEEN :from AND :to";
      input.ExpressionAttributeNames!["#sk"] = keyNames.sk;
      input.ExpressionAttributeValues![":from"] = options.between[0];
      input.ExpressionAttributeValues![":to"] = options.between[1];
    }
    if (options.projection) {
      const projected = projectionOf(options.projection);
      Object.assign(input.ExpressionAttributeNames!, projected.ExpressionAttributeNames);
      input.ProjectionExpression = projected.ProjectionExpression;
    }
    const result = await this.db.client.send(new QueryCommand(input));
    const items = (result.Items ?? []).filter((stored) => !this.isExpired(stored)).map((stored) => this.fromItem(stored));
    return { items, cursor: Cursor.encode(result.LastEvaluatedKey) };
  }

  /** Every item of a partition, following cursors; for bounded partitions only. */
  async queryAll(partition: string, options: Omit<QueryOptions, "cursor" | "limit"> & { index?: IndexName } = {}) {
    const items: T[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.query(partition, { ...options, cursor });
      items.push(...page.items);
      cursor = page.cursor;
    } while (cursor);
    return items;
  }

  /**
   * Every item of many partitions (bounded ones) of the table or an index, read together: PartiQL's
   * `IN` on the partition key, up to 50 partitions a statement (the statements sent together),
   * following its pages. One request (or a few) where `queryAll` per partition would send one each.
   */
  async queryPartitions(partitions: readonly string[], options: { index?: IndexName } = {}): Promise<T[]> {
    const source = options.index ? `"${this.db.tableName}"."${Table.indexes[options.index].name}"` : `"${this.db.tableName}"`;
    const key = options.index ? Table.indexes[options.index].partitionKey : Table.partitionKey;
    const chunks: string[][] = [];
    for (let start = 0; start < partitions.length; start += PARTIQL_IN_PARTITIONS) chunks.push(partitions.slice(start, start + PARTIQL_IN_PARTITIONS));
    // The statements side by side, each following its own pages.
    const found = await Promise.all(
      chunks.map(async (chunk) => {
        const items: T[] = [];
        const Statement = `SELECT * FROM ${source} WHERE "${key}" IN [${chunk.map(() => "?").join(", ")}]`;
        let NextToken: string | undefined;
        do {
          const result = await this.db.client.send(new ExecuteStatementCommand({ Statement, Parameters: chunk, NextToken, ConsistentRead: !options.index }));
          items.push(...(result.Items ?? []).filter((stored) => !this.isExpired(stored)).map((stored) => this.fromItem(stored)));
          NextToken = result.NextToken;
        } while (NextToken);
        return items;
      }),
    );
    return found.flat();
  }

  /** DynamoDB deletes expired items lazily (within days), so reads must ignore them. */
  isExpired(stored: Record<string, unknown>): boolean {
    const ttl = stored[Table.ttlAttribute];
    return typeof ttl === "number" && ttl * 1000 <= Date.now();
  }

  /** Whether a stored item (with its key attributes) is at this key. */
  static isAt(stored: Record<string, unknown>, key: Key): boolean {
    return stored[Table.partitionKey] === key.pk && stored[Table.sortKey] === key.sk;
  }
}

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

type WriteRequest = { PutRequest: { Item: Record<string, unknown> } } | { DeleteRequest: { Key: Record<string, unknown> } };

/** Requests of a bulk or grouped write in flight at once: enough to keep the table busy, few enough not to be throttled. */
const BATCH_WRITE_CONCURRENCY = 8;

/** Items one TransactWriteItems takes, and the bytes packed into one: well under the 4 MB a transaction may carry. */
export const TRANSACTION_ITEMS = 100;
const TRANSACTION_BYTES = 3_000_000;

/** An item's size, near enough to keep a transaction under its limit (strings and binaries dominate). */
function approximateBytes(value: unknown): number {
  if (typeof value === "string") return value.length * 3;
  if (value instanceof Uint8Array) return value.byteLength;
  if (Array.isArray(value)) return value.reduce((sum: number, v) => sum + approximateBytes(v), 8);
  if (value !== null && typeof value === "object") return Object.entries(value).reduce((sum, [k, v]) => sum + k.length + approximateBytes(v), 8);
  return 16;
}

/** Units (an item, or a group of items that go together) packed in order into as few transactions as hold them, a unit never split. */
function packed<U>(units: readonly U[], itemsOf: (unit: U) => number, bytesOf: (unit: U) => number): U[][] {
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

async function batchWrite(db: Db, requests: WriteRequest[]): Promise<void> {
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

/** One step of an all-or-nothing write. */
export type TransactionStep =
  | {
      put: Record<string, unknown>;
      /** Only if no item has this key. */
      ifAbsent?: boolean;
      /** Only if the stored item's `version` equals this (optimistic concurrency). */
      ifVersion?: number;
      /** Only if no item has this key or its `version` is below this (a copy never replaces a newer one). */
      ifOlder?: number;
      onConflict?: () => DomainError;
    }
  | {
      delete: Key;
      /** Only if the stored item's attribute has this value. */
      ifOwnedBy?: { attribute: string; value: unknown };
      /** With `ifOwnedBy`: an item that is already gone is fine too. */
      allowAbsent?: boolean;
      /** Only if the item exists. */
      ifPresent?: boolean;
    };

interface Condition {
  ConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
}

function condition(step: TransactionStep): Condition {
  if ("put" in step) {
    if (step.ifAbsent) return { ConditionExpression: `attribute_not_exists(${Table.partitionKey})` };
    if (step.ifVersion !== undefined) {
      return {
        ConditionExpression: "#version = :version",
        ExpressionAttributeNames: { "#version": "version" },
        ExpressionAttributeValues: { ":version": step.ifVersion },
      };
    }
    if (step.ifOlder !== undefined) {
      return {
        ConditionExpression: `attribute_not_exists(${Table.partitionKey}) OR #version < :version`,
        ExpressionAttributeNames: { "#version": "version" },
        ExpressionAttributeValues: { ":version": step.ifOlder },
      };
    }
    return {};
  }
  if (step.ifPresent) return { ConditionExpression: `attribute_exists(${Table.partitionKey})` };
  if (!step.ifOwnedBy) return {};
  return {
    ConditionExpression: step.allowAbsent ? `attribute_not_exists(#pk) OR #owner = :owner` : "#owner = :owner",
    ExpressionAttributeNames: { "#owner": step.ifOwnedBy.attribute, ...(step.allowAbsent ? { "#pk": Table.partitionKey } : {}) },
    ExpressionAttributeValues: { ":owner": step.ifOwnedBy.value },
  };
}

/**
 * Runs steps as one TransactWriteItems call. When a condition fails, the failing step's
 * `onConflict` names the error (which unique value was taken, for instance); without one the
 * SDK's TransactionCanceledException is thrown.
 */
export async function transact(db: Db, steps: TransactionStep[]): Promise<void> {
  try {
    await sendSteps(db, steps);
  } catch (error) {
    const step = steps[0]!;
    if (steps.length === 1 && error instanceof ConditionalCheckFailedException && "put" in step && step.onConflict) throw step.onConflict();
    if (error instanceof TransactionCanceledException) {
      const reasons = error.CancellationReasons ?? [];
      const failed = reasons.findIndex((reason) => reason.Code === "ConditionalCheckFailed");
      const step = steps[failed];
      if (step && "put" in step && step.onConflict) throw step.onConflict();
    }
    throw error;
  }
}

/**
 * The steps as one write: a single step as a plain PutItem or DeleteItem with its condition
 * (DynamoDB bills an item written in a transaction twice: docs/aws-costs.md), more as one
 * TransactWriteItems; the SDK's errors as they are.
 */
function sendSteps(db: Db, steps: TransactionStep[]) {
  if (steps.length !== 1) return sendTransaction(db, steps);
  const step = steps[0]!;
  return "put" in step
    ? db.client.send(new PutCommand({ TableName: db.tableName, Item: step.put, ...condition(step) }))
    : db.client.send(
        new DeleteCommand({ TableName: db.tableName, Key: { [Table.partitionKey]: step.delete.pk, [Table.sortKey]: step.delete.sk }, ...condition(step) }),
      );
}

/** The steps as one TransactWriteItems call, the SDK's errors as they are. */
function sendTransaction(db: Db, steps: TransactionStep[]) {
  return db.client.send(
    new TransactWriteCommand({
      TransactItems: steps.map((step) =>
        "put" in step
          ? { Put: { TableName: db.tableName, Item: step.put, ...condition(step) } }
          : {
              Delete: {
                TableName: db.tableName,
                Key: { [Table.partitionKey]: step.delete.pk, [Table.sortKey]: step.delete.sk },
                ...condition(step),
              },
            },
      ),
    }),
  );
}

/** Whether an error is a transaction cancelled because one of its conditions failed. */
const conditionFailed = (error: unknown) =>
  error instanceof ConditionalCheckFailedException ||
  (error instanceof TransactionCanceledException && (error.CancellationReasons ?? []).some((reason) => reason.Code === "ConditionalCheckFailed"));

/**
 * Writes groups of steps, each group all or nothing and conditional on its own steps (one run's
 * save, one session's feed records), packed together into as few TransactWriteItems as hold them
 * (a group of more than `TRANSACTION_ITEMS` steps is the caller's to split). Per group, in order:
 * true when written, false when one of its conditions failed (another writer got there first), or
 * the error that kept it from being written. A transaction cancelled by some groups' conditions
 * names their items in its cancellation reasons: those groups lost, and the others of it are sent
 * again without them. One that fails otherwise (a conflict with another transaction in flight) is
 * sent again group by group, so each group gets its own outcome.
 */
export async function transactGroups(db: Db, groups: readonly TransactionStep[][]): Promise<PromiseSettledResult<boolean>[]> {
  const outcomes: PromiseSettledResult<boolean>[] = groups.map(() => ({ status: "rejected", reason: new Error("not written") }));
  // A group of one step is written alone, as a plain conditional write (billed once, not twice as in a transaction).
  const singles = groups.flatMap((group, index) => (group.length === 1 ? [index] : []));
  const packs = packed(
    groups.flatMap((group, index) => (group.length === 1 ? [] : [index])),
    (index) => groups[index]!.length,
    (index) => groups[index]!.reduce((sum, step) => sum + approximateBytes("put" in step ? step.put : step.delete), 0),
  );
  await inParallel(packs, BATCH_WRITE_CONCURRENCY, async (pack) => {
    let left = pack;
    while (left.length > 1) {
      try {
        await sendTransaction(
          db,
          left.flatMap((index) => groups[index]!),
        );
        for (const index of left) outcomes[index] = { status: "fulfilled", value: true };
        return;
      } catch (error) {
        if (!conditionFailed(error)) break;
        // The cancellation's reasons are the transaction's items in order: the groups owning a failed one lost.
        const reasons = (error as TransactionCanceledException).CancellationReasons!;
        const lost = new Set<number>();
        let offset = 0;
        for (const index of left) {
          const size = groups[index]!.length;
          if (reasons.slice(offset, offset + size).some((reason) => reason.Code === "ConditionalCheckFailed")) lost.add(index);
          offset += size;
        }
        if (lost.size === 0) break;
        for (const index of lost) outcomes[index] = { status: "fulfilled", value: false };
        left = left.filter((index) => !lost.has(index));
      }
    }
    const alone = await Promise.allSettled(left.map((index) => transactIfUnchanged(db, groups[index]!)));
    for (const [at, index] of left.entries()) outcomes[index] = alone[at]!;
  });
  await inParallel(singles, BATCH_WRITE_CONCURRENCY, async (index) => {
    [outcomes[index]] = await Promise.allSettled([transactIfUnchanged(db, groups[index]!)]);
  });
  return outcomes;
}

/** `transact` for optimistic writers: false when a condition failed (someone else wrote first). */
export async function transactIfUnchanged(db: Db, steps: TransactionStep[]): Promise<boolean> {
  try {
    await transact(db, steps);
    return true;
  } catch (error) {
    if (conditionFailed(error)) return false;
    throw error;
  }
}

/** A request's projection of `names` (and the TTL attribute, which expiry looks at), with its attribute names as placeholders. */
function projectionOf(names: string[] | undefined): { ProjectionExpression?: string; ExpressionAttributeNames?: Record<string, string> } {
  if (!names) return {};
  const all = [...names, Table.ttlAttribute];
  return {
    ProjectionExpression: all.map((_, index) => `#p${index}`).join(", "),
    ExpressionAttributeNames: Object.fromEntries(all.map((name, index) => [`#p${index}`, name])),
  };
}
