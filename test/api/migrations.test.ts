import { BatchWriteCommand, GetCommand, PutCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { beforeAll, describe, expect, it } from "vitest";
import { Keys, LIVE_SHARDS, shardOf } from "../../packages/adapters/src/dynamo/keys";
import { gzipJson } from "../../packages/adapters/src/dynamo/gzip-json";
import { migrate, MIGRATIONS } from "../../packages/adapters/src/migrations/migrate";
import { runLog } from "../../packages/adapters/src/migrations/run-log";
import { DynamoLeaseStore } from "../../packages/adapters/src/stores/lease-store";
import type { EngineEvent } from "../../packages/core/src/engine/events";
import { orderChangeOf, storedEvent, type TradingOrderResponse } from "../../packages/core/src/trading/run/runs";
import type { StoredSession } from "../../packages/core/src/trading/session/sessions";
import { createTestApi, type TestApi } from "../support/harness";

/**
 * Stored shapes are migrated, not read forever (docs/data-model.md "Migrations"): a table written
 * by an older version is brought to the newest shapes once, and the code reads only those.
 */
let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
});

const session = (id: string, version: number): StoredSession =>
  ({
    id,
    user_id: "u1",
    status: "running",
    trading_mode: "simulation",
    created_at: "2026-11-29T00:00:00.000Z",
    version,
    config: { channels: [] },
  }) as unknown as StoredSession;

