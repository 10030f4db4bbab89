import { beforeAll, describe, expect, it } from "vitest";
import { createTestApi, type TestApi } from "../support/harness";

let api: TestApi;
let admin: string;
let user: Awaited<ReturnType<TestApi["createUser"]>>;
let paperBroker: string;
let longportBroker: string;

beforeAll(async () => {
  api = await createTestApi();
  admin = await api.adminToken();
  user = await api.createUser();
  paperBroker = (
    await api.json("POST", "/api/v1/brokers", 201, {
      token: user.token,
      body: { name: "Paper", code: "P", type: "paper", user_id: user.id, config: {} },
    })
  ).id;
  longportBroker = (
    await api.json("POST", "/api/v1/brokers", 201, {
      token: user.token,
      body: {
        name: "LongPort",
        code: "LP",
        type: "longport",
        user_id: user.id,
        config: { app_key: "key-0123456789", app_secret: "secret-0123456789", access_token: "token-0123456789" },
      },
    })
  ).id;
});

const source = (overrides: Record<string, unknown> = {}) => ({ name: "Feed", type: "realtime", broker_id: paperBroker, ...overrides });

describe("data source writes are administrator-only", () => {
  it("refuses create, update and delete to a user with 403 and lets them read", async () => {
    const created = await api.json("POST", "/api/v1/data-sources", 201, { token: admin, body: source({ name: "Admin feed" }) });
    for (const [method, path, body] of [
      ["POST", "/api/v1/data-sources", source()],
      ["PUT", `/api/v1/data-sources/${created.id}`, { priority: 3 }],
      ["DELETE", `/api/v1/data-sources/${created.id}`, undefined],
    ] as const) {
      expect((await api.json(method, path, 403, { token: user.token, body })).error_code).toBe("ACCESS_DENIED");
    }
    expect(await api.json("GET", `/api/v1/data-sources/${created.id}`, 200, { token: user.token })).toEqual(created);
    await api.json("DELETE", `/api/v1/data-sources/${created.id}`, 200, { token: admin });
  });

  it("creates with defaults active and priority 0, updates and deletes with a result", async () => {
    const created = await api.json("POST", "/api/v1/data-sources", 201, { token: admin, body: source({ type: "historical" }) });
    expect(created).toMatchObject({ name: "Feed", type: "historical", broker_id: paperBroker, status: "active", priority: 0 });
    const updated = await api.json("PUT", `/api/v1/data-sources/${created.id}`, 200, {
      token: admin,
      body: { type: "both", status: "inactive", broker_id: longportBroker },
    });
    expect(updated).toMatchObject({ type: "both", status: "inactive", broker_id: longportBroker, priority: 0, created_at: created.created_at });
    const deleted = await api.json("DELETE", `/api/v1/data-sources/${created.id}`, 200, { token: admin });
    expect(deleted).toEqual({ success: true, message: "Data source Feed deleted", id: created.id });
    expect((await api.json("GET", `/api/v1/data-sources/${created.id}`, 404, { token: admin })).error_code).toBe("DATA_SOURCE_NOT_FOUND");
  });
});

describe("data source validation", () => {
  it("answers 422 at body.broker_id when the broker does not exist", async () => {
    const body = await api.json("POST", "/api/v1/data-sources", 422, { token: admin, body: source({ broker_id: "no-such-broker" }) });
    expect(body.detail).toEqual([expect.objectContaining({ loc: ["body", "broker_id"], type: "not_found" })]);
  });

  it("lists every problem of a bad create in one 422", async () => {
    const body = await api.json("POST", "/api/v1/data-sources", 422, {
      token: admin,
      body: { name: "", type: "streaming", priority: -1, status: "broken" },
    });
    expect(body.detail.map((issue: any) => issue.loc.join(".")).sort()).toEqual(["body.broker_id", "body.name", "body.priority", "body.status", "body.type"]);
  });

  it("answers malformed bodies and unknown ids with 4xx, never 500", async () => {
    for (const body of ["not json", "[]", "null", '{"priority": 1.5}', '{"priority": "high"}']) {
      const created = await api.request("POST", "/api/v1/data-sources", { token: admin, body });
      expect(created.status, body).toBe(422);
      const updated = await api.request("PUT", "/api/v1/data-sources/unknown", { token: admin, body });
      expect([404, 422], body).toContain(updated.status);
    }
    expect((await api.json("POST", "/api/v1/data-sources/unknown/test", 404, { token: user.token })).error_code).toBe("DATA_SOURCE_NOT_FOUND");
  });
});

describe("data source order and tests", () => {
  it("lists by priority, lowest first, then by name, and reorders after an update", async () => {
    const table = await createTestApi();
    const token = await table.adminToken();
    const broker = await table.json("POST", "/api/v1/brokers", 201, {
      token,
      body: { name: "Sim", code: "S", type: "simulated", user_id: (await table.json("GET", "/api/v1/me", 200, { token })).id, config: {} },
    });
    const make = (name: string, priority?: number) =>
      table.json("POST", "/api/v1/data-sources", 201, { token, body: { name, type: "both", broker_id: broker.id, priority } });
    const bravo = await make("bravo", 5);
    await make("zulu", 1);
    await make("alpha", 5);
    await make("mike");
    const names = async () => (await table.json("GET", "/api/v1/data-sources", 200, { token })).map((s: any) => `${s.priority}:${s.name}`);
    expect(await names()).toEqual(["0:mike", "1:zulu", "5:alpha", "5:bravo"]);
    await table.json("PUT", `/api/v1/data-sources/${bravo.id}`, 200, { token, body: { priority: 0, name: "Bravo" } });
    expect(await names()).toEqual(["0:Bravo", "0:mike", "1:zulu", "5:alpha"]);
  });

  it("tests the referenced broker's connection: a paper broker succeeds", async () => {
    const created = await api.json("POST", "/api/v1/data-sources", 201, { token: admin, body: source({ name: "Paper feed" }) });
    const result = await api.json("POST", `/api/v1/data-sources/${created.id}/test`, 200, { token: user.token });
    expect(result).toMatchObject({ success: true, message: expect.stringContaining("paper broker") });
    expect(typeof result.response_time).toBe("number");
  });

  it("reports an unreachable LongPort broker as success false and marks the source error", async () => {
    const created = await api.json("POST", "/api/v1/data-sources", 201, { token: admin, body: source({ name: "LP feed", broker_id: longportBroker }) });
    const result = await api.json("POST", `/api/v1/data-sources/${created.id}/test`, 200, { token: admin });
    expect(result.success).toBe(false);
    expect(result.message).toMatch(/^LongPort connection failed/);
    expect((await api.json("GET", `/api/v1/data-sources/${created.id}`, 200, { token: admin })).status).toBe("error");
  });

  it("keeps a broker that data sources read from until they are gone", async () => {
    const broker = await api.json("POST", "/api/v1/brokers", 201, {
      token: user.token,
      body: { name: "Used", code: "U", type: "simulated", user_id: user.id, config: {} },
    });
    const created = await api.json("POST", "/api/v1/data-sources", 201, { token: admin, body: source({ name: "Uses it", broker_id: broker.id }) });
    const refused = await api.json("DELETE", `/api/v1/brokers/${broker.id}`, 409, { token: user.token });
    expect(refused).toMatchObject({ error_code: "BROKER_IN_USE", data_source_ids: [created.id] });
    await api.json("DELETE", `/api/v1/data-sources/${created.id}`, 200, { token: admin });
    await api.json("DELETE", `/api/v1/brokers/${broker.id}`, 200, { token: user.token });
  });
});
