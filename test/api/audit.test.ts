import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestApi, type TestApi } from "../support/harness";

const AUDIT = "/api/v1/audit";
const DAY_S = 86_400;

let api: TestApi;
let alice: { id: string; token: string };
let bob: { id: string; token: string };
let sessionId: string;
let keyId: string;

interface Entry {
  id: string;
  at: string;
  user_id: string;
  key_id: string | null;
  kind: string;
  method: string;
  route: string;
  status: number;
  outcome: string;
  error_code: string | null;
  session_id: string | null;
  target_ids: Record<string, string>;
  summary: Record<string, unknown>;
  request_id: string;
}

/** What the comparisons look at: the command and how it ended. */
const shape = (entry: Entry) => [entry.method, entry.route, entry.status, entry.outcome, entry.kind, entry.key_id];

const sessionBody = {
  session_name: "Audited",
  trading_mode: "simulation",
  asset_mode: "simulated",
  initial_capital: 100000,
  tradable_symbols: ["aapl.us"],
  config: { strategy_name: "ma_crossover", parameters: { fast_period: 5 } },
};

/** Alice's scripted commands, in order, refused ones among them, with reads and checks between that the trail leaves out. */
beforeAll(async () => {
  api = await createTestApi({ AUDIT_RETENTION_DAYS: "30" });
  alice = await api.createUser();
  bob = await api.createUser();
  const token = alice.token;
  const created = await api.request("POST", "/api/v1/trading/sessions", { token, body: sessionBody, headers: { "X-Request-Id": "script-1" } });
  expect(created.status).toBe(201);
  sessionId = ((await created.json()) as { id: string }).id;
  await api.json("GET", `/api/v1/trading/sessions/${sessionId}`, 200, { token });
  await api.json("PUT", `/api/v1/trading/sessions/${sessionId}`, 200, { token, body: { session_name: "Renamed" } });
  await api.json("POST", `/api/v1/trading/sessions/${sessionId}/pause`, 409, { token });
  await api.json("PUT", `/api/v1/users/${alice.id}`, 200, { token, body: { password: "another-password-1" } });
  await api.json("POST", "/api/v1/risk/validate", 200, { token, body: { config: {} } });
  const key = await api.json("POST", "/api/v1/auth/api-keys", 201, { token, body: { name: "reader", scopes: ["read"] } });
  keyId = key.id;
  await api.json("POST", "/api/v1/trading/simulation/orders", 403, { token: key.key, body: { symbol: "AAPL.US", side: "buy", quantity: "1" } });
  await api.json("DELETE", `/api/v1/auth/api-keys/${keyId}`, 200, { token });
  // Without a credential there is no one to record.
  await api.json("POST", "/api/v1/trading/sessions", 401, { body: sessionBody });
  await api.json("POST", "/api/v1/trading/sessions", 201, { token: bob.token, body: { ...sessionBody, session_name: "Bob's" } });
});

