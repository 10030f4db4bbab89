import { createServer, type Server } from "node:net";
import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { AesGcmSecretBox } from "../../packages/adapters/src/crypto/aes-gcm-secret-box";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Keys } from "../../packages/adapters/src/dynamo/keys";
import { Brokers, type Broker } from "../../packages/core/src/brokers/index";
import { createTestApi, type TestApi } from "../support/harness";

/** A clock the fee tests can pin to a trading day; real time otherwise (tokens are checked against real time). */
const clock = { pinned: undefined as number | undefined };

let api: TestApi;
let admin: string;
beforeAll(async () => {
  api = await createTestApi({}, { now: () => clock.pinned ?? Date.now() });
  admin = await api.adminToken();
});

const secrets = {
  app_key: "lp-app-key-0123456789",
  app_secret: "lp-app-secret-abcdefghijklmnop",
  access_token: "tok-1234",
};

function longportBroker(userId: string, overrides: Record<string, unknown> = {}) {
  return { name: "LongPort main", code: "LP-01", type: "longport", user_id: userId, config: { ...secrets, region: "hk", account: "L123" }, ...overrides };
}

async function storedItem(brokerId: string): Promise<Record<string, unknown>> {
  const key = Keys.broker(brokerId);
  const result = await api.services.db.client.send(new GetCommand({ TableName: api.services.db.tableName, Key: { pk: key.pk, sk: key.sk } }));
  return result.Item!;
}

/** The config as stored, decrypted with the service's own key. */
async function storedConfig(brokerId: string) {
  return Brokers.openConfig(api.services.brokers, (await storedItem(brokerId)) as unknown as Broker);
}

describe("broker configs are encrypted at rest and masked in answers", () => {
  it("masks every secret in the create, get and list answers and keeps other fields readable", async () => {
    const user = await api.createUser();
    const created = await api.json("POST", "/api/v1/brokers", 201, { token: user.token, body: longportBroker(user.id) });
    const expected = { app_key: "lp****89", app_secret: "lp****op", access_token: "****", region: "hk", account: "L123" };
    expect(created.config).toEqual(expected);
    expect(created).toMatchObject({ name: "LongPort main", code: "LP-01", type: "longport", status: "active", user_id: user.id });

    const got = await api.json("GET", `/api/v1/brokers/${created.id}`, 200, { token: user.token });
    expect(got.config).toEqual(expected);
    const listed = await api.json("GET", "/api/v1/brokers", 200, { token: user.token });
    expect(listed.map((broker: any) => broker.config)).toEqual([expected]);
  });

  it("stores the config sealed: no secret appears in the raw item, and it opens to the original", async () => {
    const user = await api.createUser();
    const created = await api.json("POST", "/api/v1/brokers", 201, { token: user.token, body: longportBroker(user.id) });
    const raw = JSON.stringify(await storedItem(created.id));
    for (const value of [...Object.values(secrets), "L123"]) expect(raw).not.toContain(value);
    expect(raw).not.toContain("app_secret");
    expect(await storedConfig(created.id)).toEqual({ ...secrets, region: "hk", account: "L123" });
  });

  it("keeps the stored secret when the masked value is sent back, and replaces it when a new one is sent", async () => {
    const user = await api.createUser();
    const created = await api.json("POST", "/api/v1/brokers", 201, { token: user.token, body: longportBroker(user.id) });
    const updated = await api.json("PUT", `/api/v1/brokers/${created.id}`, 200, {
      token: user.token,
      body: { name: "Renamed", config: { ...created.config, app_secret: "brand-new-secret-value-42" } },
    });
    expect(updated.name).toBe("Renamed");
    expect(updated.config.app_secret).toBe("br****42");
    expect(await storedConfig(created.id)).toEqual({ ...secrets, app_secret: "brand-new-secret-value-42", region: "hk", account: "L123" });
  });

  it("refuses a masked value that does not match the stored secret instead of storing the mask", async () => {
    const user = await api.createUser();
    const created = await api.json("POST", "/api/v1/brokers", 201, { token: user.token, body: longportBroker(user.id) });
    const body = await api.json("PUT", `/api/v1/brokers/${created.id}`, 422, { token: user.token, body: { config: { app_key: "xx****yy" } } });
    expect(body.detail).toEqual([expect.objectContaining({ loc: ["body", "config", "app_key"], type: "masked_value" })]);
    expect((await storedConfig(created.id)).app_key).toBe(secrets.app_key);
  });

  it("removes a config field sent as null, but not one the broker type requires", async () => {
    const user = await api.createUser();
    const created = await api.json("POST", "/api/v1/brokers", 201, { token: user.token, body: longportBroker(user.id) });
    const updated = await api.json("PUT", `/api/v1/brokers/${created.id}`, 200, { token: user.token, body: { config: { account: null } } });
    expect(updated.config).not.toHaveProperty("account");
    const refused = await api.json("PUT", `/api/v1/brokers/${created.id}`, 422, { token: user.token, body: { config: { access_token: null } } });
    expect(refused.detail.map((issue: any) => issue.loc.join("."))).toEqual(["body.config.access_token"]);
  });

  it("checks the merged config against a new type", async () => {
    const user = await api.createUser();
    const paper = await api.json("POST", "/api/v1/brokers", 201, {
      token: user.token,
      body: { name: "Paper", code: "P", type: "paper", user_id: user.id, config: { initial_cash: 100000, currency: "HKD" } },
    });
    expect(paper.config).toEqual({ initial_cash: "100000", currency: "HKD" });
    const body = await api.json("PUT", `/api/v1/brokers/${paper.id}`, 422, { token: user.token, body: { type: "futu" } });
    expect(body.detail.map((issue: any) => issue.loc.join(".")).sort()).toEqual(["body.config.host", "body.config.port"]);
  });
  it("still lists a broker whose config was sealed under a lost key, and lets fresh credentials repair it", async () => {
    const user = await api.createUser();
    const created = await api.json("POST", "/api/v1/brokers", 201, { token: user.token, body: longportBroker(user.id) });
    const item = await storedItem(created.id);
    const foreignBox = new AesGcmSecretBox(new Uint8Array(32).fill(1));
    item.config_sealed = foreignBox.seal(JSON.stringify(secrets), created.id);
    await api.services.db.client.send(new PutCommand({ TableName: api.services.db.tableName, Item: item }));

    expect((await api.json("GET", `/api/v1/brokers/${created.id}`, 200, { token: user.token })).config).toEqual({});
    const test = await api.json("POST", `/api/v1/brokers/${created.id}/test`, 200, { token: user.token });
    expect(test).toMatchObject({ success: false, message: expect.stringContaining("cannot be decrypted") });
    const repaired = await api.json("PUT", `/api/v1/brokers/${created.id}`, 200, { token: user.token, body: { config: secrets } });
    expect(repaired.config).toEqual({ app_key: "lp****89", app_secret: "lp****op", access_token: "****" });
    expect(await storedConfig(created.id)).toEqual(secrets);
  });
});