describe("the live lists' migration (2026-11-29-shard-live-lists)", () => {
  it("moves each marker into its shard with its session's version, and each lease into its shard; a second run moves nothing", async () => {
    const db = api.services.db;
    const table = db.tableName;
    const sessions = api.services.trading.sessions.sessions;
    const ids = ["mig-a", "mig-b", "mig-c"];
    for (const [at, id] of ids.entries()) await sessions.create(session(id, at + 3));
    // The shapes before: one partition each, a marker holding only the session's id; one marker's session is gone.
    for (const id of [...ids, "mig-gone"]) {
      await db.client.send(new PutCommand({ TableName: table, Item: { pk: "SESSIONS#LIVE", sk: id, _type: "LiveSessionMarker", session_id: id } }));
      await db.client.send(
        new PutCommand({ TableName: table, Item: { pk: "WORKER#LEASES", sk: id, _type: "WorkerLease", session_id: id, owner: "task-1", since: 5 } }),
      );
    }
    expect(await sessions.listLive()).toEqual([]);

    const applied = await migrate(db);
    expect(applied.map(({ id, items }) => [id, items])).toEqual([
      ["2026-11-29-shard-live-lists", 8],
      ["2026-11-29-run-log", 0],
    ]);

    for (const [at, id] of ids.entries()) {
      const marker = await db.client.send(new GetCommand({ TableName: table, Key: Keys.liveSession(id) }));
      expect(marker.Item).toMatchObject({ pk: `SESSIONS#LIVE#${shardOf(id)}`, session_id: id, version: at + 3 });
    }
    for (const old of ["SESSIONS#LIVE", "WORKER#LEASES"]) {
      const left = await db.client.send(new QueryCommand({ TableName: table, KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": old } }));
      expect(left.Items).toEqual([]);
    }
    expect((await sessions.listLive()).map((s) => s.id).sort()).toEqual(ids);
    const leases = await new DynamoLeaseStore(db).leases();
    expect(leases.map((l) => [l.session_id, l.owner, l.since]).sort()).toEqual([...ids, "mig-gone"].map((id) => [id, "task-1", 5]));

    expect(await migrate(db)).toEqual([]);
    expect(MIGRATIONS.map((m) => m.id)).toContain("2026-11-29-shard-live-lists");
  });

  it("spreads sessions over every shard", () => {
    const shards = new Set(Array.from({ length: 1_000 }, (_, n) => shardOf(`session-${n}`)));
    expect(shards.size).toBe(LIVE_SHARDS);
  });
});

describe("the run log's migration (2026-11-29-run-log)", () => {
  const time = Date.parse("2024-03-15T14:30:00Z");
  const log = (sequence: number): EngineEvent => ({ sequence, time, type: "log", channel_id: null, data: { level: "info", message: `line ${sequence}` } });
  const placed = (runId: string, sequence: number, n: number): EngineEvent =>
    ({
      sequence,
      time,
      type: "order_submitted",
      channel_id: null,
      data: { order_id: `${runId}-${n}`, symbol: "AAPL.US", side: "buy", order_type: "limit", limit_price: 90, quantity: 1 },
    }) as EngineEvent;
  const filled = (runId: string, sequence: number, n: number): EngineEvent =>
    ({
      sequence,
      time,
      type: "order_filled",
      channel_id: null,
      data: { order_id: `${runId}-${n}`, symbol: "AAPL.US", side: "buy", quantity: 1, price: "90", commission: "1.00" },
    }) as EngineEvent;
  /** An order's record as saves stored it: the view its placing made, the sequence that placed it and the last that changed it. */
  const record = (runId: string, n: number, sequence: number, status: string, changed = sequence) => {
    const placing = orderChangeOf(placed(runId, sequence, n), { run_id: runId, session_id: runId });
    return { ...(placing as { order: TradingOrderResponse }).order, status, sequence, changed };
  };

  it("moves a run of every older layout into the log: its events once each and in order, its orders, its setup; a second run moves nothing", async () => {
    const db = api.services.db;
    const table = db.tableName;
    const put = (Item: Record<string, unknown>) => db.client.send(new PutCommand({ TableName: table, Item }));
    const runs = api.services.trading.sessions.runs;
    const id = "mig-run";
    const setup = { base_currency: "USD", venue: "bars", channels: [] };
    // Events 1–3 as an item each (order 1 placed at 1), with an item for order 1.
    const items = [placed(id, 1, 1), log(2), log(3)];
    await db.client.send(
      new BatchWriteCommand({
        RequestItems: {
          [table]: items.map((event) => {
            const stored = storedEvent(event, id);
            return {
              PutRequest: {
                Item: {
                  pk: `RUN#${id}#EVENTS`,
                  sk: String(event.sequence).padStart(12, "0"),
                  gsi1pk: `RUN#${id}#LEVEL#${stored.level}`,
                  gsi1sk: String(event.sequence).padStart(12, "0"),
                  _type: "RunEvent",
                  ...stored,
                },
              },
            };
          }),
        },
      }),
    );
    const order = (r: ReturnType<typeof record>) => ({
      pk: `ORDER#${r.id}`,
      sk: "ORDER",
      gsi1pk: `RUN#${id}#ORDERS`,
      gsi1sk: String(r.sequence).padStart(12, "0"),
      gsi2pk: `RUN#${id}#ORDERS#${r.status}`,
      gsi2sk: String(r.sequence).padStart(12, "0"),
      _type: "RunOrder",
      ...r,
    });
    await put(order(record(id, 1, 1, "pending")));
    // Events 4–5 in the item's tail (order 2 placed at 4, riding in the item while open); events 6–7 in its outbox (order 1 filled at 6).
    await put({
      pk: `RUN#${id}`,
      sk: "STATE",
      _type: "RunState",
      run_id: id,
      session_id: id,
      user_id: "u1",
      state: gzipJson({ setup, snapshot: { sequence: 7 }, progress: null }),
      last_sequence: 7,
      version: 9,
      updated_at: "2024-03-15T14:31:00.000Z",
      tail: gzipJson([placed(id, 4, 2), log(5)]),
      open: gzipJson([record(id, 2, 4, "pending")]),
      outbox: gzipJson([filled(id, 6, 1), log(7)]),
    });

    expect(await runLog.run(db)).toBe(1);

    const run = (await runs.get(id))!;
    // At the next version: a process of the older code that held the run loses its next save.
    expect(run).toMatchObject({ setup, snapshot: { sequence: 7 }, version: 10, progress: null });
    const { items: events } = await runs.events(id, { limit: 100 });
    expect(events.map((e) => [e.sequence, e.type])).toEqual([
      [1, "order_submitted"],
      [2, "log"],
      [3, "log"],
      [4, "order_submitted"],
      [5, "log"],
      [6, "order_filled"],
      [7, "log"],
    ]);
    expect((await runs.orders(id, { limit: 10 })).items.map((o) => [o.id, o.status])).toEqual([
      [`${id}-1`, "filled"],
      [`${id}-2`, "pending"],
    ]);
    expect(await runs.order(`${id}-2`)).toMatchObject({ status: "pending", price: "90" });
    // The state item in the new shape, nothing riding in it; the item-per-event log gone.
    const state = (await db.client.send(new GetCommand({ TableName: table, Key: Keys.runState(id) }))).Item!;
    expect(state).toMatchObject({ shape: 2, version: 10, setup_version: 10, last_sequence: 7 });
    for (const gone of ["tail", "open", "outbox", "setup"]) expect(state).not.toHaveProperty(gone);
    const left = await db.client.send(
      new QueryCommand({ TableName: table, KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": `RUN#${id}#EVENTS` } }),
    );
    expect(left.Items).toEqual([]);
    // Saved after it like any run; a second run finds nothing to move.
    expect(await runs.save({ ...run, snapshot: { ...run.snapshot!, sequence: 8 }, version: 11 }, 10, [log(8)])).toBe(true);
    expect((await runs.events(id, { limit: 100 })).items.map((e) => e.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(await runLog.run(db)).toBe(0);
  });
});

describe("the live list", () => {
  it("reads a session again only when its version moved", async () => {
    const sessions = api.services.trading.sessions.sessions;
    const first = session("list-a", 1);
    await sessions.create(first);
    const second = { ...first, version: 2 };
    await sessions.replace(second, first);
    const listed = (await sessions.listLive()).find((s) => s.id === "list-a");
    expect(listed?.version).toBe(2);
    // The same version again: the very object this process read (no read of the session).
    expect((await sessions.listLive()).find((s) => s.id === "list-a")).toBe(listed);
    const third = { ...first, version: 3, status: "paused" } as StoredSession;
    await sessions.replace(third, second);
    expect((await sessions.listLive()).find((s) => s.id === "list-a")).toMatchObject({ version: 3, status: "paused" });
    await sessions.replace({ ...first, version: 4, status: "stopped" } as StoredSession, third);
    expect((await sessions.listLive()).find((s) => s.id === "list-a")).toBeUndefined();
  });

  it("replaces its stamp when a replacement changes the list (a session started, paused, stopped), not for a session never listed", async () => {
    const sessions = api.services.trading.sessions.sessions;
    const versions = [{ ...session("stamp-a", 1), status: "created" } as StoredSession];
    const replaced = async (change: Partial<StoredSession>) => {
      const current = versions.at(-1)!;
      const before = await sessions.liveStamp();
      const next = { ...current, ...change, version: current.version + 1 };
      expect(await sessions.replace(next, current)).toBe(true);
      versions.push(next);
      return (await sessions.liveStamp()) !== before;
    };
    await sessions.create(versions[0]!);
    // The requests each replacement sends.
    let sent: string[] = [];
    api.services.db.client.middlewareStack.add((next, context) => (args) => (sent.push(String(context.commandName)), next(args)), {
      step: "initialize",
      name: "stampTestRequests",
    });
    // Created and renamed: never listed, the list unchanged; the session's item alone, one plain conditional put.
    expect(await replaced({ session_name: "renamed" })).toBe(false);
    expect(sent.filter((command) => command !== "GetItemCommand")).toEqual(["PutItemCommand"]);
    sent = [];
    // Started: the item and its marker in one transaction, then the stamp.
    expect(await replaced({ status: "running" })).toBe(true);
    expect(sent.filter((command) => command !== "GetItemCommand")).toEqual(["TransactWriteItemsCommand", "PutItemCommand"]);
    api.services.db.client.middlewareStack.remove("stampTestRequests");
    expect(await replaced({ status: "paused" })).toBe(true);
    expect(await replaced({ status: "stopped" })).toBe(true);
    // Stopped, nothing at its broker: off the list, and changes of it leave the list as it is.
    expect(await replaced({ session_name: "stopped and renamed" })).toBe(false);
    expect((await sessions.listLive()).some((s) => s.id === "stamp-a")).toBe(false);
  });
});
