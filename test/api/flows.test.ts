import { beforeAll, describe, expect, it } from "vitest";
import { FlowLibrary, MAX_FLOW_BYTES } from "../../packages/core/src/flows/flow-library";
import { createTestApi, type TestApi } from "../support/harness";

let api: TestApi;
let owner: { id: string; token: string };
let stranger: { id: string; token: string };
/** Real time that never repeats a millisecond, so "newest first" is decided by creation order. */
let lastTick = 0;
const strictlyIncreasingNow = () => (lastTick = Math.max(Date.now(), lastTick + 1));

beforeAll(async () => {
  api = await createTestApi({}, { now: strictlyIncreasingNow });
  owner = await api.createUser();
  stranger = await api.createUser();
});

const node = (id: string, type: string, parameters: Record<string, unknown> = {}) => ({ id, type, parameters });

/** RSI below 30 buys AAPL: source → rsi → condition → order. */
function rsiFlow(name = "RSI dip buyer") {
  return {
    name,
    description: "Buys oversold dips",
    nodes: [
      node("src", "data_source", { symbol: "AAPL.US", period: "1d" }),
      node("rsi", "indicator", { indicator: "rsi", period: 14 }),
      node("dip", "condition", { operator: "lt", threshold: 30 }),
      node("buy", "order", { side: "buy", quantity: 0.1 }),
    ],
    edges: [
      { id: "e1", source: "src", source_port: "close", target: "rsi", target_port: "input" },
      { id: "e2", source: "rsi", target: "dip", target_port: "left" },
      { id: "e3", source: "dip", target: "buy" },
    ],
    metadata: { tags: ["rsi"], canvas: { x: 0, y: 0, zoom: 1 } },
  };
}

const create = (body: unknown, token = owner.token) => api.json("POST", "/api/v1/flows", 201, { token, body });

describe("flow CRUD", () => {
  it("creates a flow at version 1 with timestamps and reads it back as created", async () => {
    const created = await create(rsiFlow());
    expect(created).toMatchObject({ ...rsiFlow(), version: 1, id: expect.any(String) });
    expect(created.created_at).toBe(created.updated_at);
    expect(created).not.toHaveProperty("user_id");
    expect(await api.json("GET", `/api/v1/flows/${created.id}`, 200, { token: owner.token })).toEqual(created);
  });

  it("defaults nodes and edges to empty lists and description to null", async () => {
    const created = await create({ name: "  Draft  " });
    expect(created).toMatchObject({ name: "Draft", description: null, nodes: [], edges: [], version: 1 });
    expect(created).not.toHaveProperty("metadata");
  });

  it("keeps fields the canvas adds to nodes and edges", async () => {
    const flow = rsiFlow();
    const drawn = { ...flow, nodes: [{ ...flow.nodes[0], width: 180, selected: true, data: { color: "teal" } }, ...flow.nodes.slice(1)] };
    const created = await create(drawn);
    expect(created.nodes[0]).toEqual({ ...flow.nodes[0], width: 180, selected: true, data: { color: "teal" } });
  });

  it("raises the version by one on each update and keeps fields left out", async () => {
    const created = await create(rsiFlow());
    const path = `/api/v1/flows/${created.id}`;
    const second = await api.json("PUT", path, 200, { token: owner.token, body: { name: "RSI dip buyer v2" } });
    expect(second).toMatchObject({ name: "RSI dip buyer v2", version: 2, nodes: created.nodes, edges: created.edges, description: "Buys oversold dips" });
    expect(second.created_at).toBe(created.created_at);
    expect(second.updated_at >= created.updated_at).toBe(true);
    const third = await api.json("PUT", path, 200, { token: owner.token, body: { nodes: created.nodes.slice(0, 2), edges: [], description: null } });
    expect(third).toMatchObject({ name: "RSI dip buyer v2", version: 3, edges: [], description: null, metadata: created.metadata });
    expect(third.nodes.map((n: any) => n.id)).toEqual(["src", "rsi"]);
    expect((await api.json("GET", path, 200, { token: owner.token })).version).toBe(3);
  });

  it("lists only the caller's flows, newest first", async () => {
    const { token } = await api.createUser();
    const first = await create(rsiFlow("first"), token);
    const second = await create(rsiFlow("second"), token);
    const third = await create(rsiFlow("third"), token);
    const listed = await api.json("GET", "/api/v1/flows", 200, { token });
    expect(listed.map((f: any) => f.id)).toEqual([third.id, second.id, first.id]);
    expect(listed[0]).toEqual(third);
  });

  it("deletes a flow with {success, message, id}; afterwards it is gone", async () => {
    const created = await create(rsiFlow("to delete"));
    const path = `/api/v1/flows/${created.id}`;
    expect(await api.json("DELETE", path, 200, { token: owner.token })).toEqual({
      success: true,
      message: "Flow to delete deleted",
      id: created.id,
    });
    expect((await api.json("GET", path, 404, { token: owner.token })).error_code).toBe("FLOW_NOT_FOUND");
    await api.json("DELETE", path, 404, { token: owner.token });
    const listed = await api.json("GET", "/api/v1/flows", 200, { token: owner.token });
    expect(listed.map((f: any) => f.id)).not.toContain(created.id);
  });

  it("answers 404 FLOW_NOT_FOUND for every operation on an absent flow", async () => {
    const path = "/api/v1/flows/00000000-0000-0000-0000-000000000000";
    for (const [method, suffix, body] of [
      ["GET", "", undefined],
      ["PUT", "", { name: "x" }],
      ["DELETE", "", undefined],
      ["POST", "/validate", undefined],
      ["POST", "/duplicate", undefined],
    ] as const) {
      const answer = await api.json(method, `${path}${suffix}`, 404, { token: owner.token, body });
      expect(answer.error_code, `${method} ${suffix}`).toBe("FLOW_NOT_FOUND");
    }
  });

  it("hides a flow from everyone but its owner, administrators included", async () => {
    const created = await create(rsiFlow("private"));
    const path = `/api/v1/flows/${created.id}`;
    for (const token of [stranger.token, await api.adminToken()]) {
      for (const [method, suffix, body] of [
        ["GET", "", undefined],
        ["PUT", "", { name: "hijacked" }],
        ["DELETE", "", undefined],
        ["POST", "/validate", undefined],
        ["POST", "/duplicate", undefined],
      ] as const) {
        const answer = await api.json(method, `${path}${suffix}`, 404, { token, body });
        expect(answer.error_code).toBe("FLOW_NOT_FOUND");
      }
      const listed = await api.json("GET", "/api/v1/flows", 200, { token });
      expect(listed.map((f: any) => f.id)).not.toContain(created.id);
    }
    expect(await api.json("GET", path, 200, { token: owner.token })).toMatchObject({ name: "private", version: 1 });
  });

  it("answers 401 without a token", async () => {
    await api.json("GET", "/api/v1/flows", 401);
    await api.json("POST", "/api/v1/flows", 401, { body: rsiFlow() });
    await api.json("GET", "/api/v1/flows/node-types", 401);
  });
});