describe("broker input validation", () => {
  it("lists every problem of a create in one 422, including the type's required config fields", async () => {
    const user = await api.createUser();
    const body = await api.json("POST", "/api/v1/brokers", 422, {
      token: user.token,
      body: { name: "", code: "X", type: "longport", user_id: user.id, config: { app_key: "k-1234567890", port: 0, surprise: true } },
    });
    expect(body.detail.map((issue: any) => issue.loc.join(".")).sort()).toEqual([
      "body.config",
      "body.config.access_token",
      "body.config.app_secret",
      "body.config.port",
      "body.name",
    ]);
  });

  it("refuses a mask where a credential belongs on create", async () => {
    const user = await api.createUser();
    const body = await api.json("POST", "/api/v1/brokers", 422, {
      token: user.token,
      body: longportBroker(user.id, { config: { ...secrets, app_secret: "ab****yz" } }),
    });
    expect(body.detail.map((issue: any) => issue.loc.join("."))).toEqual(["body.config.app_secret"]);
  });

  it("answers malformed bodies with 4xx, never 500", async () => {
    const user = await api.createUser();
    const created = await api.json("POST", "/api/v1/brokers", 201, { token: user.token, body: longportBroker(user.id) });
    const targets: [string, string, string[]][] = [
      ["POST", "/api/v1/brokers", ['{"config": "x"}', '{"type": "longport", "config": {}}']],
      ["PUT", `/api/v1/brokers/${created.id}`, ['{"config": "x"}', '{"status": "paused"}', '{"config": {"port": "80"}}']],
      ["PUT", `/api/v1/brokers/${created.id}/fee-config`, ['{"us_fees": {"nope": 1}}', '{"hk_fees": {"stamp_duty_schedule": []}}']],
      ["POST", `/api/v1/brokers/${created.id}/fee-config/calculate`, ['{"quantity": "-1"}', '{"quantity": 1e400, "price": 1, "side": "buy", "market": "US"}']],
    ];
    for (const [method, path, specific] of targets) {
      for (const body of ["not json", "[]", "null", '"text"', ...specific]) {
        const response = await api.request(method, path, { token: user.token, body });
        expect(response.status, `${method} ${path} ${body}`).toBeGreaterThanOrEqual(400);
        expect(response.status, `${method} ${path} ${body}`).toBeLessThan(500);
      }
    }
  });
});

