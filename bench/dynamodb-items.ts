/**
 * What an item written costs DynamoDB Local, by the shape of the write: the emulator's CPU time per
 * item (the Java process, from /proc) and the wall time per item, the requests sent one after
 * another into the service's own table (its two indexes), after an untimed pass of every row. The
 * session worker's and the commands' figures (bench/session.ts) are mostly this times the items
 * they write (its "Items written" table).
 *
 *   npx tsx bench/dynamodb-items.ts             (about a minute)
 *   npx tsx bench/dynamodb-items.ts --markdown  (the table as Markdown, for docs/benchmarks.md)
 */
import { BatchWriteCommand, TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { createDb, ensureTable } from "../packages/adapters/src/dynamo/db";
import { startDynamoDbLocal } from "../packages/local/src/dynamodb-local";
import { cpuSecondsOf } from "./support/process-cpu";
import { showTable } from "./support/table";

const markdown = process.argv.includes("--markdown");
const fields = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`field_${i}`, i % 2 ? `value ${i}` : i * 1.5]));

/** The shapes measured: what each item holds besides its key. */
const SHAPES: Record<string, () => Record<string, unknown>> = {
  "4 attributes": () => ({}),
  "4 attributes, both index keys": () => ({ gsi1pk: `G1#${n % 100}`, gsi1sk: `s${n}`, gsi2pk: `G2#${n % 10}`, gsi2sk: `s${n}` }),
  "25 more attributes": () => ({ ...fields }),
  "a map of 25 attributes": () => ({ data: fields }),
  "the same 25 as JSON text": () => ({ data: JSON.stringify(fields) }),
  "2 KB of text": () => ({ data: "x".repeat(2_000) }),
  "20 KB of text": () => ({ data: "x".repeat(20_000) }),
};

/** The requests measured: how the items are sent. */
const WRITES: { name: string; shape: string; perRequest: number; transaction: boolean }[] = [
  { name: "TransactWriteItems of 100", shape: "4 attributes", perRequest: 100, transaction: true },
  { name: "TransactWriteItems of 100", shape: "4 attributes, both index keys", perRequest: 100, transaction: true },
  { name: "TransactWriteItems of 100", shape: "25 more attributes", perRequest: 100, transaction: true },
  { name: "TransactWriteItems of 100", shape: "a map of 25 attributes", perRequest: 100, transaction: true },
  { name: "TransactWriteItems of 100", shape: "the same 25 as JSON text", perRequest: 100, transaction: true },
  { name: "TransactWriteItems of 100", shape: "2 KB of text", perRequest: 100, transaction: true },
  { name: "TransactWriteItems of 10", shape: "4 attributes, both index keys", perRequest: 10, transaction: true },
  { name: "TransactWriteItems of 1", shape: "4 attributes, both index keys", perRequest: 1, transaction: true },
  { name: "TransactWriteItems of 1", shape: "20 KB of text", perRequest: 1, transaction: true },
  { name: "BatchWriteItem of 25", shape: "4 attributes", perRequest: 25, transaction: false },
  { name: "BatchWriteItem of 25", shape: "4 attributes, both index keys", perRequest: 25, transaction: false },
];
/** Items per row. */
const ITEMS = 4_000;

let n = 0;
const dynamo = await startDynamoDbLocal();
const rows: Record<string, string>[] = [];
try {
  const db = createDb({ tableName: "bench-items", endpoint: dynamo.endpoint });
  await ensureTable(db);
  const item = (shape: string) => ({ pk: `BENCH#${++n % 100}`, sk: `ITEM#${n}`, _type: "BenchItem", ...SHAPES[shape]!() });
  const send = async ({ perRequest, transaction, shape }: (typeof WRITES)[number]) => {
    const items = Array.from({ length: perRequest }, () => item(shape));
    if (transaction) await db.client.send(new TransactWriteCommand({ TransactItems: items.map((Item) => ({ Put: { TableName: db.tableName, Item } })) }));
    else await db.client.send(new BatchWriteCommand({ RequestItems: { [db.tableName]: items.map((Item) => ({ PutRequest: { Item } })) } }));
  };
  // An untimed pass of every row first: DynamoDB Local's JIT compiles its write path meanwhile.
  for (const write of WRITES) for (let i = 0; i < Math.ceil(ITEMS / write.perRequest); i++) await send(write);
  for (const write of WRITES) {
    const requests = Math.ceil(ITEMS / write.perRequest);
    const [cpuBefore, started] = [cpuSecondsOf(dynamo.process.pid)!, performance.now()];
    for (let i = 0; i < requests; i++) await send(write);
    const items = requests * write.perRequest;
    rows.push({
      request: write.name,
      item: write.shape,
      "DynamoDB Local CPU ms / item": (((cpuSecondsOf(dynamo.process.pid)! - cpuBefore) * 1000) / items).toFixed(3),
      "wall ms / item": ((performance.now() - started) / items).toFixed(3),
    });
  }
} finally {
  await dynamo.stop();
}

const title = `DynamoDB Local: the cost of an item written (${ITEMS} items a row, one request at a time)`;
showTable(title, rows, markdown);
