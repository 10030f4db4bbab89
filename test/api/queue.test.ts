import { describe, expect, it } from "vitest";
import { createDb, ensureTable } from "../../packages/adapters/src/dynamo/db";
import { TableQueue } from "../../packages/adapters/src/queues/table-queue";
import { LocalQueueRunner, type QueueEvent } from "../../packages/local/src/queue-runner";
import { testConfig } from "../support/harness";

async function setup(options = { visibilityTimeoutMs: 30_000, maxReceives: 3 }) {
  const config = testConfig();
  const db = createDb({ tableName: config.tableName, endpoint: config.dynamoEndpoint });
  await ensureTable(db);
  let now = 1_000_000;
  const queue = new TableQueue(db, () => now, options);
  return { queue, advance: (ms: number) => (now += ms) };
}

describe("the table-backed local queue and its runner", () => {
  it("delivers SQS-shaped batches to the handler and deletes what succeeded", async () => {
    const { queue } = await setup();
    await queue.send("stock-import", { n: 1 });
    await queue.send("stock-import", { n: 2 });
    const seen: QueueEvent[] = [];
    const runner = new LocalQueueRunner(queue, {
      "stock-import": async (event) => {
        seen.push(event);
        return { batchItemFailures: [] };
      },
    });
    expect(await runner.drain("stock-import")).toBe(2);
    const records = seen.flatMap((event) => event.Records);
    expect(records.map((record) => JSON.parse(record.body).n).sort()).toEqual([1, 2]); // like SQS standard queues, no order promise
    expect(records[0]).toMatchObject({ eventSource: "aws:sqs", attributes: { ApproximateReceiveCount: "1" } });
    expect(await queue.depth("stock-import")).toEqual({ pending: 0, deadLetter: 0 });
  });

  it("redelivers a reported failure only after the visibility timeout, counting receives", async () => {
    const { queue, advance } = await setup();
    await queue.send("stock-import", { job: "flaky" });
    const receiveCounts: string[] = [];
    const runner = new LocalQueueRunner(queue, {
      "stock-import": async (event) => {
        receiveCounts.push(...event.Records.map((record) => record.attributes.ApproximateReceiveCount));
        return { batchItemFailures: receiveCounts.length < 2 ? event.Records.map((r) => ({ itemIdentifier: r.messageId })) : [] };
      },
    });
    expect(await runner.drain("stock-import")).toBe(1);
    expect(await runner.drain("stock-import")).toBe(0); // hidden while in flight
    advance(30_001);
    expect(await runner.drain("stock-import")).toBe(1);
    expect(receiveCounts).toEqual(["1", "2"]);
    expect(await queue.depth("stock-import")).toEqual({ pending: 0, deadLetter: 0 });
  });

  it("on start, takes back what its previous run left in flight, and leaves delayed messages delayed", async () => {
    const { queue } = await setup();
    await queue.send("stock-import", { job: "interrupted" });
    await queue.send("stock-import", { job: "later" }, { delaySeconds: 600 });
    // The previous run received the message and died before deleting it: hidden for the visibility timeout.
    expect(await queue.receive("stock-import", 10)).toHaveLength(1);
    expect(await queue.receive("stock-import", 10)).toHaveLength(0);
    const seen: string[] = [];
    const runner = new LocalQueueRunner(queue, {
      "stock-import": async (event) => {
        seen.push(...event.Records.map((record) => JSON.parse(record.body).job));
        return { batchItemFailures: [] };
      },
    });
    await runner.start();
    await expect.poll(() => seen, { timeout: 5_000 }).toEqual(["interrupted"]);
    await runner.stop();
    expect(await queue.depth("stock-import")).toEqual({ pending: 1, deadLetter: 0 });
  });

  it("moves a message that keeps failing to the dead-letter queue", async () => {
    const { queue, advance } = await setup();
    await queue.send("stock-import", { job: "poison" });
    const runner = new LocalQueueRunner(queue, {
      "stock-import": async () => {
        throw new Error("always fails");
      },
    });
    for (let round = 0; round < 4; round++) {
      await runner.drain("stock-import");
      advance(30_001);
    }
    expect(await queue.depth("stock-import")).toEqual({ pending: 0, deadLetter: 1 });
  });

  it("never hands one message to two concurrent pollers", async () => {
    const { queue } = await setup();
    await Promise.all(Array.from({ length: 8 }, (_, n) => queue.send("stock-import", { n })));
    const [a, b] = await Promise.all([queue.receive("stock-import", 8), queue.receive("stock-import", 8)]);
    const bodies = [...a!, ...b!].map((record) => JSON.parse(record.body).n).sort();
    expect(bodies).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it("holds a delayed message until its delay passes", async () => {
    const { queue, advance } = await setup();
    await queue.send("stock-import", { later: true }, { delaySeconds: 10 });
    expect(await queue.receive("stock-import")).toHaveLength(0);
    advance(10_000);
    expect(await queue.receive("stock-import")).toHaveLength(1);
  });
});
