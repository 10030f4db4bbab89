import { randomBytes } from "node:crypto";
import { GetCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { gunzipJson } from "../../packages/adapters/src/dynamo/gzip-json";
import { Keys } from "../../packages/adapters/src/dynamo/keys";
import type { EngineEvent } from "../../packages/core/src/engine/events";
import type { RunStore, StoredRun } from "../../packages/core/src/trading/run/runs";
import { createTestApi, type TestApi } from "../support/harness";

/** The values `gzipJson` is given while `gzips.seen` is set (a block's entries, a run's state). */
const gzips = vi.hoisted(() => ({ seen: undefined as unknown[] | undefined }));
vi.mock("../../packages/adapters/src/dynamo/gzip-json", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../packages/adapters/src/dynamo/gzip-json")>();
  return { ...original, gzipJson: (value: unknown) => (gzips.seen?.push(value), original.gzipJson(value)) };
});
/** The items and keys sized for a transaction (`approximateBytes` called from outside batches.ts) while `sized.seen` is set. */
const sized = vi.hoisted(() => ({ seen: undefined as unknown[] | undefined }));
vi.mock("../../packages/adapters/src/dynamo/batches", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../packages/adapters/src/dynamo/batches")>();
  return { ...original, approximateBytes: (value: unknown) => (sized.seen?.push(value), original.approximateBytes(value)) };
});

/**
 * A run's save is all or nothing (docs/session-worker.md "One order of events"): the writer that
 * loses the version race leaves no event and no order behind; a run is its state item, its setup
 * item, its log of event blocks and its order items (docs/data-model.md "Runs").
 */
let api: TestApi;
let runs: RunStore;
beforeAll(async () => {
  api = await createTestApi();
  runs = api.services.trading.sessions.runs;
});

/** One setup object for every run here: a run's setup is replaced, never changed in place, and saved again only when replaced. */
const setup = {} as StoredRun["setup"];
const runOf = (id: string, version: number, sequence: number): StoredRun => ({
  run_id: id,
  session_id: id,
  user_id: "u1",
  setup,
  snapshot: { sequence } as StoredRun["snapshot"],
  progress: null,
  version,
  updated_at: "2024-03-15T14:30:00.000Z",
});
const log = (sequence: number, message: string): EngineEvent => ({
  sequence,
  time: Date.parse("2024-03-15T14:30:00Z"),
  type: "log",
  channel_id: null,
  data: { level: "info", message },
});
const listed = async (id: string) => (await runs.events(id, { limit: 1000 })).items.map((e) => [e.sequence, e.data.message]);

/** The work's result, and how many transactions (`sent`) and single PutItem writes (`puts`) it sent. */
async function counted<T>(work: () => Promise<T>): Promise<{ result: T; sent: number; puts: number }> {
  let sent = 0;
  let puts = 0;
  const name = `count-${randomBytes(4).toString("hex")}`;
  api.services.db.client.middlewareStack.add(
    (next, context) => (args) => (
      (sent += context.commandName === "TransactWriteItemsCommand" ? 1 : 0), (puts += context.commandName === "PutItemCommand" ? 1 : 0), next(args)
    ),
    { step: "initialize", name },
  );
  try {
    return { result: await work(), sent, puts };
  } finally {
    api.services.db.client.middlewareStack.remove(name);
  }
}