describe("flow input validation", () => {
  it("answers 422 listing every shape problem of a create", async () => {
    const body = await api.json("POST", "/api/v1/flows", 422, {
      token: owner.token,
      body: { name: "", nodes: [{ type: "indicator" }], edges: "none" },
    });
    expect(body.detail.map((d: any) => d.loc.join(".")).sort()).toEqual(["body.edges", "body.name", "body.nodes.0.id"]);
  });

  it("answers 422 for an update with a blank name and leaves the flow unchanged", async () => {
    const created = await create(rsiFlow());
    await api.json("PUT", `/api/v1/flows/${created.id}`, 422, { token: owner.token, body: { name: " " } });
    expect(await api.json("GET", `/api/v1/flows/${created.id}`, 200, { token: owner.token })).toEqual(created);
  });

  it("refuses a flow too large to store with 413 FLOW_TOO_LARGE", async () => {
    const bulky = Array.from({ length: 400 }, (_, index) => ({ ...node(`n${index}`, "output"), note: "x".repeat(1000) }));
    const body = await api.json("POST", "/api/v1/flows", 413, { token: owner.token, body: { name: "bulky", nodes: bulky } });
    expect(body).toMatchObject({ error_code: "FLOW_TOO_LARGE", max_bytes: MAX_FLOW_BYTES });
    expect(body.size_bytes).toBeGreaterThan(MAX_FLOW_BYTES);
  });
});

describe("concurrent updates", () => {
  it("never loses an update silently: each concurrent PUT either wins a version or gets 409 FLOW_CHANGED", async () => {
    const created = await create(rsiFlow("contested"));
    const path = `/api/v1/flows/${created.id}`;
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, index) => api.request("PUT", path, { token: owner.token, body: { name: `writer ${index}` } })),
    );
    const bodies: any[] = await Promise.all(responses.map((response) => response.json()));
    const winners = bodies.filter((_, index) => responses[index].status === 200);
    const losers = bodies.filter((_, index) => responses[index].status === 409);
    expect(winners.length + losers.length).toBe(6);
    expect(winners.length).toBeGreaterThan(0);
    for (const loser of losers) expect(loser.error_code).toBe("FLOW_CHANGED");
    // Every winner holds a distinct version, and the stored one is the last of them.
    expect(new Set(winners.map((w) => w.version)).size).toBe(winners.length);
    const stored = await api.json("GET", path, 200, { token: owner.token });
    expect(stored.version).toBe(1 + winners.length);
    expect(winners.find((w) => w.version === stored.version)?.name).toBe(stored.name);
  });

  it("refuses a write based on a version that is no longer current", async () => {
    const created = await create(rsiFlow("stale"));
    const stale = await FlowLibrary.get(api.services.flows, { id: owner.id, user_type: "user" }, created.id);
    await api.json("PUT", `/api/v1/flows/${created.id}`, 200, { token: owner.token, body: { name: "fresh" } });
    await expect(api.services.flows.flows.update({ ...stale, name: "stale write", version: 2 }, 1)).rejects.toMatchObject({
      status: 409,
      code: "FLOW_CHANGED",
    });
    expect((await api.json("GET", `/api/v1/flows/${created.id}`, 200, { token: owner.token })).name).toBe("fresh");
  });
});

