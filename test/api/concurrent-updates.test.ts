import { beforeAll, describe, expect, it } from "vitest";
import { createTestApi, type TestApi } from "../support/harness";

/**
 * Concurrent updates of one resource (docs/api-conventions.md "Concurrent updates"): every GET and
 * PUT answers an ETag; a PUT with If-Match that no longer matches answers 412; writers with the same
 * If-Match race for one version; a PUT without If-Match is last-writer-wins.
 */
let api: TestApi;
let user: { id: string; token: string };
beforeAll(async () => {
  api = await createTestApi();
  user = await api.createUser();
});

const broker = () => ({
  name: "LongPort main",
  code: "LP-01",
  type: "longport",
  user_id: user.id,
  config: { app_key: "lp-app-key-0123456789", app_secret: "lp-app-secret-abcdefghijklmnop", access_token: "tok-1234", region: "hk", account: "L123" },
});
const tagOf = async (url: string) => (await api.request("GET", url, { token: user.token })).headers.get("ETag");
const flow = () => ({ name: "contested", nodes: [], edges: [] });

describe.each([
  { kind: "broker", path: "/api/v1/brokers", body: broker, changed: "BROKER_CHANGED" },
  { kind: "flow", path: "/api/v1/flows", body: flow, changed: "FLOW_CHANGED" },
])("concurrent PUTs of one $kind", ({ path, body, changed }) => {
  it("tags GET and PUT with the version, refuses a stale If-Match with 412 and lets one of ten writers with the same tag win", async () => {
    const created = await api.json("POST", path, 201, { token: user.token, body: body() });
    const url = `${path}/${created.id}`;
    const read = await api.request("GET", url, { token: user.token });
    expect(read.headers.get("ETag")).toBe('"v1"');

    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => api.request("PUT", url, { token: user.token, headers: { "If-Match": '"v1"' }, body: { name: `writer ${i}` } })),
    );
    const codes = await Promise.all(answers.map(async (a) => (a.status === 200 ? 200 : `${a.status} ${((await a.json()) as any).error_code}`)));
    expect(codes.filter((c) => c === 200)).toHaveLength(1);
    // The others lost the race for version 1 (409) or came in once it was gone (412).
    for (const code of codes.filter((c) => c !== 200)) expect([`409 ${changed}`, "412 PRECONDITION_FAILED"]).toContain(code);
    const winner = answers.find((a) => a.status === 200)!;
    expect(winner.headers.get("ETag")).toBe('"v2"');
    const stored = await api.json("GET", url, 200, { token: user.token });
    expect(await tagOf(url)).toBe('"v2"');
    expect(stored.name).toBe(((await winner.json()) as any).name);

    // A stale tag: 412 naming the current one; nothing changes.
    const stale = await api.request("PUT", url, { token: user.token, headers: { "If-Match": '"v1"' }, body: { name: "stale" } });
    expect(stale.status).toBe(412);
    expect(await stale.json()).toMatchObject({ error_code: "PRECONDITION_FAILED", current_etag: '"v2"' });
    expect((await api.json("GET", url, 200, { token: user.token })).name).toBe(stored.name);
    // The current tag (or *) is taken.
    const current = await api.request("PUT", url, { token: user.token, headers: { "If-Match": '"v2"' }, body: { name: "current" } });
    expect([current.status, current.headers.get("ETag")]).toEqual([200, '"v3"']);

    // Without If-Match the last writer wins: ten at once all land, each on its own version.
    const free = await Promise.all(Array.from({ length: 10 }, (_, i) => api.request("PUT", url, { token: user.token, body: { name: `free ${i}` } })));
    expect(free.map((a) => a.status)).toEqual(Array(10).fill(200));
    const versions = free.map((a) => Number(a.headers.get("ETag")!.slice(2, -1))).sort((a, b) => a - b);
    expect(versions).toEqual(Array.from({ length: 10 }, (_, i) => 4 + i));
    expect(await tagOf(url)).toBe('"v13"');
  });
});

describe("ETags of resources without a version", () => {
  it("tags a GET by its content: the same answer the same tag, a changed one another", async () => {
    const first = await api.request("GET", "/api/v1/me", { token: user.token });
    const again = await api.request("GET", "/api/v1/me", { token: user.token });
    expect(first.headers.get("ETag")).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(again.headers.get("ETag")).toBe(first.headers.get("ETag"));
  });
});