describe("the run store's save", () => {
  it("writes the events of the winner only when two writers save the same version", async () => {
    await runs.save(runOf("r-race", 1, 0), 0, []);
    const [a, b] = await Promise.all([
      runs.save(runOf("r-race", 2, 1), 1, [log(1, "from a")]),
      runs.save(runOf("r-race", 2, 2), 1, [log(1, "from b"), log(2, "from b")]),
    ]);
    expect([a, b].filter(Boolean)).toHaveLength(1);
    expect(await listed("r-race")).toEqual(
      a
        ? [[1, "from a"]]
        : [
            [1, "from b"],
            [2, "from b"],
          ],
    );
    expect((await runs.get("r-race"))!.snapshot!.sequence).toBe(a ? 1 : 2);
  });

  it("saves a chunk of thousands of events in one transaction, as a few blocks", async () => {
    await runs.save(runOf("r-huge", 1, 0), 0, []);
    // Incompressible lines: gzipped, far more than an item's 400 KB.
    const noise = () => randomBytes(200).toString("base64");
    const many = Array.from({ length: 3000 }, (_, i) => log(i + 1, noise()));
    expect(await runs.save(runOf("r-huge", 2, 3000), 1, many)).toBe(true);
    expect((await runs.get("r-huge"))!.version).toBe(2);
    let count = 0;
    for (let cursor: string | undefined, page = 0; page === 0 || cursor; page++) {
      const next = await runs.events("r-huge", { limit: 500, cursor });
      count += next.items.length;
      cursor = next.cursor;
    }
    expect(count).toBe(3000);
  });

  it("refuses a save larger than one transaction from a run with several writers, and writes nothing of it", async () => {
    await runs.save(runOf("r-too-big", 1, 0), 0, []);
    // Incompressible lines: gzipped, more than a transaction's bytes.
    const noise = () => randomBytes(1500).toString("base64");
    const many = Array.from({ length: 2500 }, (_, i) => log(i + 1, noise()));
    await expect(runs.save(runOf("r-too-big", 2, 2500), 1, many)).rejects.toThrow("larger than one transaction");
    expect((await runs.get("r-too-big"))!.version).toBe(1);
    expect(await listed("r-too-big")).toEqual([]);
  });
});

describe("the run store's save by a run's one writer (a backtest's chunk)", () => {
  it("writes a save larger than one transaction as its blocks, then the run; killed before the run's write, nothing of it shows and the retry writes it whole", async () => {
    await runs.save(runOf("r-sole", 1, 0), 0, []);
    const noise = () => randomBytes(1500).toString("base64");
    const many = Array.from({ length: 2500 }, (_, i) => log(i + 1, noise()));
    const transactions = (runs as any).db.client;
    const send = transactions.send.bind(transactions);
    transactions.send = async (command: { constructor: { name: string } }) => {
      if (command.constructor.name === "TransactWriteCommand") throw new Error("killed");
      return send(command);
    };
    try {
      await expect(runs.save(runOf("r-sole", 2, 2500), 1, many, { soleWriter: true })).rejects.toThrow("killed");
    } finally {
      transactions.send = send;
    }
    // The blocks were written, the run was not: its log shows none of them.
    expect((await runs.get("r-sole"))!.version).toBe(1);
    expect(await listed("r-sole")).toEqual([]);
    expect(await runs.save(runOf("r-sole", 2, 2500), 1, many, { soleWriter: true })).toBe(true);
    expect((await pages("r-sole", { limit: 1000 })).items).toEqual(many.map((e) => e.sequence));
  });
  it("keeps a chunk's order records in its blocks, written before its state: no order item, each read back", async () => {
    const id = "r-sole-orders";
    await runs.save(runOf(id, 1, 0), 0, []);
    const time = Date.parse("2024-03-15T14:30:00Z");
    const placed = Array.from(
      { length: 3 },
      (_, i) =>
        ({
          sequence: i + 1,
          time,
          type: "order_submitted",
          channel_id: null,
          data: { order_id: `${id}-${i + 1}`, symbol: "AAPL.US", side: "buy", order_type: "limit", limit_price: 90 + i, quantity: 1 },
        }) as EngineEvent,
    );
    const { result, puts } = await counted(() => runs.save(runOf(id, 2, 3), 1, placed, { soleWriter: true }));
    expect(result).toBe(true);
    // Its blocks first (BatchWriteItem on AWS), then its state alone, a conditional PutItem; no order item.
    expect(puts).toBe(1);
    expect(await orderItems(id)).toBe(0);
    expect(await runs.order(`${id}-2`)).toMatchObject({ status: "pending", price: "91", run_id: id });
    expect(await allOrders(id)).toEqual([1, 2, 3].map((n) => ({ id: `${id}-${n}`, status: "pending" })));
  });
});

