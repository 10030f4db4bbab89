import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { AesGcmSecretBox } from "../../packages/adapters/src/crypto/aes-gcm-secret-box";
import { Keys } from "../../packages/adapters/src/dynamo/keys";
import { createServices } from "../../packages/adapters/src/services";
import { PROVIDER_SECRET_CONTEXT } from "../../packages/core/src/settings/index";
import { createTestApi, TEST_ENCRYPTION_KEY, type TestApi } from "../support/harness";

const credentials = {
  app_key: "lp-app-key-0123456789",
  app_secret: "lp-app-secret-abcdefghijklmnop",
  access_token: "lp-access-token-ZYXWVUTSRQ",
};
const masked = { app_key: "lp****89", app_secret: "lp****op", access_token: "lp****RQ" };

/** A fresh service on its own table (settings are service-wide) with an administrator and a user. */
async function setup() {
  const api = await createTestApi();
  return { api, admin: await api.adminToken(), user: (await api.createUser()).token };
}

async function rawItem(api: TestApi, key: { pk: string; sk: string }) {
  const result = await api.services.db.client.send(new GetCommand({ TableName: api.services.db.tableName, Key: key }));
  return result.Item;
}

/** The credentials as stored, opened with the service's key. */
async function storedCredentials(api: TestApi) {
  const item = await rawItem(api, Keys.serviceSettings("PROVIDER"));
  return JSON.parse(new AesGcmSecretBox(TEST_ENCRYPTION_KEY).open(item!.credentials_sealed, PROVIDER_SECRET_CONTEXT));
}

const quote = (api: TestApi, token: string) => api.json("POST", "/api/v1/api-test/pull/quote", 200, { token, body: { symbols: "700.HK" } });

describe("provider settings: defaults and who may change them", () => {
  it("answers the simulated provider with an empty configuration before anything is stored", async () => {
    const { api, user } = await setup();
    expect(await api.json("GET", "/api/v1/settings/data-source", 200, { token: user })).toEqual({
      type: "simulated",
      version: 0,
      provider_config: {
        app_key: "",
        app_secret: "",
        access_token: "",
        language: "en",
        enable_overnight: false,
        configured: false,
        access_token_expires_at: null,
        updated_at: null,
      },
    });
  });

  it("lets any signed-in user read, only an administrator change, and nobody without a token", async () => {
    const { api, user } = await setup();
    expect((await api.request("GET", "/api/v1/settings/provider")).status).toBe(401);
    await api.json("GET", "/api/v1/settings/provider", 200, { token: user });
    const refused = await api.json("PUT", "/api/v1/settings/provider", 403, { token: user, body: credentials });
    expect(refused.error_code).toBe("ACCESS_DENIED");
    await api.json("PUT", "/api/v1/settings/data-source", 403, { token: user, body: { type: "simulated" } });
    await api.json("POST", "/api/v1/settings/provider/refresh-token", 403, { token: user });
  });
});