describe("broker ownership", () => {
  it("lets a user create brokers only for themself; an administrator for anyone who exists", async () => {
    const alice = await api.createUser();
    const bob = await api.createUser();
    const denied = await api.json("POST", "/api/v1/brokers", 403, { token: alice.token, body: longportBroker(bob.id) });
    expect(denied.error_code).toBe("ACCESS_DENIED");
    const byAdmin = await api.json("POST", "/api/v1/brokers", 201, { token: admin, body: longportBroker(bob.id) });
    expect(byAdmin.user_id).toBe(bob.id);
    const nobody = await api.json("POST", "/api/v1/brokers", 404, { token: admin, body: longportBroker("no-such-user") });
    expect(nobody.error_code).toBe("USER_NOT_FOUND");
  });

  it("answers 403 ACCESS_DENIED to another user on every broker and fee endpoint", async () => {
    const owner = await api.createUser();
    const other = await api.createUser();
    const broker = await api.json("POST", "/api/v1/brokers", 201, { token: owner.token, body: longportBroker(owner.id) });
    const calls: [string, string, unknown?][] = [
      ["GET", `/api/v1/brokers/${broker.id}`],
      ["PUT", `/api/v1/brokers/${broker.id}`, { name: "mine now" }],
      ["DELETE", `/api/v1/brokers/${broker.id}`],
      ["POST", `/api/v1/brokers/${broker.id}/test`],
      ["GET", `/api/v1/brokers/${broker.id}/fee-config`],
      ["PUT", `/api/v1/brokers/${broker.id}/fee-config`, {}],
      ["POST", `/api/v1/brokers/${broker.id}/fee-config/calculate`, { quantity: 1, price: 1, side: "buy", market: "US" }],
    ];
    for (const [method, path, body] of calls) {
      const answer = await api.json(method, path, 403, { token: other.token, body });
      expect(answer.error_code, `${method} ${path}`).toBe("ACCESS_DENIED");
    }
    const others = await api.json("GET", `/api/v1/brokers?user_id=${owner.id}`, 403, { token: other.token });
    expect(others.error_code).toBe("ACCESS_DENIED");
    expect(await api.json("GET", "/api/v1/brokers", 200, { token: other.token })).toEqual([]);
    // The owner and an administrator still see it, config masked.
    await api.json("GET", `/api/v1/brokers/${broker.id}`, 200, { token: admin });
    const listedForAdmin = await api.json("GET", `/api/v1/brokers?user_id=${owner.id}`, 200, { token: admin });
    expect(listedForAdmin.map((b: any) => b.id)).toEqual([broker.id]);
  });

  it("answers 404 BROKER_NOT_FOUND for an unknown id", async () => {
    const user = await api.createUser();
    for (const [method, path] of [
      ["GET", "/api/v1/brokers/nope"],
      ["DELETE", "/api/v1/brokers/nope"],
      ["POST", "/api/v1/brokers/nope/test"],
      ["GET", "/api/v1/brokers/nope/fee-config"],
    ]) {
      expect((await api.json(method, path, 404, { token: user.token })).error_code).toBe("BROKER_NOT_FOUND");
    }
  });

  it("lists a user's brokers oldest first, also as their accounts, and deletes with a result", async () => {
    const user = await api.createUser();
    const first = await api.json("POST", "/api/v1/brokers", 201, { token: user.token, body: longportBroker(user.id, { name: "First" }) });
    const second = await api.json("POST", "/api/v1/brokers", 201, {
      token: user.token,
      body: { name: "Second", code: "S", type: "simulated", user_id: user.id, config: {} },
    });
    const listed = await api.json("GET", "/api/v1/brokers", 200, { token: user.token });
    expect(listed.map((b: any) => b.name)).toEqual(["First", "Second"]);
    const accounts = await api.json("GET", `/api/v1/users/${user.id}/accounts`, 200, { token: user.token });
    expect(accounts.accounts.map((a: any) => [a.broker_id, a.type, a.status])).toEqual([
      [first.id, "longport", "active"],
      [second.id, "simulated", "active"],
    ]);
    const deleted = await api.json("DELETE", `/api/v1/brokers/${first.id}`, 200, { token: user.token });
    expect(deleted).toEqual({ success: true, message: "Broker First deleted", id: first.id });
    await api.json("GET", `/api/v1/brokers/${first.id}`, 404, { token: user.token });
  });
});