describe("the run store's progress", () => {
  it("answers a run's progress from its item without its state", async () => {
    const progress = { cursor_ms: Date.parse("2024-03-15T20:00:00Z"), bars: 390, bars_total: 98_280, done: false };
    await runs.save({ ...runOf("r-progress", 1, 0), progress }, 0, []);
    expect(await runs.progress("r-progress")).toEqual(progress);
    await runs.save(runOf("r-progress", 2, 0), 1, []);
    expect(await runs.progress("r-progress")).toBeNull();
    expect(await runs.progress("r-none")).toBeUndefined();
  });

  it("keeps the setup in an item of its own, written with the save that changes it only", async () => {
    const first = { base_currency: "USD", venue: "bars", channels: [{ id: "main" }] } as unknown as StoredRun["setup"];
    const item = async (sk: "STATE" | "SETUP") =>
      (await api.services.db.client.send(new GetCommand({ TableName: api.services.db.tableName, Key: { pk: "RUN#r-setup", sk } }))).Item!;
    await runs.save({ ...runOf("r-setup", 1, 3), setup: first }, 0, []);
    expect(await item("SETUP")).toMatchObject({ shape: 2, version: 1 });
    expect(gunzipJson((await item("SETUP")).setup)).toEqual(first);
    expect(await item("STATE")).toMatchObject({ shape: 2, version: 1, setup_version: 1, last_sequence: 3, progress: null });
    expect(gunzipJson((await item("STATE")).state)).toEqual({ snapshot: { sequence: 3 }, progress: null });
    const run = (await runs.get("r-setup"))!;
    expect(run).toMatchObject({ setup: first, snapshot: { sequence: 3 }, version: 1 });
    // The same setup saved again: the state item alone, one plain conditional put.
    const { puts, sent } = await counted(() => runs.save({ ...run, snapshot: { sequence: 4 } as StoredRun["snapshot"], version: 2 }, 1, []));
    expect([puts, sent]).toEqual([1, 0]);
    expect(await item("SETUP")).toMatchObject({ version: 1 });
    expect(await item("STATE")).toMatchObject({ version: 2, setup_version: 1 });
    // A changed setup is written with the save: the state and setup items in one transaction.
    const changed = { ...first, venue: "broker" } as StoredRun["setup"];
    const written = await counted(() => runs.save({ ...runOf("r-setup", 3, 5), setup: changed }, 2, []));
    expect([written.puts, written.sent]).toEqual([0, 1]);
    expect(await item("STATE")).toMatchObject({ version: 3, setup_version: 3 });
    expect((await runs.get("r-setup"))!.setup).toEqual(changed);
  });
});

