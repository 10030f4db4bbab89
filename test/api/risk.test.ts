import { beforeAll, describe, expect, it } from "vitest";
import { groups } from "../../packages/api/src/groups";
import { groupRoutes } from "../../packages/api/src/routes";
import { createTestApi, type TestApi } from "../support/harness";

let api: TestApi;
let token: string;
beforeAll(async () => {
  api = await createTestApi();
  token = (await api.createUser()).token;
});

const get = (path: string, status = 200) => api.json("GET", path, status, { token });
const validate = (config: unknown, status = 200) => api.json("POST", "/api/v1/risk/validate", status, { token, body: { config } });

describe("risk presets", () => {
  it("lists the four presets, default first, each with a complete configuration", async () => {
    const body = await get("/api/v1/risk/presets");
    expect(body.total).toBe(4);
    expect(body.presets.map((p: any) => p.name)).toEqual(["default", "conservative", "aggressive", "intraday"]);
    for (const preset of body.presets) expect(Object.keys(preset.config), preset.name).toHaveLength(13);
  });

  it("gives one preset by name", async () => {
    expect(await get("/api/v1/risk/presets/intraday")).toMatchObject({
      name: "intraday",
      display_name: "Intraday",
      config: { max_drawdown: 0.1, trailing_stop_pct: 0.015, allow_short: true },
    });
  });

  it("answers 404 RISK_PRESET_NOT_FOUND for an unknown preset", async () => {
    const body = await get("/api/v1/risk/presets/reckless", 404);
    expect(body.error_code).toBe("RISK_PRESET_NOT_FOUND");
  });

  it("answers the bare configuration of the default, conservative and aggressive presets", async () => {
    for (const name of ["default", "conservative", "aggressive"]) {
      const config = await get(`/api/v1/risk/${name}`);
      expect(config, name).toEqual((await get(`/api/v1/risk/presets/${name}`)).config);
    }
    expect(await get("/api/v1/risk/conservative")).toMatchObject({ max_position_size: 0.05, max_drawdown: 0.1, leverage_limit: 1 });
    expect(await get("/api/v1/risk/aggressive")).toMatchObject({ max_drawdown: 0.3, leverage_limit: 2, allow_short: true });
  });

  it("answers 401 without a token", async () => {
    await api.json("GET", "/api/v1/risk/presets", 401);
    await api.json("GET", "/api/v1/risk/default", 401);
    await api.json("POST", "/api/v1/risk/validate", 401, { body: { config: {} } });
  });

  it("leaves /api/v1/risk/sessions/... to the trading-session group", () => {
    const served = groups.risk(api.services).routes.map((route) => route.path);
    expect(served.filter((path) => path.startsWith("/api/v1/risk/sessions"))).toEqual([]);
    // What API Gateway would match for each key: a {param} is one segment, {proxy+} the rest.
    const patterns = groupRoutes.risk.map((key) => {
      const path = key
        .split(" ")[1]
        .replace(/\{proxy\+\}/g, ".+")
        .replace(/\{[^}]+\}/g, "[^/]+");
      return new RegExp(`^${path}$`);
    });
    for (const path of ["/api/v1/risk/sessions/s1/summary", "/api/v1/risk/sessions/s1/config", "/api/v1/risk/sessions/s1/reset-daily"]) {
      expect(
        patterns.some((pattern) => pattern.test(path)),
        path,
      ).toBe(false);
    }
  });
});

describe("POST /risk/validate", () => {
  it("rejects max_drawdown 1.5 as out of range, without a config", async () => {
    const result = await validate({ max_drawdown: 1.5 });
    expect(result.valid).toBe(false);
    expect(result.config).toBeUndefined();
    expect(result.errors).toEqual([{ code: "OUT_OF_RANGE", field: "max_drawdown", message: "max_drawdown value must be <= 1 (got 1.5)" }]);
  });

  it("fills a partial configuration from the default preset and warns about risky limits", async () => {
    const result = await validate({ leverage_limit: 3, max_drawdown: 0.4 });
    expect(result.valid).toBe(true);
    expect(result.errors).toEqual([]);
    expect(result.config).toMatchObject({ leverage_limit: 3, max_drawdown: 0.4, max_position_size: 0.1, allow_short: false });
    expect(result.warnings.map((w: any) => w.code).sort()).toEqual(["HIGH_DRAWDOWN", "HIGH_LEVERAGE"]);
  });

  it("treats a misspelt field as an error instead of silently using the default", async () => {
    const result = await validate({ max_drawdwn: 0.1 });
    expect(result).toMatchObject({ valid: false, errors: [{ code: "UNKNOWN_FIELD", field: "max_drawdwn" }] });
  });

  it("accepts every preset's configuration without errors or warnings", async () => {
    for (const preset of (await get("/api/v1/risk/presets")).presets) {
      expect(await validate(preset.config), preset.name).toEqual({ valid: true, config: preset.config, errors: [], warnings: [] });
    }
  });

  it("answers 422 when config is missing or not an object", async () => {
    const missing = await api.json("POST", "/api/v1/risk/validate", 422, { token, body: {} });
    expect(missing.detail[0].loc).toEqual(["body", "config"]);
    await validate([0.2], 422);
  });
});