describe("provider credentials are encrypted at rest and masked in answers", () => {
  it("stores the credentials sealed and answers them masked", async () => {
    const { api, admin, user } = await setup();
    const answer = await api.json("PUT", "/api/v1/settings/provider", 200, {
      token: admin,
      body: { ...credentials, language: "zh-HK", enable_overnight: true },
    });
    expect(answer).toMatchObject({ ...masked, language: "zh-HK", enable_overnight: true, configured: true, access_token_expires_at: null });
    expect(await api.json("GET", "/api/v1/settings/provider", 200, { token: user })).toEqual(answer);

    const raw = JSON.stringify(await rawItem(api, Keys.serviceSettings("PROVIDER")));
    for (const secret of Object.values(credentials)) expect(raw).not.toContain(secret);
    expect(await storedCredentials(api)).toEqual(credentials);
    // Storing credentials does not select LongPort.
    expect((await api.json("GET", "/api/v1/settings/data-source", 200, { token: user })).type).toBe("simulated");
  });

  it("keeps stored secrets sent back masked, replaces those sent anew, and keeps omitted options", async () => {
    const { api, admin } = await setup();
    await api.json("PUT", "/api/v1/settings/provider", 200, { token: admin, body: { ...credentials, language: "zh-CN" } });
    const answer = await api.json("PUT", "/api/v1/settings/provider", 200, {
      token: admin,
      body: { ...masked, access_token: "a-brand-new-access-token-42" },
    });
    expect(answer).toMatchObject({ app_key: masked.app_key, access_token: "a-****42", language: "zh-CN", enable_overnight: false });
    expect(await storedCredentials(api)).toEqual({ ...credentials, access_token: "a-brand-new-access-token-42" });
  });

  it("accepts a GET answer sent back unchanged as a PUT body", async () => {
    const { api, admin } = await setup();
    await api.json("PUT", "/api/v1/settings/provider", 200, { token: admin, body: credentials });
    const current = await api.json("GET", "/api/v1/settings/provider", 200, { token: admin });
    await api.json("PUT", "/api/v1/settings/provider", 200, { token: admin, body: current });
    expect(await storedCredentials(api)).toEqual(credentials);
  });

  it("refuses a mask that is not the stored secret's, and lists every problem of a bad body", async () => {
    const { api, admin } = await setup();
    await api.json("PUT", "/api/v1/settings/provider", 200, { token: admin, body: credentials });
    const mismatch = await api.json("PUT", "/api/v1/settings/provider", 422, { token: admin, body: { ...credentials, app_secret: "xx****yy" } });
    expect(mismatch.detail).toEqual([expect.objectContaining({ loc: ["body", "app_secret"], type: "masked_value" })]);
    expect(await storedCredentials(api)).toEqual(credentials);

    const bad = await api.json("PUT", "/api/v1/settings/provider", 422, { token: admin, body: { app_key: "", language: "fr", enable_overnight: "yes" } });
    expect(bad.detail.map((issue: any) => issue.loc.join(".")).sort()).toEqual([
      "body.access_token",
      "body.app_key",
      "body.app_secret",
      "body.enable_overnight",
      "body.language",
    ]);
  });
});

describe("data-source selection", () => {
  it("refuses LongPort without stored or given credentials, naming each missing field", async () => {
    const { api, admin } = await setup();
    const refused = await api.json("PUT", "/api/v1/settings/data-source", 422, { token: admin, body: { type: "longport" } });
    expect(refused.detail.map((issue: any) => issue.loc.join("."))).toEqual([
      "body.provider_config.app_key",
      "body.provider_config.app_secret",
      "body.provider_config.access_token",
    ]);
    const partial = await api.json("PUT", "/api/v1/settings/data-source", 422, {
      token: admin,
      body: { type: "longport", provider_config: { app_key: credentials.app_key } },
    });
    expect(partial.detail.map((issue: any) => issue.loc.join("."))).toEqual(["body.provider_config.app_secret", "body.provider_config.access_token"]);
    await api.json("PUT", "/api/v1/settings/data-source", 422, { token: admin, body: { type: "futu" } });
  });

  it("switches to LongPort and back without a restart: pull endpoints follow at once", async () => {
    const { api, admin, user } = await setup();
    expect(await quote(api, user)).toMatchObject({ success: true, message: "Quotes of 1 security from the simulated market" });

    const selected = await api.json("PUT", "/api/v1/settings/data-source", 200, {
      token: admin,
      body: { type: "longport", provider_config: { ...credentials, language: "en" } },
    });
    expect(selected).toMatchObject({ type: "longport", version: 1, provider_config: { ...masked, configured: true } });
    // No network here: LongPort cannot be reached, and the endpoint says so instead of failing.
    const failed = await quote(api, user);
    expect(failed).toMatchObject({ success: false, data: null, error: { code: "PROVIDER_UNAVAILABLE", status: 503 } });
    expect(failed.message).toMatch(/^quote failed at LongPort: LongPort is unreachable/);
    expect((await api.json("GET", "/api/v1/settings/data-source", 200, { token: user })).type).toBe("longport");

    const back = await api.json("PUT", "/api/v1/settings/data-source", 200, { token: admin, body: { type: "simulated" } });
    expect(back).toMatchObject({ type: "simulated", version: 2, provider_config: { configured: true } });
    expect(await quote(api, user)).toMatchObject({ success: true, message: "Quotes of 1 security from the simulated market" });
  });

  it("reaches another instance once its cached selection is older than PROVIDER_SETTINGS_TTL_MS", async () => {
    const { api, admin } = await setup();
    let now = Date.now();
    const other = createServices(api.services.config, { db: api.services.db, now: () => now });
    expect(api.services.config.providerSettingsTtlMs).toBe(5000);
    expect((await other.providers.active()).type).toBe("simulated");

    await api.json("PUT", "/api/v1/settings/data-source", 200, { token: admin, body: { type: "longport", provider_config: credentials } });
    now += 4_000;
    expect((await other.providers.active()).type).toBe("simulated");
    now += 1_500;
    expect(await other.providers.active()).toMatchObject({ type: "longport", version: 1 });
  });

  it("keeps the simulated market's subscriptions across changes that do not affect it", async () => {
    const { api, admin, user } = await setup();
    await api.json("POST", "/api/v1/api-test/subscription/subscribe", 200, { token: user, body: { symbols: "700.HK", sub_types: "Quote" } });
    await api.json("PUT", "/api/v1/settings/provider", 200, { token: admin, body: credentials });
    const after = await api.json("POST", "/api/v1/api-test/subscription/subscriptions", 200, { token: user });
    expect(after.data).toEqual([{ symbol: "700.HK", sub_types: ["Quote"], candlesticks: [] }]);
  });
});