describe("the run store's saveMany (the session worker's step)", () => {
  const outcomes = (settled: PromiseSettledResult<boolean>[]) => settled.map((o) => (o.status === "fulfilled" ? o.value : String(o.reason)));

  it("writes many runs' saves in one transaction, each with its own events and order records", async () => {
    const ids = ["m-a", "m-b", "m-c"];
    for (const id of ids) await runs.save(runOf(id, 1, 0), 0, []);
    sized.seen = [];
    const { result, sent } = await counted(() =>
      runs.saveMany!(ids.map((id, i) => ({ run: runOf(id, 2, 3), expectedVersion: 1, events: i === 2 ? trading(1, 1, id) : [log(1, `${id} bar`)] }))),
    );
    // Each item sized once: to know its save fits one transaction, and for the packing of the saves together.
    expect(sized.seen.length).toBeGreaterThanOrEqual(6);
    expect(new Set(sized.seen).size).toBe(sized.seen.length);
    sized.seen = undefined;
    expect(outcomes(result)).toEqual([true, true, true]);
    expect(sent).toBe(1);
    expect(await listed("m-a")).toEqual([[1, "m-a bar"]]);
    expect(await listed("m-b")).toEqual([[1, "m-b bar"]]);
    expect((await runs.get("m-c"))!.version).toBe(2);
    expect(await allOrders("m-c")).toEqual([{ id: "m-c-1", status: "filled" }]);
  });

  it("tells a run that lost its race (false, nothing of it written) while the others of its transaction are written", async () => {
    const ids = ["l-a", "l-b", "l-c", "l-quiet"];
    for (const id of ids) await runs.save(runOf(id, 1, 0), 0, []);
    // Another writer saved l-b first.
    expect(await runs.save(runOf("l-b", 2, 1), 1, [log(1, "the winner")])).toBe(true);
    const { result, sent, puts } = await counted(() =>
      runs.saveMany!([
        { run: runOf("l-a", 2, 1), expectedVersion: 1, events: [log(1, "a's bar")] },
        { run: runOf("l-b", 2, 2), expectedVersion: 1, events: [log(1, "the loser"), log(2, "the loser")] },
        { run: runOf("l-c", 2, 1), expectedVersion: 1, events: [log(1, "c's bar")] },
        { run: runOf("l-quiet", 2, 0), expectedVersion: 1, events: [] },
      ]),
    );
    expect(outcomes(result)).toEqual([true, false, true, true]);
    // The three saves with events are their state and block items, in one transaction (l-b's refused by its condition, the
    // others' written again without it); the quiet one is its state item alone, a conditional PutItem of its own.
    expect([sent, puts]).toEqual([2, 1]);
    expect(await listed("l-a")).toEqual([[1, "a's bar"]]);
    expect(await listed("l-b")).toEqual([[1, "the winner"]]);
    expect((await runs.get("l-b"))!.snapshot!.sequence).toBe(1);
    expect(await listed("l-c")).toEqual([[1, "c's bar"]]);
    expect((await runs.get("l-quiet"))!.version).toBe(2);
  });

  it("changes the order records it wrote at the version it saves on without reading them, and reads those another process changed since", async () => {
    {
      const { DynamoRunStore } = await import("../../packages/adapters/src/stores/run-store");
      const [mine, other] = [new DynamoRunStore(api.services.db), new DynamoRunStore(api.services.db)];
      const time = Date.parse("2024-03-15T14:30:00Z");
      const submitted = (id: string, sequence: number): EngineEvent =>
        ({
          sequence,
          time,
          type: "order_submitted",
          channel_id: null,
          data: { order_id: `${id}-1`, symbol: "AAPL.US", side: "buy", order_type: "market", quantity: 10 },
        }) as EngineEvent;
      const filled = (id: string, sequence: number): EngineEvent =>
        ({
          sequence,
          time: time + 60_000,
          type: "order_filled",
          channel_id: null,
          data: { order_id: `${id}-1`, symbol: "AAPL.US", side: "buy", quantity: 10, price: "101.5", commission: "1.00" },
        }) as EngineEvent;
      const orderReads: string[] = [];
      api.services.db.client.middlewareStack.add(
        (next, context) => (args) => {
          const input = args.input as { RequestItems?: Record<string, { Keys?: { pk: string }[] }> };
          const keys = Object.values(input.RequestItems ?? {}).flatMap((request) => (request.Keys ?? []).map((key) => key.pk));
          if (String(context.commandName) === "BatchGetItemCommand") orderReads.push(...keys.filter((pk) => pk.startsWith("ORDER#")));
          return next(args);
        },
        { step: "initialize", name: "orderReads" },
      );
      try {
        const [a, b] = ["w-a", "w-b"];
        for (const id of [a, b]) {
          await mine.save(runOf(id, 1, 0), 0, []);
          await mine.save(runOf(id, 2, 1), 1, [submitted(id, 1)]);
        }
        // a: the fill of the order this process placed at the version it saves on: no read.
        expect(await mine.save(runOf(a, 3, 2), 2, [filled(a, 2)])).toBe(true);
        expect(orderReads).toEqual([]);
        expect(await mine.order(`${a}-1`)).toMatchObject({ status: "filled", filled_price: "101.5" });
        // b: another process routed the order meanwhile: this one's next save is on that version, and reads the record.
        expect(
          await other.save(runOf(b, 3, 2), 2, [
            { sequence: 2, time, type: "order_routed", channel_id: null, data: { order_id: `${b}-1`, venue_order_id: "V-1" } } as EngineEvent,
          ]),
        ).toBe(true);
        expect(await mine.order(`${b}-1`)).toMatchObject({ status: "pending", venue_order_id: "V-1" });
        orderReads.length = 0;
        expect(await mine.save(runOf(b, 4, 3), 3, [filled(b, 3)])).toBe(true);
        expect(orderReads).toEqual([`ORDER#${b}-1`]);
        expect(await mine.order(`${b}-1`)).toMatchObject({ status: "filled", venue_order_id: "V-1" });
        expect((await mine.orders(b, { limit: 10 })).items.map((o) => [o.id, o.status])).toEqual([[`${b}-1`, "filled"]]);
      } finally {
        api.services.db.client.middlewareStack.remove("orderReads");
      }
    }
  });

  it("writes quiet saves (no event: the state item alone) as plain conditional PutItems, however many", async () => {
    const ids = Array.from({ length: 120 }, (_, i) => `p-${i}`);
    await runs.saveMany!(ids.map((id) => ({ run: runOf(id, 1, 0), expectedVersion: 0, events: [] })));
    const { result, sent, puts } = await counted(() => runs.saveMany!(ids.map((id) => ({ run: runOf(id, 2, 0), expectedVersion: 1, events: [] }))));
    expect(outcomes(result).every((o) => o === true)).toBe(true);
    // 120 saves of one item each: 120 conditional PutItems (a transaction would bill each twice), no transaction.
    expect([sent, puts]).toEqual([0, 120]);
    expect((await runs.get("p-0"))!.version).toBe(2);
  });
});

