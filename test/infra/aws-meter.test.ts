import { randomUUID } from "node:crypto";
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
} from "@aws-sdk/lib-dynamodb";
import { beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { batchWrite } from "../../packages/adapters/src/dynamo/batches";
import { createDb, ensureTable, type Db } from "../../packages/adapters/src/dynamo/db";
import { AWS_PRICES, AwsMeter, itemBytes, numberBytes, SESSION_MONTH, sessionMonth, valueBytes } from "../../bench/support/aws-meter";

// bench/support/aws-meter.ts prices requests by AWS's rules (docs/aws-costs.md); DynamoDB Local's
// own ConsumedCapacity is checked beside it where the two agree, and where they do not the
// emulator's figure is named.

let db: Db;
let meter: AwsMeter;

beforeAll(async () => {
  db = createDb({ tableName: `test-${randomUUID()}`, endpoint: inject("dynamoEndpoint") });
  await ensureTable(db);
  meter = AwsMeter.attach(db, { keepCharges: true });
});

const T = () => db.tableName;
let keys = 0;
/** A fresh partition key. */
const fresh = (prefix = "TEST") => `${prefix}#${++keys}`;

/** `item` with a `data` string that makes it exactly `bytes` as DynamoDB counts them. */
function sized(item: Record<string, unknown>, bytes: number): Record<string, unknown> {
  const base = itemBytes({ ...item, data: "" });
  return { ...item, data: "x".repeat(bytes - base) };
}

/** Sends `command` asking the emulator for its consumed capacity; the meter's price of it and the emulator's. */
async function priced(command: any): Promise<{ output: any; wru: number; rru: number; emulator: any }> {
  command.input.ReturnConsumedCapacity = "INDEXES";
  const output: any = await db.client.send(command);
  meter.settle();
  const charge = meter.charges.at(-1)!;
  const consumed = Array.isArray(output.ConsumedCapacity) ? output.ConsumedCapacity[0] : output.ConsumedCapacity;
  return { output, wru: charge.wru, rru: charge.rru, emulator: consumed };
}

describe("item sizes as DynamoDB counts them", () => {
  it("counts names and values: strings in UTF-8, binaries raw, numbers by digit pairs, lists and maps with their overhead", () => {
    expect(itemBytes({ pk: "A" })).toBe(3);
    expect(itemBytes({ naïve: "é" })).toBe(6 + 2);
    expect(valueBytes(new Uint8Array(10))).toBe(10);
    expect(valueBytes(true)).toBe(1);
    expect(valueBytes(null)).toBe(1);
    // Numbers: one byte per pair of significant digits (pairs aligned on the point), one more, one more when negative.
    expect(numberBytes("0")).toBe(1);
    expect(numberBytes("1")).toBe(2);
    expect(numberBytes("100")).toBe(2);
    expect(numberBytes("12345")).toBe(4);
    expect(numberBytes("-1")).toBe(3);
    expect(numberBytes("1.5")).toBe(3);
    expect(numberBytes("0.005")).toBe(2);
    expect(numberBytes("123.456")).toBe(5);
    expect(valueBytes(1e21)).toBe(2);
    expect(valueBytes(1710509400000)).toBe(6);
    // A list or a map: 3 bytes, and one per element (a map's element names too).
    expect(valueBytes([])).toBe(3);
    expect(valueBytes([1, "ab"])).toBe(3 + (1 + 2) + (1 + 2));
    expect(valueBytes({ a: 1 })).toBe(3 + 1 + 1 + 2);
    expect(itemBytes({ pk: "A", gone: undefined })).toBe(3);
  });

  it("puts an item of exactly 1,024 bytes in one write unit and one of 1,025 in two, as DynamoDB Local counts it too", async () => {
    const shape = { sk: "S", n: -123.456, when: 1710509400000, flags: [true, null, 7], nested: { a: "b", list: [1, 2, 3] }, bin: new Uint8Array(17) };
    for (const [bytes, units] of [
      [1024, 1],
      [1025, 2],
      [4096, 4],
    ] as const) {
      const item = sized({ pk: fresh(), ...shape }, bytes);
      expect(itemBytes(item)).toBe(bytes);
      const { wru, emulator } = await priced(new PutCommand({ TableName: T(), Item: item }));
      expect(wru).toBe(units);
      expect(emulator.CapacityUnits).toBe(units);
    }
  });
});

describe("write request units", () => {
  it("prices a 1.5 KB put at 2 WRU, and at 4 in a transaction (DynamoDB Local reports 8 there)", async () => {
    const put = await priced(new PutCommand({ TableName: T(), Item: sized({ pk: fresh(), sk: "S" }, 1536) }));
    expect(put.wru).toBe(2);
    expect(put.emulator.CapacityUnits).toBe(2);
    const inTransaction = await priced(new TransactWriteCommand({ TransactItems: [{ Put: { TableName: T(), Item: sized({ pk: fresh(), sk: "S" }, 1536) } }] }));
    expect(inTransaction.wru).toBe(4);
    // The emulator doubles a transaction's units twice; AWS bills two units per KB of each item.
    expect(inTransaction.emulator.CapacityUnits).toBe(8);
  });

  it("adds one write per index entry, two when the item's index key moves, and none for an index the item is not in", async () => {
    const pk = fresh();
    const small = { pk, sk: "S", gsi1pk: "G#1", gsi1sk: "1", data: "x" };
    const entering = await priced(new PutCommand({ TableName: T(), Item: small }));
    expect(entering.wru).toBe(2);
    expect(entering.emulator.GlobalSecondaryIndexes.gsi1.CapacityUnits).toBe(1);
    const both = await priced(new PutCommand({ TableName: T(), Item: { ...small, pk: fresh(), gsi2pk: "H#1", gsi2sk: "1" } }));
    expect(both.wru).toBe(3);
    const moved = await priced(new PutCommand({ TableName: T(), Item: { ...small, gsi1sk: "2" } }));
    expect(moved.wru).toBe(3);
    expect(moved.emulator.GlobalSecondaryIndexes.gsi1.CapacityUnits).toBe(2);
    const stayed = await priced(new PutCommand({ TableName: T(), Item: { ...small, gsi1sk: "2", data: "y" } }));
    expect(stayed.wru).toBe(2);
    const sparse = await priced(new PutCommand({ TableName: T(), Item: { pk: fresh(), sk: "S", gsi1pk: "G#1" } }));
    expect(sparse.wru).toBe(1);
    // A 1.5 KB item's index entry is 1.5 KB too (the indexes project every attribute).
    const large = await priced(new PutCommand({ TableName: T(), Item: sized({ pk: fresh(), sk: "S", gsi1pk: "G#2", gsi1sk: "1" }, 1536) }));
    expect(large.wru).toBe(4);
    expect(large.emulator.CapacityUnits).toBe(4);
    // In a transaction the table's arm doubles, the index entry does not (DynamoDB Local doubles both, twice).
    const transactional = await priced(
      new TransactWriteCommand({ TransactItems: [{ Put: { TableName: T(), Item: sized({ pk: fresh(), sk: "S", gsi1pk: "G#3", gsi1sk: "1" }, 1536) } }] }),
    );
    expect(transactional.wru).toBe(2 * 2 + 2);
    expect(transactional.emulator.CapacityUnits).toBe(16);
  });

  it("prices a write over an item at the larger of the two, a delete at the item deleted with its index entries", async () => {
    const pk = fresh();
    await db.client.send(new PutCommand({ TableName: T(), Item: sized({ pk, sk: "S", gsi1pk: "G#4", gsi1sk: "1" }, 1536) }));
    const smaller = await priced(new PutCommand({ TableName: T(), Item: { pk, sk: "S", gsi1pk: "G#4", gsi1sk: "1" } }));
    expect(smaller.wru).toBe(2 + 1);
    expect(smaller.emulator.Table.CapacityUnits).toBe(2);
    await db.client.send(new PutCommand({ TableName: T(), Item: sized({ pk, sk: "S", gsi1pk: "G#4", gsi1sk: "1" }, 1536) }));
    const deleted = await priced(new DeleteCommand({ TableName: T(), Key: { pk, sk: "S" }, ReturnValues: "ALL_OLD" }));
    expect(deleted.wru).toBe(2 + 2);
    expect(deleted.emulator.CapacityUnits).toBe(4);
    const absent = await priced(new DeleteCommand({ TableName: T(), Key: { pk, sk: "S" } }));
    expect(absent.wru).toBe(1);
    // In a transaction the deleted item is sized from what the meter saw written (DynamoDB Local: 8).
    const other = fresh();
    await db.client.send(new PutCommand({ TableName: T(), Item: sized({ pk: other, sk: "S" }, 1536) }));
    const transactional = await priced(new TransactWriteCommand({ TransactItems: [{ Delete: { TableName: T(), Key: { pk: other, sk: "S" } } }] }));
    expect(transactional.wru).toBe(4);
    expect(transactional.emulator.CapacityUnits).toBe(8);
  });

  it("prices an update at the larger of the item before and after it", async () => {
    const counter = await priced(
      new UpdateCommand({
        TableName: T(),
        Key: { pk: fresh(), sk: "S" },
        UpdateExpression: "SET #c = if_not_exists(#c, :zero) + :by",
        ExpressionAttributeNames: { "#c": "count" },
        ExpressionAttributeValues: { ":zero": 0, ":by": 1 },
        ReturnValues: "ALL_NEW",
      }),
    );
    expect(counter.wru).toBe(1);
    expect(counter.emulator.CapacityUnits).toBe(1);
    const pk = fresh();
    await db.client.send(new PutCommand({ TableName: T(), Item: sized({ pk, sk: "S" }, 1536) }));
    const update = await priced(
      new UpdateCommand({
        TableName: T(),
        Key: { pk, sk: "S" },
        UpdateExpression: "REMOVE #d SET #c = :one",
        ExpressionAttributeNames: { "#d": "data", "#c": "count" },
        ExpressionAttributeValues: { ":one": 1 },
        ReturnValues: "ALL_NEW",
      }),
    );
    expect(update.wru).toBe(2);
    expect(update.emulator.CapacityUnits).toBe(2);
  });

  it("prices a BatchWriteItem of 25 items item by item, each rounded up", async () => {
    const batch = await priced(
      new BatchWriteCommand({
        RequestItems: { [T()]: Array.from({ length: 25 }, (_, i) => ({ PutRequest: { Item: sized({ pk: fresh(), sk: String(i) }, 1536) } })) },
      }),
    );
    expect(batch.wru).toBe(50);
    expect(batch.emulator.CapacityUnits).toBe(50);
  });

  it("prices a bulk write sent to DynamoDB Local as transactions as the BatchWriteItem AWS is sent: once per item, not twice", async () => {
    const before = meter.charges.length;
    const items = Array.from({ length: 130 }, (_, i) => ({ PutRequest: { Item: sized({ pk: fresh(), sk: String(i) }, 1536) } }));
    await batchWrite(db, items);
    meter.settle();
    const charges = meter.charges.slice(before);
    // 130 items go to the emulator as two transactions (100 and 30 items), each priced as a BatchWriteItem.
    expect(charges.map((c) => c.command)).toEqual(["BatchWriteItem", "BatchWriteItem"]);
    expect(charges.reduce((sum, c) => sum + c.wru, 0)).toBe(260);
  });

  it("bills a failed condition at the item it found (one unit when none) without index entries, and counts a cancelled transaction apart", async () => {
    const pk = fresh();
    await db.client.send(new PutCommand({ TableName: T(), Item: { pk, sk: "S", gsi1pk: "G#5", gsi1sk: "1" } }));
    meter.reset();
    // A 1.5 KB put refused over a small item: the small item's unit, not the put's two.
    await expect(
      db.client.send(
        new PutCommand({ TableName: T(), Item: sized({ pk, sk: "S", gsi1pk: "G#5", gsi1sk: "1" }, 1536), ConditionExpression: "attribute_not_exists(pk)" }),
      ),
    ).rejects.toThrow();
    // A 1.5 KB put refused where there is no item: one unit.
    await expect(
      db.client.send(new PutCommand({ TableName: T(), Item: sized({ pk: fresh(), sk: "S" }, 1536), ConditionExpression: "attribute_exists(pk)" })),
    ).rejects.toThrow();
    await expect(
      db.client.send(
        new TransactWriteCommand({
          TransactItems: [{ Put: { TableName: T(), Item: sized({ pk, sk: "S" }, 1536), ConditionExpression: "attribute_not_exists(pk)" } }],
        }),
      ),
    ).rejects.toThrow();
    const report = meter.report();
    expect(report.wru).toBe(1 + 1);
    expect(report.cancelled).toEqual({ transactions: 1, wru: 4 });
  });
});

describe("read request units", () => {
  it("prices a Query of 10 × 1 KB items by their sum rounded up to 4 KB: 1.5 RRU eventually consistent, 3 strongly", async () => {
    const pk = fresh();
    for (let i = 0; i < 10; i++) await db.client.send(new PutCommand({ TableName: T(), Item: sized({ pk, sk: String(i) }, 1024) }));
    const query = (ConsistentRead: boolean) =>
      new QueryCommand({ TableName: T(), KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": pk }, ConsistentRead });
    const eventual = await priced(query(false));
    expect(eventual.output.Items).toHaveLength(10);
    expect(eventual.rru).toBe(1.5);
    expect(eventual.emulator.CapacityUnits).toBe(1.5);
    const strong = await priced(query(true));
    expect(strong.rru).toBe(3);
    expect(strong.emulator.CapacityUnits).toBe(3);
    // A projection answers less but reads the whole items.
    const projected = await priced(new QueryCommand({ ...query(false).input, ProjectionExpression: "#sk", ExpressionAttributeNames: { "#sk": "sk" } }));
    expect(projected.rru).toBe(1.5);
    // An empty Query costs its minimum (the emulator reports none).
    const empty = await priced(new QueryCommand({ TableName: T(), KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": fresh() } }));
    expect(empty.rru).toBe(0.5);
    expect(empty.emulator.CapacityUnits).toBe(0);
  });

  it("prices a strongly consistent GetItem of a 5 KB item at 2 RRU, an eventually consistent one at 1, an absent item at one unit", async () => {
    const pk = fresh();
    await db.client.send(new PutCommand({ TableName: T(), Item: sized({ pk, sk: "S" }, 5 * 1024) }));
    const strong = await priced(new GetCommand({ TableName: T(), Key: { pk, sk: "S" }, ConsistentRead: true }));
    expect(strong.rru).toBe(2);
    expect(strong.emulator.CapacityUnits).toBe(2);
    const eventual = await priced(new GetCommand({ TableName: T(), Key: { pk, sk: "S" } }));
    expect(eventual.rru).toBe(1);
    expect(eventual.emulator.CapacityUnits).toBe(1);
    const absent = await priced(new GetCommand({ TableName: T(), Key: { pk: fresh(), sk: "S" }, ConsistentRead: true }));
    expect(absent.rru).toBe(1);
    expect(absent.emulator.CapacityUnits).toBe(1);
  });

  it("prices a BatchGetItem key by key, each item rounded up to 4 KB", async () => {
    const [a, b] = [fresh(), fresh()];
    await db.client.send(new PutCommand({ TableName: T(), Item: sized({ pk: a, sk: "S" }, 1536) }));
    await db.client.send(new PutCommand({ TableName: T(), Item: sized({ pk: b, sk: "S" }, 6656) }));
    const batch = await priced(
      new BatchGetCommand({
        RequestItems: {
          [T()]: {
            Keys: [
              { pk: a, sk: "S" },
              { pk: b, sk: "S" },
              { pk: fresh(), sk: "S" },
            ],
            ConsistentRead: true,
          },
        },
      }),
    );
    // 1.5 KB → 4 KB, 6.5 KB → 8 KB: three units; the absent key one more (the emulator counts it as none).
    expect(batch.rru).toBe(1 + 2 + 1);
    expect(batch.emulator.CapacityUnits).toBe(3);
  });

  it("prices a PartiQL SELECT over an index's partitions as a Query of each (the emulator reports nothing)", async () => {
    await db.client.send(new PutCommand({ TableName: T(), Item: { pk: fresh(), sk: "S", gsi1pk: "TOPIC#a", gsi1sk: "1" } }));
    const statement = await priced(
      new ExecuteStatementCommand({ Statement: `SELECT * FROM "${T()}"."gsi1" WHERE "gsi1pk" IN [?, ?]`, Parameters: ["TOPIC#a", "TOPIC#none"] }),
    );
    expect(statement.output.Items).toHaveLength(1);
    expect(statement.rru).toBe(0.5 + 0.5);
    expect(statement.emulator).toBeUndefined();
  });
});

describe("the report", () => {
  it("sums by operation and by kind, prices in dollars, finds the partition key written most in a second and in a window, and the largest item", async () => {
    let clock = 0;
    const local = createDb({ tableName: db.tableName, endpoint: inject("dynamoEndpoint") });
    const timed = AwsMeter.attach(local, { now: () => clock });
    const hot = fresh("HOT");
    for (let i = 0; i < 4; i++) {
      clock = i * 400;
      await local.client.send(new PutCommand({ TableName: T(), Item: sized({ pk: hot, sk: String(i), _type: "Hot" }, 3000) }));
    }
    timed.window();
    clock = 5000;
    await local.client.send(new PutCommand({ TableName: T(), Item: { pk: fresh("COLD"), sk: "S", gsi1pk: "LIST#x", gsi1sk: "1" } }));
    await local.client.send(new GetCommand({ TableName: T(), Key: { pk: hot, sk: "0" }, ConsistentRead: true }));
    const report = timed.report();
    expect(report.requests).toBe(6);
    expect(report.wru).toBe(4 * 3 + 2);
    expect(report.rru).toBe(1);
    expect(report.dollars).toBeCloseTo(14 * AWS_PRICES.write + 1 * AWS_PRICES.read, 12);
    expect(report.byOperation).toEqual([
      ["PutItem", { requests: 5, items: 5, wru: 14, rru: 0 }],
      ["GetItem", { requests: 1, items: 1, wru: 0, rru: 1 }],
    ]);
    expect(Object.fromEntries(report.byKind)).toEqual({
      Hot: { requests: 0, items: 5, wru: 12, rru: 1 },
      COLD: { requests: 0, items: 1, wru: 2, rru: 0 },
    });
    // Writes at 0, 400 and 800 ms fall in one second (9 units); the fourth at 1,200 ms with the two before it.
    expect(report.busiestPerSecond).toEqual({ key: hot, wru: 9 });
    // 12 units over the 5 s from the attach to the report.
    expect(report.seconds).toBe(5);
    expect(report.busiestMean).toEqual({ key: hot, wru: 12 / 5 });
    expect(report.busiestPerWindow).toEqual({ key: hot, wru: 12 });
    // The largest item written: a 3,000-byte Hot item.
    expect(report.largestItem).toEqual({ kind: "Hot", key: hot, bytes: 3000 });
    timed.detach();
  });

  it("projects a session-month: 30 days of 390 one-minute bars, and the bookkeeping's units per second shared by the sessions", () => {
    expect(SESSION_MONTH).toEqual({ barsPerSession: 11_700, seconds: 2_592_000 });
    const month = sessionMonth({ wru: 2, rru: 0.5 }, { wru: 10, rru: 20 }, 100);
    expect(month.bars).toBeCloseTo(11_700 * (2 * 0.625 + 0.5 * 0.125) * 1e-6, 12);
    expect(month.bookkeeping).toBeCloseTo((2_592_000 * (10 * 0.625 + 20 * 0.125) * 1e-6) / 100, 12);
    expect(month.total).toBeCloseTo(month.bars + month.bookkeeping, 12);
  });
});
