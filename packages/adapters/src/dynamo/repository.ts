/**
 * The one repository pattern: `Repository`, typed get/put/update/delete/query of an entity on the
 * single table (its stored form, expiry ignored on reads), with the query options and pages it
 * answers and the opaque `Cursor` of those pages. Bulk reads and writes are in `batches.ts`,
 * all-or-nothing writes in `transactions.ts`, the entity's key and definition in `entity.ts`.
 */
import { DeleteCommand, ExecuteStatementCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand, type QueryCommandInput } from "@aws-sdk/lib-dynamodb";
import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import { DomainError } from "@tp/core/errors";
import { batchGetStored, batchWrite } from "./batches";
import type { Db } from "./db";
import type { EntityDefinition, Key } from "./entity";
import { Table, type IndexName } from "./table";
import { transactIfUnchanged } from "./transactions";

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

/** A request's projection of `names` (and the TTL attribute, which expiry looks at), with its attribute names as placeholders. */
function projectionOf(names: string[] | undefined): { ProjectionExpression?: string; ExpressionAttributeNames?: Record<string, string> } {
  if (!names) return {};
  const all = [...names, Table.ttlAttribute];
  return {
    ProjectionExpression: all.map((_, index) => `#p${index}`).join(", "),
    ExpressionAttributeNames: Object.fromEntries(all.map((name, index) => [`#p${index}`, name])),
  };
}