/** Orders placed, some filled: the events a backtest's chunk writes (sequences from `from`). */
function trading(from: number, orders: number, runId: string): EngineEvent[] {
  const events: EngineEvent[] = [];
  let sequence = from;
  const time = Date.parse("2024-03-15T14:30:00Z");
  for (let i = 0; i < orders; i++) {
    const order_id = `${runId}-${sequence}`;
    events.push({
      sequence: sequence++,
      time: time + i * 60_000,
      type: "order_submitted",
      channel_id: null,
      data: { order_id, symbol: "AAPL.US", side: "buy", order_type: "market", quantity: 10, reason: "signal" },
    } as EngineEvent);
    if (i % 3 !== 2) {
      events.push({
        sequence: sequence++,
        time: time + i * 60_000,
        type: "order_filled",
        channel_id: null,
        data: { order_id, symbol: "AAPL.US", side: "buy", quantity: 10, price: "101.5", commission: "1.00" },
      } as EngineEvent);
    }
    events.push(log(sequence++, `after order ${i}`));
  }
  return events;
}

/** The sequences of each of a run's event blocks, in key order. */
async function eventBlocks(id: string) {
  const { Items = [] } = await api.services.db.client.send(
    new QueryCommand({
      TableName: api.services.db.tableName,
      KeyConditionExpression: "pk = :pk",
      ExpressionAttributeValues: { ":pk": Keys.runBlocks(id) },
    }),
  );
  return Items.filter((block) => block.kind === "events").map((block) => gunzipJson<EngineEvent[]>(block.body).map((e) => e.sequence));
}

/** How many order items a run has. */
async function orderItems(id: string) {
  const { Items = [] } = await api.services.db.client.send(
    new QueryCommand({
      TableName: api.services.db.tableName,
      IndexName: "gsi1",
      KeyConditionExpression: "gsi1pk = :pk",
      ExpressionAttributeValues: { ":pk": Keys.runOrders(id) },
    }),
  );
  return Items.length;
}

