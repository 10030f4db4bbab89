import { beforeAll, describe, expect, it } from "vitest";
import { createTestApi, type TestApi } from "../support/harness";

/** The input bounds every route gets before its own schema (core/bounds.ts). */
let api: TestApi;
let token: string;
beforeAll(async () => {
  api = await createTestApi();
  token = await api.adminToken();
});

const flow = (extra: Record<string, unknown>) => ({ name: "bounded", nodes: [{ id: "n1", type: "input", data: extra }], edges: [] });
const locs = (body: { detail: { loc: (string | number)[] }[] }) => body.detail.map((issue) => issue.loc.join("."));

describe("input bounds", () => {
  it("refuse numbers the store cannot keep, wherever they sit in a body", async () => {
    for (const value of [1e308, 2 ** 64, 9007199254740993, 5e-324, -1e200]) {
      const body = await api.json("POST", "/api/v1/flows", 422, { token, body: flow({ value }) });
      expect(locs(body)).toEqual(["body.nodes.0.data.value"]);
    }
    // Numbers written as text beyond what JSON numbers keep parse to Infinity: refused too.
    const infinite = await api.request("POST", "/api/v1/flows", { token, body: '{"name":"x","nodes":[{"id":"n","data":{"v":1e999}}],"edges":[]}' });
    expect(infinite.status).toBe(422);
    await api.json("POST", "/api/v1/flows", 201, { token, body: flow({ value: 9007199254740991, small: 1e-100, zero: 0, price: 0.0001 }) });
  });

  it("refuse bodies nested too deep and strings too long, listing every problem", async () => {
    let deep: unknown = 1;
    for (let i = 0; i < 40; i++) deep = { next: deep };
    const nested = await api.json("POST", "/api/v1/channel-presets/validate", 422, { token, body: deep });
    expect(nested.detail[0].type).toBe("too_deep");
    const long = "x".repeat(70_000);
    const strings = await api.json("POST", "/api/v1/api-test/trade/replace-order", 422, { token, body: { order_id: long, quantity: long } });
    expect(locs(strings)).toEqual(["body.order_id", "body.quantity"]);
  });

  it("refuse the keys that name JavaScript's object machinery", async () => {
    const body = await api.json("POST", "/api/v1/flows", 422, { token, body: { name: "x", nodes: [], edges: [{ id: "e", constructor: "x" }] } });
    expect(locs(body)).toEqual(["body.edges.0.constructor"]);
    const proto = await api.request("POST", "/api/v1/flows", { token, body: '{"name":"x","__proto__":{"admin":true}}' });
    expect(proto.status).toBe(422);
  });

  it("bound ids: an order_id of 1,100 characters is a 422, not a failed table read", async () => {
    for (const call of ["order-detail", "cancel-order"]) {
      const body = await api.json("POST", `/api/v1/api-test/trade/${call}`, 422, { token, body: { order_id: "o".repeat(1100) } });
      expect(locs(body)).toEqual(["body.order_id"]);
    }
  });

  it("answer 413 for a body over 1 MiB, and 422 for a path segment or query value too long", async () => {
    const huge = await api.request("POST", "/api/v1/flows", { token, body: JSON.stringify({ name: "x", blob: "y".repeat(1_100_000) }) });
    expect(huge.status).toBe(413);
    expect(((await huge.json()) as any).error_code).toBe("PAYLOAD_TOO_LARGE");
    const path = await api.json("GET", `/api/v1/trading/sessions/${"a".repeat(1100)}`, 422, { token });
    expect(path.detail[0].type).toBe("string_too_long");
    await api.json("GET", `/api/v1/stock-data?code=${"A".repeat(5000)}`, 422, { token });
  });
});