describe("the audit trail", () => {
  it("lists a user's scripted commands exactly, newest first, refused ones included, with who and how they ended", async () => {
    const page = await api.json("GET", AUDIT, 200, { token: alice.token });
    expect(page.next_cursor).toBeNull();
    const entries = page.items as Entry[];
    expect(entries.map(shape)).toEqual([
      ["DELETE", "/api/v1/auth/api-keys/{key_id}", 200, "succeeded", "key", null],
      ["POST", "/api/v1/trading/simulation/orders", 403, "refused", "order", keyId],
      ["POST", "/api/v1/auth/api-keys", 201, "succeeded", "key", null],
      ["PUT", "/api/v1/users/{user_id}", 200, "succeeded", "user", null],
      ["POST", "/api/v1/trading/sessions/{session_id}/pause", 409, "refused", "session", null],
      ["PUT", "/api/v1/trading/sessions/{session_id}", 200, "succeeded", "session", null],
      ["POST", "/api/v1/trading/sessions", 201, "succeeded", "session", null],
    ]);
    expect(entries.every((entry) => entry.user_id === alice.id)).toBe(true);
    const [revoke, order, , password, pause, , create] = entries as [Entry, Entry, Entry, Entry, Entry, Entry, Entry];
    expect(create).toMatchObject({ request_id: "script-1", session_id: sessionId, target_ids: { result_id: sessionId }, error_code: null });
    expect(create.summary).toMatchObject({
      session_name: "Audited",
      tradable_symbols: ["aapl.us"],
      config: { strategy_name: "ma_crossover", parameters: "{1 field}" },
    });
    expect(pause).toMatchObject({ error_code: "INVALID_STATE_TRANSITION", session_id: sessionId, target_ids: { session_id: sessionId } });
    expect(order).toMatchObject({ error_code: "ACCESS_DENIED", summary: { symbol: "AAPL.US", side: "buy", quantity: "1" } });
    expect(revoke.target_ids).toEqual({ key_id: keyId });
    // The password never reaches the trail.
    expect(password.summary).toEqual({ password: "[redacted]" });
    expect(JSON.stringify(entries)).not.toContain("another-password-1");
    // Ids sort as the entries were recorded.
    expect(entries.map((entry) => entry.id)).toEqual(
      entries
        .map((entry) => entry.id)
        .sort()
        .reverse(),
    );
  });

  it("pages with a cursor, and filters by session and by kind", async () => {
    const all = (await api.json("GET", AUDIT, 200, { token: alice.token })).items as Entry[];
    const first = await api.json("GET", `${AUDIT}?limit=3`, 200, { token: alice.token });
    const second = await api.json("GET", `${AUDIT}?limit=3&cursor=${first.next_cursor}`, 200, { token: alice.token });
    const third = await api.json("GET", `${AUDIT}?limit=3&cursor=${second.next_cursor}`, 200, { token: alice.token });
    expect(third.next_cursor).toBeNull();
    expect([...first.items, ...second.items, ...third.items].map((entry: Entry) => entry.id)).toEqual(all.map((entry) => entry.id));

    const ofSession = (await api.json("GET", `${AUDIT}?session_id=${sessionId}`, 200, { token: alice.token })).items as Entry[];
    expect(ofSession.map((entry) => [entry.method, entry.route])).toEqual([
      ["POST", "/api/v1/trading/sessions/{session_id}/pause"],
      ["PUT", "/api/v1/trading/sessions/{session_id}"],
      ["POST", "/api/v1/trading/sessions"],
    ]);
    const ofKeys = (await api.json("GET", `${AUDIT}?kind=key`, 200, { token: alice.token })).items as Entry[];
    expect(ofKeys.map((entry) => entry.method)).toEqual(["DELETE", "POST"]);
    const before = (await api.json("GET", `${AUDIT}?to=${encodeURIComponent(all[6]!.at)}&from=${encodeURIComponent(all[6]!.at)}`, 200, { token: alice.token }))
      .items as Entry[];
    expect(before.map((entry) => entry.id)).toContain(all[6]!.id);
  });

  it("shows a user only their own entries and an administrator everyone's", async () => {
    const bobs = (await api.json("GET", AUDIT, 200, { token: bob.token })).items as Entry[];
    expect(bobs.map(shape)).toEqual([["POST", "/api/v1/trading/sessions", 201, "succeeded", "session", null]]);
    await api.json("GET", `${AUDIT}?user_id=${bob.id}`, 403, { token: alice.token });
    // Another's session: nothing of theirs shows.
    expect((await api.json("GET", `${AUDIT}?session_id=${sessionId}`, 200, { token: bob.token })).items).toEqual([]);

    const admin = await api.adminToken();
    const everyone = (await api.json("GET", `${AUDIT}?limit=200`, 200, { token: admin })).items as Entry[];
    const users = new Set(everyone.map((entry) => entry.user_id));
    expect(users).toContain(alice.id);
    expect(users).toContain(bob.id);
    // The administrator's own commands (creating both users) are there too.
    expect(everyone.filter((entry) => entry.route === "/api/v1/users" && entry.method === "POST")).toHaveLength(2);
    expect(everyone.map((entry) => entry.id)).toEqual(
      everyone
        .map((entry) => entry.id)
        .sort()
        .reverse(),
    );
    const alices = (await api.json("GET", `${AUDIT}?user_id=${alice.id}`, 200, { token: admin })).items as Entry[];
    expect(alices).toHaveLength(7);
  });

  it("answers 422 listing every bad filter", async () => {
    const bad = await api.json("GET", `${AUDIT}?from=yesterday&kind=nothing&limit=0`, 422, { token: alice.token });
    expect(bad.detail.map((issue: { loc: string[] }) => issue.loc.join(".")).sort()).toEqual(["query.from", "query.kind", "query.limit"]);
    const reversed = await api.json("GET", `${AUDIT}?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z&cursor=nope`, 422, { token: alice.token });
    expect(reversed.detail.map((issue: { loc: string[] }) => issue.loc.join(".")).sort()).toEqual(["query.cursor", "query.from"]);
    const long = await api.json("GET", `${AUDIT}?from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z`, 422, { token: alice.token });
    expect(long.detail[0].msg).toContain("31 days");
  });

  it("keeps each entry for the configured retention (its ttl)", async () => {
    const [newest] = (await api.json("GET", AUDIT, 200, { token: alice.token })).items as Entry[];
    const day = newest!.at.slice(0, 10);
    const stored = await api.services.db.client.send(
      new QueryCommand({
        TableName: api.services.db.tableName,
        KeyConditionExpression: "pk = :pk AND sk = :sk",
        ExpressionAttributeValues: { ":pk": `AUDIT#USER#${alice.id}#${day}`, ":sk": newest!.id },
      }),
    );
    expect(stored.Items).toHaveLength(1);
    expect(stored.Items![0]!.ttl).toBe(Math.floor(Date.parse(newest!.at) / 1000) + 30 * DAY_S);
    expect(stored.Items![0]!.gsi2pk).toMatch(new RegExp(`^AUDIT#DAY#${day}#[0-7]$`));
  });
});