/** Every page of a query, and the pages' sizes. */
async function pages(id: string, query: { category?: "order" | "log"; level?: "info"; ascending?: boolean; limit: number }) {
  const items: number[] = [];
  const sizes: number[] = [];
  for (let cursor: string | undefined, page = 0; page === 0 || cursor; page++) {
    const next = await runs.events(id, { ...query, cursor });
    items.push(...next.items.map((e) => e.sequence));
    sizes.push(next.items.length);
    cursor = next.cursor;
  }
  return { items, sizes };
}

async function allOrders(id: string, status?: "filled" | "pending", limit = 4) {
  const found: { id: string; status: string }[] = [];
  for (let cursor: string | undefined, page = 0; page === 0 || cursor; page++) {
    const next = await runs.orders(id, { limit, cursor, status });
    found.push(...next.items.map((o) => ({ id: o.id, status: o.status })));
    cursor = next.cursor;
  }
  return found;
}

describe("the run store's log (each save's events in a block; a large save's in a few, its orders too)", () => {
  it("pages a run of small and large saves by sequence, as one log, in both directions and by category and level", async () => {
    const id = "r-mixed";
    await runs.save(runOf(id, 1, 0), 0, []);
    // Saves of one event each, a large one, a small one of several.
    const early = trading(1, 5, id);
    for (const [index, event] of early.entries()) expect(await runs.save(runOf(id, index + 2, event.sequence), index + 1, [event])).toBe(true);
    const version = early.length + 1;
    const chunk = trading(early.length + 1, 400, id);
    const chunkEnd = early.length + chunk.length;
    expect(await runs.save(runOf(id, version + 1, chunkEnd), version, chunk)).toBe(true);
    const late = trading(chunkEnd + 1, 5, id);
    const total = chunkEnd + late.length;
    expect(await runs.save(runOf(id, version + 2, total), version + 1, late)).toBe(true);
    const all = [...early, ...chunk, ...late];
    const sequences = (filter: (e: EngineEvent) => boolean) => all.filter(filter).map((e) => e.sequence);
    // A block per save.
    expect(await eventBlocks(id)).toEqual([...early.map((e) => [e.sequence]), chunk.map((e) => e.sequence), late.map((e) => e.sequence)]);

    const whole = await pages(id, { limit: 97 });
    expect(whole.items).toEqual(sequences(() => true));
    expect(whole.sizes.slice(0, -1).every((size) => size === 97)).toBe(true);
    expect((await pages(id, { limit: 50, ascending: false })).items).toEqual(sequences(() => true).reverse());
    expect((await pages(id, { limit: 33, category: "order" })).items).toEqual(sequences((e) => e.type.startsWith("order_")));
    expect((await pages(id, { limit: 41, category: "log", ascending: false })).items).toEqual(sequences((e) => e.type === "log").reverse());
    expect((await pages(id, { limit: 41, level: "info" })).items).toEqual(sequences(() => true));
    expect((await runs.events(id, { limit: 1 })).items[0]).toMatchObject({ run_id: id, sequence: 1, category: "order", level: "info" });
    await expect(runs.events(id, { limit: 1, cursor: "bm90IG91cnM" })).rejects.toMatchObject({ status: 422, code: "INVALID_CURSOR" });
  });

  it("pages the small blocks of a session's steps in few queries", async () => {
    const id = "r-steps";
    await runs.save(runOf(id, 1, 0), 0, []);
    // Sixty steps of a session: a third log one line, the others place and fill an order (three events).
    const all: EngineEvent[] = [];
    for (let step = 0; step < 60; step++) {
      const events = step % 3 === 0 ? [log(all.length + 1, `bar ${step}`)] : trading(all.length + 1, 1, id);
      expect(await runs.save(runOf(id, step + 2, all.length + events.length), step + 1, events)).toBe(true);
      all.push(...events);
    }
    expect((await eventBlocks(id)).flat()).toEqual(all.map((e) => e.sequence));
    const sequences = (filter: (e: EngineEvent) => boolean) => all.filter(filter).map((e) => e.sequence);
    expect((await pages(id, { limit: 7 })).items).toEqual(sequences(() => true));
    expect((await pages(id, { limit: 11, ascending: false })).items).toEqual(sequences(() => true).reverse());
    expect((await pages(id, { limit: 5, category: "order" })).items).toEqual(sequences((e) => e.type.startsWith("order_")));
    expect((await pages(id, { limit: 9, category: "log", ascending: false })).items).toEqual(sequences((e) => e.type === "log").reverse());
    let queries = 0;
    api.services.db.client.middlewareStack.add((next, context) => (args) => ((queries += String(context.commandName) === "QueryCommand" ? 1 : 0), next(args)), {
      step: "initialize",
      name: "countQueries",
    });
    try {
      expect((await runs.events(id, { limit: 100 })).items.map((e) => e.sequence)).toEqual(sequences(() => true).slice(0, 100));
    } finally {
      api.services.db.client.middlewareStack.remove("countQueries");
    }
    expect(queries).toBeLessThanOrEqual(3);
  });

  it("writes an order's item with each save that places or changes it, and lists and finds it by status", async () => {
    const id = "r-open";
    const time = Date.parse("2024-03-15T14:30:00Z");
    let sequence = 0;
    const place = (n: number): EngineEvent =>
      ({
        sequence: ++sequence,
        time,
        type: "order_submitted",
        channel_id: null,
        data: { order_id: `${id}-${n}`, symbol: "AAPL.US", side: "buy", order_type: "limit", limit_price: 90 + n, quantity: 1 },
      }) as EngineEvent;
    const fill = (n: number): EngineEvent =>
      ({
        sequence: ++sequence,
        time,
        type: "order_filled",
        channel_id: null,
        data: { order_id: `${id}-${n}`, symbol: "AAPL.US", side: "buy", quantity: 1, price: String(90 + n), commission: "1.00" },
      }) as EngineEvent;
    let version = 1;
    await runs.save(runOf(id, 1, 0), 0, []);
    const save = async (events: EngineEvent[]) => expect(await runs.save(runOf(id, ++version, sequence), version - 1, events)).toBe(true);
    const listedAs = async (status?: "filled" | "pending") => (await allOrders(id, status, 2)).map((o) => `${o.id.slice(id.length + 1)} ${o.status}`);

    await save([place(1), place(2), place(3)]);
    await save([fill(2)]);
    await save([place(4)]);
    expect(await orderItems(id)).toBe(4);
    expect(await listedAs()).toEqual(["1 pending", "2 filled", "3 pending", "4 pending"]);
    expect(await listedAs("pending")).toEqual(["1 pending", "3 pending", "4 pending"]);
    expect(await listedAs("filled")).toEqual(["2 filled"]);
    expect(await runs.order(`${id}-3`)).toMatchObject({ status: "pending", price: "93", run_id: id });
    expect(await runs.order(`${id}-9`)).toBeUndefined();

    // A save with more order changes than a transaction holds as items writes their records in blocks of its transaction.
    const many = Array.from({ length: 120 }, (_, i) => place(5 + i));
    gzips.seen = [];
    await save(many);
    // Its events gzipped once, as they go in either way; its records once, as a block.
    expect(gzips.seen.filter((value) => Array.isArray(value) && value[0] === many[0])).toHaveLength(1);
    gzips.seen = undefined;
    expect(await orderItems(id)).toBe(4);
    expect(await allOrders(id, "pending", 7)).toHaveLength(123);
    // A later change of one of them is an item, which wins over its block's record.
    await save([fill(7), place(125)]);
    expect(await runs.order(`${id}-7`)).toMatchObject({ status: "filled" });
    expect(await runs.order(`${id}-125`)).toMatchObject({ status: "pending" });
    expect(await runs.order(`${id}-8`)).toMatchObject({ status: "pending", price: "98" });
    const all = await allOrders(id, undefined, 9);
    expect(all.map((o) => o.id)).toEqual(Array.from({ length: 125 }, (_, i) => `${id}-${i + 1}`));
    expect(all.filter((o) => o.status === "filled").map((o) => o.id)).toEqual([`${id}-2`, `${id}-7`]);
  });

  it("lists the orders of items and blocks by the sequence that placed them, a later change of a block's order winning", async () => {
    const id = "r-orders";
    await runs.save(runOf(id, 1, 0), 0, []);
    const chunk = trading(1, 300, id);
    expect(await runs.save(runOf(id, 2, chunk.length), 1, chunk)).toBe(true);
    // Order 3 of the chunk (index 2) was left pending; a small save fills it.
    const pendingId = `${id}-7`;
    expect(await runs.order(pendingId)).toMatchObject({ id: pendingId, status: "pending" });
    const fill = {
      sequence: chunk.length + 1,
      time: Date.parse("2024-03-16T14:30:00Z"),
      type: "order_filled",
      channel_id: null,
      data: { order_id: pendingId, symbol: "AAPL.US", side: "buy", quantity: 10, price: "99", commission: "1.00" },
    } as EngineEvent;
    expect(await runs.save(runOf(id, 3, chunk.length + 1), 2, [fill])).toBe(true);
    expect(await runs.order(pendingId)).toMatchObject({ id: pendingId, status: "filled", filled_price: "99" });
    const listed = await allOrders(id, undefined, 7);
    expect(listed).toHaveLength(300);
    expect(listed.map((o) => o.id)).toEqual(chunk.filter((e) => e.type === "order_submitted").map((e) => e.data.order_id));
    expect(listed.find((o) => o.id === pendingId)!.status).toBe("filled");
    const pending = await allOrders(id, "pending", 9);
    expect(pending).toHaveLength(99);
    expect(pending.some((o) => o.id === pendingId)).toBe(false);
    expect(await allOrders(id, "filled", 50)).toHaveLength(201);
    expect(await runs.order(`${id}-999999`)).toBeUndefined();
  });

  it("writes a chunk saved again (a retried task) under the same keys, and shows nothing of a save that did not commit", async () => {
    const id = "r-retry";
    await runs.save(runOf(id, 1, 0), 0, []);
    const chunk = trading(1, 200, id);
    expect(await runs.save(runOf(id, 2, chunk.length), 1, chunk)).toBe(true);
    // The same blocks again (a retried chunk), then the blocks of a large save that never committed.
    await (runs as any).blocks.write(id, 2, chunk, []);
    const next = trading(chunk.length + 1, 200, id);
    const beyond = Array.from({ length: 150 }, (_, i) => log(chunk.length + 1 + i, "never committed"));
    const filled = (await runs.order(`${id}-1`))!;
    expect(filled.status).toBe("filled");
    await (runs as any).blocks.write(id, 3, beyond, [{ ...filled, status: "cancelled", sequence: 1, changed: chunk.length + 1 }]);
    expect((await pages(id, { limit: 500 })).items).toEqual(chunk.map((e) => e.sequence));
    expect((await pages(id, { limit: 70, ascending: false })).items).toEqual(chunk.map((e) => e.sequence).reverse());
    expect((await runs.order(`${id}-1`))!.status).toBe("filled");
    expect((await allOrders(id)).find((o) => o.id === `${id}-1`)!.status).toBe("filled");
    // The save that does commit that version replaces them.
    expect(await runs.save(runOf(id, 3, chunk.length + next.length), 2, next)).toBe(true);
    const listed = await runs.events(id, { limit: 2000 });
    expect(listed.items.map((e) => e.sequence)).toEqual([...chunk, ...next].map((e) => e.sequence));
    expect(listed.items.some((e) => e.data.message === "never committed")).toBe(false);
    await runs.delete(id);
    expect((await runs.events(id, { limit: 10 })).items).toEqual([]);
    expect(await runs.orders(id, { limit: 10 })).toEqual({ items: [], cursor: undefined });
  });
});
