import { describe, expect, it } from "vitest";
import { configIssues, mask, maskConfig, mergeConfig } from "./config";

describe("mask", () => {
  it("shows the first and last two characters of a long secret and nothing of a short one", () => {
    expect(mask("abcdefghijyz")).toBe("ab****yz");
    expect(mask("123456789")).toBe("12****89");
    expect(mask("12345678")).toBe("****");
    expect(mask("x")).toBe("****");
  });

  it("masks only the secret fields of a config", () => {
    expect(maskConfig({ app_key: "key-0123456789", access_token: "short", region: "cn", port: 11111 })).toEqual({
      app_key: "ke****89",
      access_token: "****",
      region: "cn",
      port: 11111,
    });
  });
});

describe("mergeConfig", () => {
  const stored = { app_key: "key-0123456789", app_secret: "secret-abcdefgh", access_token: "tok", account: "A1" };

  it("keeps stored secrets sent back masked, replaces given fields and removes nulls", () => {
    const { config, issues } = mergeConfig(stored, { ...maskConfig(stored), access_token: "new-token", account: null, region: "hk" }, ["config"]);
    expect(issues).toEqual([]);
    expect(config).toEqual({ app_key: "key-0123456789", app_secret: "secret-abcdefgh", access_token: "new-token", region: "hk" });
  });

  it("refuses a mask that is not the stored secret's, including a mask for a secret never stored", () => {
    const { issues } = mergeConfig({ app_key: "key-0123456789" }, { app_key: "ke****00", trade_password: "****" }, ["body", "config"]);
    expect(issues.map((issue) => issue.loc.join("."))).toEqual(["body.config.app_key", "body.config.trade_password"]);
  });
});

describe("configIssues", () => {
  it("requires LongPort credentials and Futu gateway address, nothing for paper", () => {
    expect(configIssues("longport", { app_key: "k" }, ["config"]).map((issue) => issue.loc.join("."))).toEqual(["config.app_secret", "config.access_token"]);
    expect(configIssues("futu", { host: "h" }, ["config"]).map((issue) => issue.loc.join("."))).toEqual(["config.port"]);
    expect(configIssues("paper", {}, ["config"])).toEqual([]);
  });
});