describe("duplicate", () => {
  it("copies the graph under a new id at version 1, named as a copy, then as the next copy", async () => {
    const { token } = await api.createUser();
    const original = await create(rsiFlow("Breakout"), token);
    await api.json("PUT", `/api/v1/flows/${original.id}`, 200, { token, body: { description: "edited" } });
    const copy = await api.json("POST", `/api/v1/flows/${original.id}/duplicate`, 201, { token });
    expect(copy).toMatchObject({
      name: "Breakout (copy)",
      version: 1,
      description: "edited",
      nodes: original.nodes,
      edges: original.edges,
      metadata: original.metadata,
    });
    expect(copy.id).not.toBe(original.id);
    expect(copy.created_at).toBe(copy.updated_at);
    const again = await api.json("POST", `/api/v1/flows/${original.id}/duplicate`, 201, { token });
    expect(again.name).toBe("Breakout (copy 2)");
    const ofCopy = await api.json("POST", `/api/v1/flows/${copy.id}/duplicate`, 201, { token });
    expect(ofCopy.name).toBe("Breakout (copy 3)");
    expect((await api.json("GET", "/api/v1/flows", 200, { token })).map((f: any) => f.name)).toEqual([
      "Breakout (copy 3)",
      "Breakout (copy 2)",
      "Breakout (copy)",
      "Breakout",
    ]);
  });
});

describe("validate", () => {
  it("accepts a sound flow and gives its execution order", async () => {
    const created = await create(rsiFlow());
    expect(await api.json("POST", `/api/v1/flows/${created.id}/validate`, 200, { token: owner.token })).toEqual({
      valid: true,
      errors: [],
      warnings: [],
      summary: { node_count: 4, edge_count: 3, entry_nodes: ["src"], sink_nodes: ["buy"] },
      execution_order: ["src", "rsi", "dip", "buy"],
    });
  });

  it("reports a cycle as CYCLE_DETECTED naming the nodes around it", async () => {
    const created = await create({
      name: "loop",
      nodes: [
        node("src", "data_source", { symbol: "AAPL.US" }),
        node("x", "condition", { threshold: 1 }),
        node("y", "logic_and"),
        node("z", "logic_not"),
        node("out", "output"),
      ],
      edges: [
        { source: "src", source_port: "close", target: "x" },
        { source: "x", target: "y", target_port: "a" },
        { source: "y", target: "z" },
        { source: "z", target: "y", target_port: "b" },
        { source: "y", target: "out" },
      ],
    });
    const result = await api.json("POST", `/api/v1/flows/${created.id}/validate`, 200, { token: owner.token });
    expect(result.valid).toBe(false);
    expect(result.errors).toEqual([{ code: "CYCLE_DETECTED", message: "cycle: y → z → y", node_id: "y" }]);
    expect(result).not.toHaveProperty("execution_order");
  });

  it("reports an empty draft as having no entry node", async () => {
    const created = await create({ name: "empty" });
    const result = await api.json("POST", `/api/v1/flows/${created.id}/validate`, 200, { token: owner.token });
    expect(result).toMatchObject({ valid: false, errors: [{ code: "NO_ENTRY_NODE" }], summary: { node_count: 0, edge_count: 0 } });
  });
});

describe("node-type catalog", () => {
  it("lists the node types, not mistaking the path for a flow id", async () => {
    const body = await api.json("GET", "/api/v1/flows/node-types", 200, { token: owner.token });
    expect(body.total).toBe(body.node_types.length);
    expect(body.node_types.map((t: any) => t.type)).toEqual(
      expect.arrayContaining(["data_source", "indicator", "condition", "logic_and", "strategy", "risk_check", "order", "output"]),
    );
    const source = body.node_types.find((t: any) => t.type === "data_source");
    expect(source).toMatchObject({ entry: true, sink: false, inputs: [] });
    expect(source.outputs.map((o: any) => o.name)).toEqual(["bars", "close", "volume"]);
  });
});
