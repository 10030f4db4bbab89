import { GetCommand, PutCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { beforeAll, describe, expect, it } from "vitest";
import { Keys, LIVE_SHARDS, shardOf } from "../../packages/adapters/src/dynamo/keys";
import { migrate, MIGRATIONS } from "../../packages/adapters/src/dynamo/migrations";
import { DynamoLeaseStore } from "../../packages/adapters/src/stores/lease-store";
import type { StoredSession } from "../../packages/core/src/trading/sessions";
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
    expect(applied.map(({ id, items }) => [id, items])).toEqual([["2026-11-29-shard-live-lists", 8]]);

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

describe("the live list", () => {
  it("reads a session again only when its version moved", async () => {
    const sessions = api.services.trading.sessions.sessions;
    const first = session("list-a", 1);
    await sessions.create(first);
    await sessions.replace({ ...first, version: 2 }, 1);
    const listed = (await sessions.listLive()).find((s) => s.id === "list-a");
    expect(listed?.version).toBe(2);
    // The same version again: the very object this process read (no read of the session).
    expect((await sessions.listLive()).find((s) => s.id === "list-a")).toBe(listed);
    await sessions.replace({ ...first, version: 3, status: "paused" } as StoredSession, 2);
    expect((await sessions.listLive()).find((s) => s.id === "list-a")).toMatchObject({ version: 3, status: "paused" });
    await sessions.replace({ ...first, version: 4, status: "stopped" } as StoredSession, 3);
    expect((await sessions.listLive()).find((s) => s.id === "list-a")).toBeUndefined();
  });
});