describe("broker connection tests", () => {
  let gateway: Server;
  let gatewayPort: number;
  beforeAll(async () => {
    gateway = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => gateway.listen(0, "127.0.0.1", resolve));
    gatewayPort = (gateway.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => gateway.close(() => resolve())));

  it("tries the real LongPort connection and, unreachable here, answers success false and marks the broker error", async () => {
    const user = await api.createUser();
    const broker = await api.json("POST", "/api/v1/brokers", 201, { token: user.token, body: longportBroker(user.id) });
    const result = await api.json("POST", `/api/v1/brokers/${broker.id}/test`, 200, { token: user.token });
    expect(result.success).toBe(false);
    expect(result.message).toMatch(/^LongPort connection failed: /);
    expect(typeof result.response_time).toBe("number");
    expect((await api.json("GET", `/api/v1/brokers/${broker.id}`, 200, { token: user.token })).status).toBe("error");
  });

  it("succeeds for a paper broker with a valid config, returning an error broker to active", async () => {
    const user = await api.createUser();
    const broker = await api.json("POST", "/api/v1/brokers", 201, {
      token: user.token,
      body: { name: "Paper", code: "P", type: "paper", status: "error", user_id: user.id, config: { initial_cash: "50000", currency: "USD" } },
    });
    const result = await api.json("POST", `/api/v1/brokers/${broker.id}/test`, 200, { token: user.token });
    expect(result).toMatchObject({ success: true, message: expect.stringContaining("initial cash 50000 USD") });
    expect((await api.json("GET", `/api/v1/brokers/${broker.id}`, 200, { token: user.token })).status).toBe("active");
  });

  it("never reaches loopback, private, link-local or metadata addresses for a user, open port or closed alike", async () => {
    const user = await api.createUser();
    const answers = new Set<string>();
    for (const [host, port] of [
      ["127.0.0.1", gatewayPort],
      ["127.0.0.1", 1],
      ["localhost", gatewayPort],
      ["169.254.169.254", 80],
      ["10.0.0.1", 22],
      ["::1", gatewayPort],
      ["0.0.0.0", gatewayPort],
      ["::ffff:127.0.0.1", gatewayPort],
    ] as const) {
      const broker = await api.json("POST", "/api/v1/brokers", 201, {
        token: user.token,
        body: { name: `Futu ${host}`, code: "F", type: "futu", user_id: user.id, config: { host, port } },
      });
      const result = await api.json("POST", `/api/v1/brokers/${broker.id}/test`, 200, { token: user.token });
      expect(result.success).toBe(false);
      expect(result.message).toMatch(/is not an allowed destination: it resolves to a loopback, private, link-local or reserved address/);
      answers.add(result.message.replace(host, "HOST"));
    }
    // The same answer whatever is listening there.
    expect(answers.size).toBe(1);
  });

  it("keeps LongPort endpoint URLs on LongPort's own https/wss hosts", async () => {
    const user = await api.createUser();
    for (const http_url of ["http://127.0.0.1:8080", "https://169.254.169.254/latest/meta-data", "https://example.com", "http://openapi.longportapp.com"]) {
      const broker = await api.json("POST", "/api/v1/brokers", 201, {
        token: user.token,
        body: { ...longportBroker(user.id), config: { ...longportBroker(user.id).config, http_url } },
      });
      const result = await api.json("POST", `/api/v1/brokers/${broker.id}/test`, 200, { token: user.token });
      expect(result).toMatchObject({
        success: false,
        message: expect.stringMatching(/is not an allowed destination: http_url must be a https URL on LongPort's own domains/),
      });
    }
  });

  it("reaches a Futu OpenD gateway on a host an administrator allowed, and says only that a closed one failed", async () => {
    const allowed = await createTestApi({ BROKER_ALLOWED_HOSTS: "127.0.0.1" });
    const user = await allowed.createUser();
    const reachable = await allowed.json("POST", "/api/v1/brokers", 201, {
      token: user.token,
      body: { name: "Futu", code: "F", type: "futu", user_id: user.id, config: { host: "127.0.0.1", port: gatewayPort } },
    });
    expect((await allowed.json("POST", `/api/v1/brokers/${reachable.id}/test`, 200, { token: user.token })).success).toBe(true);
    const closed = await allowed.json("POST", "/api/v1/brokers", 201, {
      token: user.token,
      body: { name: "Futu off", code: "F2", type: "futu", status: "inactive", user_id: user.id, config: { host: "127.0.0.1", port: 1 } },
    });
    const result = await allowed.json("POST", `/api/v1/brokers/${closed.id}/test`, 200, { token: user.token });
    expect(result.success).toBe(false);
    expect(result.message).toBe("Futu OpenD gateway at 127.0.0.1:1 did not accept a connection within 10000 ms");
    expect(result.message).not.toMatch(/ECONNREFUSED|refused/i);
    // An inactive broker stays inactive whatever the test says.
    expect((await allowed.json("GET", `/api/v1/brokers/${closed.id}`, 200, { token: user.token })).status).toBe("inactive");
  });

  it("reaches a private host once an administrator lists it in the settings; users may neither read nor change the list", async () => {
    const user = await api.createUser();
    const admin = await api.adminToken();
    const broker = await api.json("POST", "/api/v1/brokers", 201, {
      token: user.token,
      body: { name: "Futu LAN", code: "F3", type: "futu", user_id: user.id, config: { host: "127.0.0.1", port: gatewayPort } },
    });
    expect((await api.json("POST", `/api/v1/brokers/${broker.id}/test`, 200, { token: user.token })).success).toBe(false);
    expect((await api.json("GET", "/api/v1/settings/broker-network", 403, { token: user.token })).error_code).toBe("ACCESS_DENIED");
    await api.json("PUT", "/api/v1/settings/broker-network", 403, { token: user.token, body: { allowed_hosts: ["127.0.0.1"] } });
    await api.json("PUT", "/api/v1/settings/broker-network", 422, { token: admin, body: { allowed_hosts: ["not a host!"] } });
    expect(await api.json("PUT", "/api/v1/settings/broker-network", 200, { token: admin, body: { allowed_hosts: ["127.0.0.1"] } })).toEqual({
      allowed_hosts: ["127.0.0.1"],
    });
    try {
      expect(await api.json("GET", "/api/v1/settings/broker-network", 200, { token: admin })).toEqual({ allowed_hosts: ["127.0.0.1"] });
      expect((await api.json("POST", `/api/v1/brokers/${broker.id}/test`, 200, { token: user.token })).success).toBe(true);
    } finally {
      await api.json("PUT", "/api/v1/settings/broker-network", 200, { token: admin, body: { allowed_hosts: [] } });
    }
  });
});

describe("broker fee configuration and the calculator", () => {
  it("answers the broker type's defaults until overridden, and PUT replaces", async () => {
    const user = await api.createUser();
    const broker = await api.json("POST", "/api/v1/brokers", 201, { token: user.token, body: longportBroker(user.id) });
    const defaults = await api.json("GET", `/api/v1/brokers/${broker.id}/fee-config`, 200, { token: user.token });
    expect(defaults.hk_fees).toMatchObject({ commission_rate: "0", platform_fee_per_order: "15" });
    expect(defaults.us_fees).toMatchObject({ commission_per_share: "0.0049", commission_min_per_order: "0.99" });

    const changed = await api.json("PUT", `/api/v1/brokers/${broker.id}/fee-config`, 200, {
      token: user.token,
      body: { hk_fees: { commission_rate: 0.0003, commission_min_per_order: "3" } },
    });
    expect(changed.hk_fees).toMatchObject({ commission_rate: "0.0003", commission_min_per_order: "3", platform_fee_per_order: "15" });
    expect(await api.json("GET", `/api/v1/brokers/${broker.id}/fee-config`, 200, { token: user.token })).toEqual(changed);
    expect((await storedItem(broker.id)).fee_overrides).toEqual({ hk_fees: { commission_rate: "0.0003", commission_min_per_order: "3" } });

    const reset = await api.json("PUT", `/api/v1/brokers/${broker.id}/fee-config`, 200, { token: user.token, body: {} });
    expect(reset).toEqual(defaults);
  });

  it("prices buying 1,000 700.HK at HK$400 on 2025-09-15, every charge as computed by hand", async () => {
    const user = await api.createUser();
    const broker = await api.json("POST", "/api/v1/brokers", 201, { token: user.token, body: longportBroker(user.id) });
    clock.pinned = Date.parse("2025-09-15T04:00:00Z"); // noon in Hong Kong
    try {
      const result = await api.json("POST", `/api/v1/brokers/${broker.id}/fee-config/calculate`, 200, {
        token: user.token,
        body: { broker_id: broker.id, quantity: 1000, price: "400", side: "buy", market: "HK" },
      });
      // Trade value 1,000 × 400 = 400,000.
      expect(result.fee_details).toEqual({
        market: "HK",
        currency: "HKD",
        side: "buy",
        trade_date: "2025-09-15",
        commission: "0.00", // LongPort HK: no commission
        platform_fee: "15.00", // per order
        stamp_duty: "400.00", // 0.10% = 400, rounded up to the dollar
        sfc_levy: "10.80", // 0.0027% = 10.80
        afrc_levy: "0.60", // 0.00015% = 0.60
        exchange_trading_fee: "22.60", // 0.00565% = 22.60
        settlement_fee: "16.80", // 0.0042% since 2025-06-30 = 16.80
        total: "465.80", // 15 + 400 + 10.80 + 0.60 + 22.60 + 16.80
      });
      expect(result.trade_amount).toBe("400000.00");
      expect(result.total_cost).toBe("400465.80");

      // The broker's own commission override is used: 0.03% of 400,000 = 120.
      await api.json("PUT", `/api/v1/brokers/${broker.id}/fee-config`, 200, {
        token: user.token,
        body: { hk_fees: { commission_rate: "0.0003", commission_min_per_order: "3" } },
      });
      const withCommission = await api.json("POST", `/api/v1/brokers/${broker.id}/fee-config/calculate`, 200, {
        token: user.token,
        body: { quantity: 1000, price: 400, side: "buy", market: "HK" },
      });
      expect(withCommission.fee_details).toMatchObject({ commission: "120.00", total: "585.80" });
    } finally {
      clock.pinned = undefined;
    }
  });

  it("prices selling 100 AAPL.US at $190 on 2024-08-01, every charge as computed by hand", async () => {
    const user = await api.createUser();
    const broker = await api.json("POST", "/api/v1/brokers", 201, { token: user.token, body: longportBroker(user.id) });
    clock.pinned = Date.parse("2024-08-01T15:00:00Z"); // 11:00 in New York
    try {
      const result = await api.json("POST", `/api/v1/brokers/${broker.id}/fee-config/calculate`, 200, {
        token: user.token,
        body: { quantity: "100", price: "190", side: "sell", market: "US" },
      });
      // Trade value 100 × 190 = 19,000.
      expect(result.fee_details).toEqual({
        market: "US",
        currency: "USD",
        side: "sell",
        trade_date: "2024-08-01",
        commission: "0.99", // 100 × 0.0049 = 0.49, raised to the 0.99 minimum
        platform_fee: "1.00", // 100 × 0.005 = 0.50, raised to the 1.00 minimum
        settlement_fee: "0.30", // 100 × 0.003
        cat_fee: "0.00",
        sec_fee: "0.53", // 19,000 × $27.80/M = 0.5282, up to the cent
        finra_taf: "0.02", // 100 × 0.000166 = 0.0166, up to the cent
        total: "2.84",
      });
      expect(result.trade_amount).toBe("19000.00");
      expect(result.total_cost).toBe("19002.84");
    } finally {
      clock.pinned = undefined;
    }
  });

  it("refuses a body broker_id that names another broker, and lists every bad field", async () => {
    const user = await api.createUser();
    const broker = await api.json("POST", "/api/v1/brokers", 201, { token: user.token, body: longportBroker(user.id) });
    const mismatch = await api.json("POST", `/api/v1/brokers/${broker.id}/fee-config/calculate`, 422, {
      token: user.token,
      body: { broker_id: "another", quantity: 1, price: 1, side: "buy", market: "HK" },
    });
    expect(mismatch.detail.map((issue: any) => issue.loc.join("."))).toEqual(["body.broker_id"]);
    const bad = await api.json("POST", `/api/v1/brokers/${broker.id}/fee-config/calculate`, 422, {
      token: user.token,
      body: { quantity: 0, price: "abc", side: "hold", market: "JP" },
    });
    expect(bad.detail.map((issue: any) => issue.loc.join(".")).sort()).toEqual(["body.market", "body.price", "body.quantity", "body.side"]);
  });
});
