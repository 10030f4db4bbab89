import { describe, expect, it } from "vitest";
import type { SecretBox } from "../brokers/secret-box";
import { DomainError } from "../errors";
import type { Actor } from "../users";
import {
  Settings,
  settingsChanged,
  type ProviderSettings,
  type ProviderTokenRefresher,
  type SettingsDeps,
  type SettingsStore,
  type StoredAssetMode,
} from "./settings";

const admin: Actor = { id: "admin-1", user_type: "admin" };
const credentials = { app_key: "lp-app-key-0123456789", app_secret: "lp-app-secret-abcdefghijklmnop", access_token: "lp-access-token-ZYXWVUTSRQ" };

/** A store in memory with the version check of the real one. */
class MemorySettingsStore implements SettingsStore {
  provider?: ProviderSettings;
  modes = new Map<string, StoredAssetMode>();
  async getProvider() {
    return this.provider && structuredClone(this.provider);
  }
  async putProvider(settings: ProviderSettings, expectedVersion: number) {
    if ((this.provider?.version ?? 0) !== expectedVersion) throw settingsChanged();
    this.provider = structuredClone(settings);
  }
  async getAssetMode(userId: string) {
    return this.modes.get(userId);
  }
  async putAssetMode(setting: StoredAssetMode) {
    this.modes.set(setting.user_id, setting);
  }
}

/** Reversible and context-bound, which is all these tests need of sealing. */
const box: SecretBox = {
  seal: (plaintext, context = "") => `sealed:${context}:${Buffer.from(plaintext).toString("base64")}`,
  open: (sealed, context = "") => {
    const prefix = `sealed:${context}:`;
    if (!sealed.startsWith(prefix)) throw new Error("wrong context");
    return Buffer.from(sealed.slice(prefix.length), "base64").toString();
  },
};

function deps(refresher: ProviderTokenRefresher = { refresh: async () => "refreshed-token-0987654321" }) {
  const store = new MemorySettingsStore();
  const changes: number[] = [];
  const value: SettingsDeps = {
    store,
    secrets: box,
    tokens: refresher,
    now: () => Date.parse("2026-03-10T03:00:00Z"),
    newToken: () => "sim_token_abcdef",
    onProviderChanged: () => changes.push(store.provider!.version),
  };
  return { deps: value, store, changes };
}

describe("Settings.refreshToken with LongPort selected", () => {
  it("asks the refresher for a 90-day token with the stored credentials and stores the new one sealed", async () => {
    const calls: { token: string; expiresAt: string }[] = [];
    const {
      deps: d,
      store,
      changes,
    } = deps({
      refresh: async (config, expiresAt) => {
        calls.push({ token: config.access_token, expiresAt: expiresAt.toISOString() });
        return "refreshed-token-0987654321";
      },
    });
    await Settings.setDataSource(d, admin, { type: "longport", provider_config: credentials });
    const answer = await Settings.refreshToken(d, admin);
    expect(calls).toEqual([{ token: credentials.access_token, expiresAt: "2026-06-08T03:00:00.000Z" }]);
    expect(answer).toEqual({
      success: true,
      message: "Obtained a new LongPort access token valid until 2026-06-08T03:00:00.000Z",
      provider: "longport",
      access_token: "re****21",
      expires_at: "2026-06-08T03:00:00.000Z",
    });
    expect(await Settings.selection(d)).toMatchObject({
      type: "longport",
      version: 2,
      credentials: { ...credentials, access_token: "refreshed-token-0987654321" },
    });
    expect((await Settings.provider(d)).access_token_expires_at).toBe("2026-06-08T03:00:00.000Z");
    expect(store.provider!.updated_by).toBe("admin-1");
    expect(changes).toEqual([1, 2]);
  });

  it("passes the provider's failure through and leaves the settings unchanged", async () => {
    const failure = new DomainError(503, "PROVIDER_UNAVAILABLE", "LongPort is unreachable");
    const { deps: d, store } = deps({ refresh: async () => Promise.reject(failure) });
    await Settings.setDataSource(d, admin, { type: "longport", provider_config: credentials });
    await expect(Settings.refreshToken(d, admin)).rejects.toBe(failure);
    expect(store.provider!.version).toBe(1);
  });
});

describe("Settings.selection", () => {
  it("is the simulated provider without credentials by default", async () => {
    const { deps: d } = deps();
    expect(await Settings.selection(d)).toEqual({ type: "simulated", version: 0, language: "en", enable_overnight: false, credentials: null });
  });

  it("refuses LongPort credentials that no longer open, naming the repair", async () => {
    const { deps: d, store } = deps();
    await Settings.setDataSource(d, admin, { type: "longport", provider_config: credentials });
    store.provider!.credentials_sealed = "sealed:another-record:AAAA";
    await expect(Settings.selection(d)).rejects.toMatchObject({ status: 409, code: "PROVIDER_CONFIG_UNREADABLE" });
    expect((await Settings.provider(d)).configured).toBe(false);
  });
});

describe("concurrent changes", () => {
  it("answers SETTINGS_CHANGED when another change lands between the read and the write, keeping that change", async () => {
    const { deps: d, store } = deps();
    await Settings.setProvider(d, admin, credentials);
    const readBeforeTheOtherChange = structuredClone(store.provider!);
    await Settings.setProvider(d, admin, { ...credentials, language: "zh-CN" });
    store.getProvider = async () => structuredClone(readBeforeTheOtherChange);
    await expect(Settings.setProvider(d, admin, { ...credentials, enable_overnight: true })).rejects.toMatchObject({ status: 409, code: "SETTINGS_CHANGED" });
    expect(store.provider).toMatchObject({ version: 2, language: "zh-CN", enable_overnight: false });
  });
});