describe("refresh-token", () => {
  it("issues a new simulated token valid for 90 days while the simulated provider is selected", async () => {
    const { api, admin } = await setup();
    const before = Date.now();
    const first = await api.json("POST", "/api/v1/settings/provider/refresh-token", 200, { token: admin });
    expect(first).toMatchObject({ success: true, provider: "simulated", access_token: expect.stringMatching(/^si\*\*\*\*.{2}$/) });
    const expiry = Date.parse(first.expires_at) - before;
    expect(expiry).toBeGreaterThanOrEqual(90 * 86_400_000);
    expect(expiry).toBeLessThan(90 * 86_400_000 + 60_000);

    const sealed = async () => (await rawItem(api, Keys.serviceSettings("PROVIDER")))!.simulated_token_sealed as string;
    const firstSealed = await sealed();
    expect(firstSealed).toMatch(/^v1\./);
    await api.json("POST", "/api/v1/settings/provider/refresh-token", 200, { token: admin });
    const box = new AesGcmSecretBox(TEST_ENCRYPTION_KEY);
    const [a, b] = [box.open(firstSealed, "settings:simulated-token"), box.open(await sealed(), "settings:simulated-token")];
    expect(a).toMatch(/^sim_/);
    expect(b).not.toBe(a);
  });

  it("answers LongPort's unreachability as a 503 with a clear message and keeps the stored token", async () => {
    const { api, admin } = await setup();
    await api.json("PUT", "/api/v1/settings/data-source", 200, { token: admin, body: { type: "longport", provider_config: credentials } });
    const response = await api.json("POST", "/api/v1/settings/provider/refresh-token", 503, { token: admin });
    expect(response).toMatchObject({ error_code: "PROVIDER_UNAVAILABLE", retry_after: 5 });
    expect(response.detail).toMatch(/^LongPort is unreachable \(the token refresh\): /);
    expect(await storedCredentials(api)).toEqual(credentials);
  });
});

describe("asset mode", () => {
  it("is simulated until a user chooses, and each user has their own", async () => {
    const { api, user } = await setup();
    const other = (await api.createUser()).token;
    expect(await api.json("GET", "/api/v1/settings/asset-mode", 200, { token: user })).toEqual({ asset_mode: "simulated", updated_at: null });
    const chosen = await api.json("PUT", "/api/v1/settings/asset-mode", 200, { token: user, body: { asset_mode: "real" } });
    expect(chosen).toEqual({ asset_mode: "real", updated_at: expect.any(String) });
    expect(await api.json("GET", "/api/v1/settings/asset-mode", 200, { token: user })).toEqual(chosen);
    expect((await api.json("GET", "/api/v1/settings/asset-mode", 200, { token: other })).asset_mode).toBe("simulated");
    // A bare JSON string is the same request.
    expect((await api.json("PUT", "/api/v1/settings/asset-mode", 200, { token: other, body: '"real"' })).asset_mode).toBe("real");
  });

  it("refuses a value other than real or simulated", async () => {
    const { api, user } = await setup();
    const refused = await api.json("PUT", "/api/v1/settings/asset-mode", 422, { token: user, body: { asset_mode: "paper" } });
    expect(refused.error_code).toBe("VALIDATION_ERROR");
    expect((await api.json("GET", "/api/v1/settings/asset-mode", 200, { token: user })).asset_mode).toBe("simulated");
  });
});
