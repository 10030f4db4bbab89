import { randomBytes } from "node:crypto";
import { GetCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { beforeAll, describe, expect, it } from "vitest";
import { gunzipJson, gzipJson } from "../../packages/adapters/src/dynamo/gzip-json";
import { Keys } from "../../packages/adapters/src/dynamo/keys";
import type { EngineEvent } from "../../packages/core/src/engine/events";
import type { RunStore, StoredRun } from "../../packages/core/src/trading/runs";
import { createTestApi, type TestApi } from "../support/harness";

/**
 * A run's save is all or nothing (docs/session-worker.md "One order of events"): the writer that
 * loses the version race leaves no event and no order behind, and a save too large for one
 * transaction is not lost when the process dies after its state was written.
 */
let api: TestApi;
let runs: RunStore;
beforeAll(async () => {
  api = await createTestApi();
  runs = api.services.trading.sessions.runs;
});

const runOf = (id: string, version: number, sequence: number): StoredRun => ({
  run_id: id,
  session_id: id,
  user_id: "u1",
  setup: {} as StoredRun["setup"],
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

  it("keeps a save larger than one transaction when the process dies after its state was written", async () => {
    await runs.save(runOf("r-big", 1, 0), 0, []);
    const many = Array.from({ length: 150 }, (_, i) => log(i + 1, `line ${i + 1}`));
    const blocks = (runs as any).blocks;
    const write = blocks.write;
    blocks.write = async () => {
      throw new Error("killed");
    };
    try {
      await expect(runs.save(runOf("r-big", 2, 150), 1, many)).rejects.toThrow("killed");
    } finally {
      blocks.write = write;
    }
    // The state was committed; the next reader writes the events it carries before answering.
    expect((await runs.get("r-big"))!.version).toBe(2);
    expect(await listed("r-big")).toEqual(many.map((e) => [e.sequence, e.data.message]));
    // A later save clears it and adds its own.
    expect(await runs.save(runOf("r-big", 3, 151), 2, [log(151, "after")])).toBe(true);
    expect((await listed("r-big")).length).toBe(151);
  });

  it("saves a chunk whose events would not fit in the run's item (a year of a busy backtest) by writing them first", async () => {
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
});

describe("the run store's save by a run's one writer (a backtest's chunk)", () => {
  it("writes a large save's blocks before the run, never an outbox; killed before the run's write, nothing of it shows and the retry writes it whole", async () => {
    await runs.save(runOf("r-sole", 1, 0), 0, []);
    const many = Array.from({ length: 150 }, (_, i) => log(i + 1, `line ${i + 1}`));
    const states = (runs as any).states;
    const put = states.toItem.bind(states);
    const items: Record<string, unknown>[] = [];
    states.toItem = (item: object) => {
      items.push(put(item));
      return items.at(-1);
    };
    const transactions = (runs as any).db.client;
    const send = transactions.send.bind(transactions);
    transactions.send = async (command: { constructor: { name: string } }) => {
      if (command.constructor.name === "TransactWriteCommand") throw new Error("killed");
      return send(command);
    };
    try {
      await expect(runs.save(runOf("r-sole", 2, 150), 1, many, { soleWriter: true })).rejects.toThrow("killed");
    } finally {
      transactions.send = send;
    }
    // The blocks were written, the run was not: its log shows none of them.
    expect((await runs.get("r-sole"))!.version).toBe(1);
    expect(await listed("r-sole")).toEqual([]);
    expect(await runs.save(runOf("r-sole", 2, 150), 1, many, { soleWriter: true })).toBe(true);
    states.toItem = put;
    expect(items.every((item) => item.outbox === undefined)).toBe(true);
    expect(await listed("r-sole")).toEqual(many.map((e) => [e.sequence, e.data.message]));
  });
});

describe("the run store's progress", () => {
  it("answers a run's progress from its item without its state, and from its state for a run saved before it was kept apart", async () => {
    const progress = { cursor_ms: Date.parse("2024-03-15T20:00:00Z"), bars: 390, bars_total: 98_280, done: false };
    await runs.save({ ...runOf("r-progress", 1, 0), progress }, 0, []);
    expect(await runs.progress("r-progress")).toEqual(progress);
    await runs.save(runOf("r-progress", 2, 0), 1, []);
    expect(await runs.progress("r-progress")).toBeNull();
    expect(await runs.progress("r-none")).toBeUndefined();

    await runs.save({ ...runOf("r-older", 1, 0), progress }, 0, []);
    await api.services.db.client.send(
      new UpdateCommand({
        TableName: api.services.db.tableName,
        Key: Keys.runState("r-older"),
        UpdateExpression: "REMOVE progress",
      }),
    );
    expect(await runs.progress("r-older")).toEqual(progress);
  });

  it("keeps the setup in an attribute of its own, and reads a run saved before with its setup inside its state", async () => {
    const setup = { base_currency: "USD", venue: "bars", channels: [{ id: "main" }] } as unknown as StoredRun["setup"];
    await runs.save({ ...runOf("r-setup", 1, 3), setup }, 0, []);
    const item = (await api.services.db.client.send(new GetCommand({ TableName: api.services.db.tableName, Key: Keys.runState("r-setup") }))).Item!;
    expect(gunzipJson(item.setup)).toEqual(setup);
    expect(gunzipJson(item.state)).toEqual({ snapshot: { sequence: 3 }, progress: null });
    expect(await runs.get("r-setup")).toMatchObject({ setup, snapshot: { sequence: 3 }, version: 1 });
    // A changed setup is written as it now is.
    const changed = { ...setup, venue: "broker" } as StoredRun["setup"];
    await runs.save({ ...runOf("r-setup", 2, 4), setup: changed }, 1, []);
    expect((await runs.get("r-setup"))!.setup).toEqual(changed);

    // An item of the earlier shape: the setup inside the state, no setup attribute.
    await api.services.db.client.send(
      new UpdateCommand({
        TableName: api.services.db.tableName,
        Key: Keys.runState("r-setup"),
        UpdateExpression: "SET #state = :state REMOVE setup",
        ExpressionAttributeNames: { "#state": "state" },
        ExpressionAttributeValues: { ":state": gzipJson({ setup, snapshot: { sequence: 4 }, progress: null }) },
      }),
    );
    const older = (await runs.get("r-setup"))!;
    expect(older).toMatchObject({ setup, snapshot: { sequence: 4 }, version: 2 });
    // Saved again, it is written in the new shape.
    await runs.save({ ...older, version: 3 }, 2, []);
    const rewritten = (await api.services.db.client.send(new GetCommand({ TableName: api.services.db.tableName, Key: Keys.runState("r-setup") }))).Item!;
    expect(gunzipJson(rewritten.setup)).toEqual(setup);
    expect(gunzipJson(rewritten.state)).toEqual({ snapshot: { sequence: 4 }, progress: null });
  });
});

describe("the run store's saveMany (the session worker's step)", () => {
  /** The TransactWriteItems requests `work` sends. */
  /** The work's result, and how many transactions (`sent`) and single PutItem writes (`puts`) it sent. */
  async function transactions<T>(work: () => Promise<T>): Promise<{ result: T; sent: number; puts: number }> {
    let sent = 0;
    let puts = 0;
    const name = `count-${randomBytes(4).toString("hex")}`;
    api.services.db.client.middlewareStack.add(
      (next, context) => (args) => (
        (sent += context.commandName === "TransactWriteItemsCommand" ? 1 : 0), (puts += context.commandName === "PutItemCommand" ? 1 : 0), next(args)
      ),
      {
        step: "initialize",
        name,
      },
    );
    try {
      return { result: await work(), sent, puts };
    } finally {
      api.services.db.client.middlewareStack.remove(name);
    }
  }
  const outcomes = (settled: PromiseSettledResult<boolean>[]) => settled.map((o) => (o.status === "fulfilled" ? o.value : String(o.reason)));

  it("writes many runs' saves in one transaction, each with its own events and order records", async () => {
    const ids = ["m-a", "m-b", "m-c"];
    for (const id of ids) await runs.save(runOf(id, 1, 0), 0, []);
    const { result, sent } = await transactions(() =>
      runs.saveMany!(ids.map((id, i) => ({ run: runOf(id, 2, 3), expectedVersion: 1, events: i === 2 ? trading(1, 1, id) : [log(1, `${id} bar`)] }))),
    );
    expect(outcomes(result)).toEqual([true, true, true]);
    expect(sent).toBe(1);
    expect(await listed("m-a")).toEqual([[1, "m-a bar"]]);
    expect(await listed("m-b")).toEqual([[1, "m-b bar"]]);
    expect((await runs.get("m-c"))!.version).toBe(2);
    expect(await allOrders("m-c")).toEqual([{ id: "m-c-1", status: "filled" }]);
  });

  it("tells a run that lost its race (false, nothing of it written) while the others of its transaction are written, and writes a large save alone", async () => {
    const ids = ["l-a", "l-b", "l-c", "l-big"];
    for (const id of ids) await runs.save(runOf(id, 1, 0), 0, []);
    // Another writer saved l-b first.
    expect(await runs.save(runOf("l-b", 2, 1), 1, [log(1, "the winner")])).toBe(true);
    const many = Array.from({ length: 150 }, (_, i) => log(i + 1, `line ${i + 1}`));
    const { result, puts } = await transactions(() =>
      runs.saveMany!([
        { run: runOf("l-a", 2, 1), expectedVersion: 1, events: [log(1, "a's bar")] },
        { run: runOf("l-b", 2, 2), expectedVersion: 1, events: [log(1, "the loser"), log(2, "the loser")] },
        { run: runOf("l-c", 2, 1), expectedVersion: 1, events: [log(1, "c's bar")] },
        { run: runOf("l-big", 2, 150), expectedVersion: 1, events: many },
      ]),
    );
    expect(outcomes(result)).toEqual([true, false, true, true]);
    // The three small saves are one item each (the event rides in the run's item): each a conditional PutItem of its own (a
    // transaction bills its items twice), l-b's refused by its condition; the large one's run item twice (with its events in
    // its outbox, then without them once their blocks are written).
    expect(puts).toBe(5);
    expect(await listed("l-a")).toEqual([[1, "a's bar"]]);
    expect(await listed("l-b")).toEqual([[1, "the winner"]]);
    expect((await runs.get("l-b"))!.snapshot!.sequence).toBe(1);
    expect(await listed("l-c")).toEqual([[1, "c's bar"]]);
    expect((await listed("l-big")).length).toBe(150);
  });

  it.each([
    ["a live run's, carried in its item while open: read with it", (id: string) => id, (): string[] => []],
    ["a replay's, named by their session, not their run: written as items", (id: string) => `${id}-replay`, (id: string) => [`ORDER#${id}-1`]],
  ])(
    "changes the order records it wrote at the version it saves on without reading them, and reads those another process changed since (%s)",
    async (_, runIdOf, reads) => {
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
        const [a, b] = [`w-a-${reads("").length}`, `w-b-${reads("").length}`];
        for (const id of [a, b]) {
          await mine.save(runOf(runIdOf(id), 1, 0), 0, []);
          await mine.save(runOf(runIdOf(id), 2, 1), 1, [submitted(id, 1)]);
        }
        // a: the fill of the order this process placed at the version it saves on: no read.
        expect(await mine.save(runOf(runIdOf(a), 3, 2), 2, [filled(a, 2)])).toBe(true);
        expect(orderReads).toEqual([]);
        expect(await mine.order(`${a}-1`)).toMatchObject({ status: "filled", filled_price: "101.5" });
        // b: another process routed the order meanwhile: this one's next save is on that version, and reads the record (with the run's item, or its own).
        expect(
          await other.save(runOf(runIdOf(b), 3, 2), 2, [
            { sequence: 2, time, type: "order_routed", channel_id: null, data: { order_id: `${b}-1`, venue_order_id: "V-1" } } as EngineEvent,
          ]),
        ).toBe(true);
        expect(await mine.order(`${b}-1`)).toMatchObject({ status: "pending", venue_order_id: "V-1" });
        orderReads.length = 0;
        expect(await mine.save(runOf(runIdOf(b), 4, 3), 3, [filled(b, 3)])).toBe(true);
        expect(orderReads).toEqual(reads(b));
        expect(await mine.order(`${b}-1`)).toMatchObject({ status: "filled", venue_order_id: "V-1" });
        expect((await mine.orders(runIdOf(b), { limit: 10 })).items.map((o) => [o.id, o.status])).toEqual([[`${b}-1`, "filled"]]);
      } finally {
        api.services.db.client.middlewareStack.remove("orderReads");
      }
    },
  );

  it("writes saves of one item each as plain conditional PutItems, however many", async () => {
    const ids = Array.from({ length: 120 }, (_, i) => `p-${i}`);
    await runs.saveMany!(ids.map((id) => ({ run: runOf(id, 1, 0), expectedVersion: 0, events: [] })));
    const { result, sent, puts } = await transactions(() =>
      runs.saveMany!(ids.map((id) => ({ run: runOf(id, 2, 1), expectedVersion: 1, events: [log(1, `${id} bar`)] }))),
    );
    expect(outcomes(result).every((o) => o === true)).toBe(true);
    // 120 saves of one item each (each event rides in its run's item): 120 conditional PutItems, no transaction.
    expect([sent, puts]).toEqual([0, 120]);
    expect(await listed("p-119")).toEqual([[1, "p-119 bar"]]);
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

/** Where a run's events are stored: items per event (how many), blocks (their sequences each) and the tail in its item. */
async function storedEvents(id: string) {
  const query = async (pk: string) =>
    (
      await api.services.db.client.send(
        new QueryCommand({ TableName: api.services.db.tableName, KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": pk } }),
      )
    ).Items ?? [];
  const state = (await api.services.db.client.send(new GetCommand({ TableName: api.services.db.tableName, Key: Keys.runState(id) }))).Item!;
  const sequences = (body: Uint8Array | undefined) => (body ? gunzipJson<EngineEvent[]>(body).map((e) => e.sequence) : []);
  return {
    items: (await query(`RUN#${id}#EVENTS`)).length,
    blocks: (await query(`RUN#${id}#BLOCKS`)).filter((block) => block.kind === "events").map((block) => sequences(block.body)),
    tail: sequences(state.tail),
  };
}

/** Events written as an item each, with their indexes' keys, as run saves wrote them before the runs' tails. */
async function legacyItems(id: string, events: EngineEvent[]) {
  const { Repository } = await import("../../packages/adapters/src/dynamo/repository");
  const { storedEvent } = await import("../../packages/core/src/trading/runs");
  const items = new Repository<ReturnType<typeof storedEvent>>(api.services.db, {
    type: "RunEvent",
    key: (e) => Keys.runEvent(e.run_id, e.sequence),
    indexes: { gsi1: (e) => Keys.runEventByLevel(e.run_id, e.level, e.sequence), gsi2: (e) => Keys.runEventByCategory(e.run_id, e.category, e.sequence) },
  });
  await items.putMany(events.map((e) => storedEvent(e, id)));
}

/**
 * `read`, with `move` (a save of the run) done right after its first request about the run: the
 * read of the run's item, or of its blocks or orders, whichever it sends first.
 */
async function whileReading<T>(id: string, move: () => Promise<void>, read: () => Promise<T>): Promise<T> {
  let moved = false;
  const name = `move-${id}`;
  api.services.db.client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      const input = args.input as { Key?: { pk?: string }; ProjectionExpression?: string; ExpressionAttributeValues?: Record<string, unknown> };
      const itemRead = context.commandName === "GetItemCommand" && input.Key?.pk === Keys.runState(id).pk && input.ProjectionExpression;
      const listRead =
        context.commandName === "QueryCommand" && [Keys.runBlocks(id), Keys.runOrders(id)].includes(input.ExpressionAttributeValues?.[":pk"] as string);
      if (!moved && (itemRead || listRead)) {
        moved = true;
        await move();
      }
      return result;
    },
    { step: "initialize", name },
  );
  try {
    const result = await read();
    expect(moved).toBe(true);
    return result;
  } finally {
    api.services.db.client.middlewareStack.remove(name);
  }
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

describe("the run store's blocks (a large save's events and orders, a few items of many)", () => {
  it("pages a run written in items and in blocks by sequence, as one log, in both directions and by category and level", async () => {
    const id = "r-mixed";
    await runs.save(runOf(id, 1, 0), 0, []);
    // Events as items (as saves wrote them before the runs' tails), saves of one event each (the tail), a large one (blocks, the tail's first), a small one of several (the tail again).
    const legacy = trading(1, 2, id);
    await legacyItems(id, legacy);
    const early = trading(legacy.length + 1, 5, id).slice(0, -legacy.length);
    for (const [index, event] of early.entries()) expect(await runs.save(runOf(id, index + 2, event.sequence), index + 1, [event])).toBe(true);
    early.unshift(...legacy);
    const version = early.length - legacy.length + 1;
    const chunk = trading(early.length + 1, 400, id);
    const chunkEnd = early.length + chunk.length;
    expect(await runs.save(runOf(id, version + 1, chunkEnd), version, chunk)).toBe(true);
    const late = trading(chunkEnd + 1, 5, id);
    const total = chunkEnd + late.length;
    expect(await runs.save(runOf(id, version + 2, total), version + 1, late)).toBe(true);
    const all = [...early, ...chunk, ...late];
    const sequences = (filter: (e: EngineEvent) => boolean) => all.filter(filter).map((e) => e.sequence);

    const whole = await pages(id, { limit: 97 });
    expect(whole.items).toEqual(sequences(() => true));
    expect(whole.sizes.slice(0, -1).every((size) => size === 97)).toBe(true);
    expect((await pages(id, { limit: 50, ascending: false })).items).toEqual(sequences(() => true).reverse());
    expect((await pages(id, { limit: 33, category: "order" })).items).toEqual(sequences((e) => e.type.startsWith("order_")));
    expect((await pages(id, { limit: 41, category: "log", ascending: false })).items).toEqual(sequences((e) => e.type === "log").reverse());
    // The stored form of an event is the same whichever way it was written.
    const fromItems = (await runs.events(id, { limit: 1 })).items[0]!;
    expect(fromItems.sequence).toBe(1);
    const fromBlock = (await runs.events(id, { limit: 1, cursor: (await runs.events(id, { limit: early.length })).cursor })).items[0]!;
    expect(Object.keys(fromBlock).sort()).toEqual(Object.keys(fromItems).sort());
    expect(fromBlock).toMatchObject({ run_id: id, sequence: early.length + 1, category: "order", level: "info" });
  });

  it("carries a small save's events in its run's item until they fill a block, and pages them as one log, filtered too, in few queries", async () => {
    const id = "r-steps";
    await runs.save(runOf(id, 1, 0), 0, []);
    // Sixty steps of a session: a third log one line, the others place and fill an order (three events).
    const all: EngineEvent[] = [];
    for (let step = 0; step < 60; step++) {
      const events = step % 3 === 0 ? [log(all.length + 1, `bar ${step}`)] : trading(all.length + 1, 1, id);
      expect(await runs.save(runOf(id, step + 2, all.length + events.length), step + 1, events)).toBe(true);
      all.push(...events);
    }
    const stored = await storedEvents(id);
    // No item per event: blocks of many, each a tail (at most 50 events) with the events of the save that would have taken it past its bounds (at most three), then the tail.
    expect(stored.items).toBe(0);
    expect(stored.blocks.length).toBeGreaterThan(1);
    expect(stored.blocks.every((block) => block.length >= 10 && block.length <= 53)).toBe(true);
    expect(stored.tail.length).toBeLessThanOrEqual(50);
    expect([...stored.blocks.flat(), ...stored.tail]).toEqual(all.map((e) => e.sequence));
    const sequences = (filter: (e: EngineEvent) => boolean) => all.filter(filter).map((e) => e.sequence);
    expect((await pages(id, { limit: 7 })).items).toEqual(sequences(() => true));
    expect((await pages(id, { limit: 11, ascending: false })).items).toEqual(sequences(() => true).reverse());
    expect((await pages(id, { limit: 5, category: "order" })).items).toEqual(sequences((e) => e.type.startsWith("order_")));
    expect((await pages(id, { limit: 9, category: "log", ascending: false })).items).toEqual(sequences((e) => e.type === "log").reverse());
    // A page of a hundred events: the run's item, then a few queries.
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
    expect(queries).toBeLessThanOrEqual(4);
  });

  it("lists every committed event of a tail that a save moves into a block while the log is read", async () => {
    const id = "r-tail-moved";
    await runs.save(runOf(id, 1, 0), 0, []);
    for (let version = 1; version <= 48; version++)
      expect(await runs.save(runOf(id, version + 1, version), version, [log(version, `line ${version}`)])).toBe(true);
    expect((await storedEvents(id)).tail.length).toBe(48);
    // Right after the reader's first read, a save of three events takes the tail past 50: it becomes a block.
    const page = await whileReading(
      id,
      async () => expect(await runs.save(runOf(id, 50, 51), 49, [log(49, "line 49"), log(50, "line 50"), log(51, "line 51")])).toBe(true),
      () => runs.events(id, { limit: 100 }),
    );
    // What was committed when the reader read the run's item, all of it, from the block it is in now.
    expect(page.items.map((e) => e.sequence)).toEqual(Array.from({ length: 48 }, (_, i) => i + 1));
    expect((await storedEvents(id)).tail).toEqual([]);
    expect((await listed(id)).length).toBe(51);
  });

  it("carries on a tail another process wrote, and keeps it when a save loses its race", async () => {
    const { DynamoRunStore } = await import("../../packages/adapters/src/stores/run-store");
    const [mine, other] = [new DynamoRunStore(api.services.db), new DynamoRunStore(api.services.db)];
    const id = "r-tail-shared";
    await mine.save(runOf(id, 1, 0), 0, []);
    for (let version = 1; version <= 3; version++)
      expect(await mine.save(runOf(id, version + 1, version), version, [log(version, `mine ${version}`)])).toBe(true);
    // The other process never read the run: its save on version 4 reads the tail it carries on.
    expect(await other.save(runOf(id, 5, 4), 4, [log(4, "other 4")])).toBe(true);
    // This process's save on the version it wrote last loses, and writes nothing.
    expect(await mine.save(runOf(id, 5, 4), 4, [log(4, "lost")])).toBe(false);
    expect(await mine.save(runOf(id, 6, 5), 5, [log(5, "mine 5")])).toBe(true);
    expect(await listed(id)).toEqual([
      [1, "mine 1"],
      [2, "mine 2"],
      [3, "mine 3"],
      [4, "other 4"],
      [5, "mine 5"],
    ]);
    expect((await storedEvents(id)).tail).toEqual([1, 2, 3, 4, 5]);
  });

  it("carries a run's open orders in its item until they are over or too many, and lists and finds them with its items and blocks", async () => {
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
    const orderItems = async () =>
      (
        await api.services.db.client.send(
          new QueryCommand({
            TableName: api.services.db.tableName,
            IndexName: "gsi1",
            KeyConditionExpression: "gsi1pk = :pk",
            ExpressionAttributeValues: { ":pk": `RUN#${id}#ORDERS` },
          }),
        )
      ).Items?.length ?? 0;
    const listedAs = async (status?: "filled" | "pending") => (await allOrders(id, status, 2)).map((o) => `${o.id.slice(id.length + 1)} ${o.status}`);

    await save([place(1), place(2), place(3)]);
    await save([fill(2)]);
    await save([place(4)]);
    // Orders 1, 3 and 4 ride in the run's item; order 2, over, is the only item.
    expect(await orderItems()).toBe(1);
    expect(await listedAs()).toEqual(["1 pending", "2 filled", "3 pending", "4 pending"]);
    expect(await listedAs("pending")).toEqual(["1 pending", "3 pending", "4 pending"]);
    expect(await listedAs("filled")).toEqual(["2 filled"]);
    expect(await runs.order(`${id}-3`)).toMatchObject({ status: "pending", price: "93", run_id: id });
    expect(await runs.order(`${id}-9`)).toBeUndefined();

    // Twenty more open orders: more than the item carries, so all of them are written as items.
    await save(Array.from({ length: 20 }, (_, i) => place(5 + i)));
    expect(await orderItems()).toBe(24);
    expect((await runs.get(id)) && (await allOrders(id, "pending", 7)).length).toBe(23);
    await save([fill(7), place(25)]);
    expect(await runs.order(`${id}-7`)).toMatchObject({ status: "filled" });
    expect(await runs.order(`${id}-25`)).toMatchObject({ status: "pending" });
    expect(await orderItems()).toBe(24);

    // A large save writes what the item carried to blocks first: order 25 is found and listed still.
    const chunk = trading(sequence + 1, 40, id);
    sequence += chunk.length;
    await save(chunk);
    expect(await runs.order(`${id}-25`)).toMatchObject({ status: "pending" });
    const all = await allOrders(id, undefined, 9);
    expect(all.length).toBe(25 + 40);
    expect(all.slice(0, 25).map((o) => o.status)).toEqual(Array.from({ length: 25 }, (_, i) => (i === 1 || i === 6 ? "filled" : "pending")));
  });

  it("finds an order that a save writes as an item, out of the run's item, while the orders are read", async () => {
    const id = "r-open-moved";
    const time = Date.parse("2024-03-15T14:30:00Z");
    const data = { order_id: `${id}-1`, symbol: "AAPL.US", side: "buy", quantity: 1 };
    await runs.save(runOf(id, 1, 0), 0, []);
    await runs.save(runOf(id, 2, 1), 1, [
      { sequence: 1, time, type: "order_submitted", channel_id: null, data: { ...data, order_type: "limit", limit_price: 90 } } as EngineEvent,
    ]);
    const fill = async () =>
      expect(
        await runs.save(runOf(id, 3, 2), 2, [
          { sequence: 2, time, type: "order_filled", channel_id: null, data: { ...data, price: "90", commission: "1.00" } } as EngineEvent,
        ]),
      ).toBe(true);
    // Right after the reader's first read, the fill writes the order's item and takes it out of the run's item.
    const page = await whileReading(id, fill, () => runs.orders(id, { limit: 10 }));
    expect(page.items.map((o) => o.id)).toEqual([`${id}-1`]);
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
    // The same blocks again (the outbox replayed after a crash), then a save that lost its race.
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
