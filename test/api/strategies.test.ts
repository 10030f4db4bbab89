import { beforeAll, describe, expect, it } from "vitest";
import { createTestApi, type TestApi } from "../support/harness";

let api: TestApi;
let token: string;
beforeAll(async () => {
  api = await createTestApi();
  token = (await api.createUser()).token;
});

const get = (path: string, status = 200) => api.json("GET", path, status, { token });
const validate = (body: unknown, status = 200) => api.json("POST", "/api/v1/strategies/validate", status, { token, body });

const NINE = [
  "ma_crossover",
  "rsi_mean_reversion",
  "bollinger_breakout",
  "macd_trend",
  "donchian_breakout",
  "momentum",
  "trend_director",
  "pullback_executor",
  "ema_trend",
];
const UNIVERSAL = ["ma_crossover", "macd_trend", "momentum", "ema_trend"];
const ids = (list: { strategy_id: string }[]) => list.map((s) => s.strategy_id).sort();

describe("strategy catalog", () => {
  it("lists the nine strategies under both the slash and the no-slash path", async () => {
    const slash = await get("/api/v1/strategies/");
    const bare = await get("/api/v1/strategies");
    expect(bare).toEqual(slash);
    expect(slash.total).toBe(9);
    expect(slash.strategies.map((s: any) => s.strategy_id)).toEqual(NINE);
    expect(slash.strategies[0]).toEqual({
      strategy_id: "ma_crossover",
      display_name: expect.any(String),
      category: "trend",
      description: expect.any(String),
      risk_level: "medium",
      role: "universal",
    });
  });

  it("answers 401 without a token", async () => {
    const body = await api.json("GET", "/api/v1/strategies/", 401);
    expect(body.error_code).toBe("UNAUTHORIZED");
    await api.json("GET", "/api/v1/strategies/metadata/all", 401);
  });

  it("gives metadata of all strategies, total equal to the list's length, with the interface's fields", async () => {
    const all = await get("/api/v1/strategies/metadata/all");
    const list = await get("/api/v1/strategies/");
    expect(all.total).toBe(list.strategies.length);
    expect(ids(all.strategies)).toEqual([...NINE].sort());
    for (const entry of all.strategies) {
      for (const field of [
        "strategy_id",
        "display_name",
        "category",
        "description",
        "market_types",
        "timeframes",
        "min_history_bars",
        "settle_bars",
        "risk_level",
        "parameters",
      ]) {
        expect(entry, `${entry.strategy_id}.${field}`).toHaveProperty(field);
      }
    }
    const director = all.strategies.find((s: any) => s.strategy_id === "trend_director");
    expect(director).toMatchObject({ min_history_bars: 200, settle_bars: 904, market_types: ["US", "HK"], timeframes: ["1d", "1h"], risk_level: "low" });
  });

  it("gives details with the recommended risk configuration", async () => {
    const details = await get("/api/v1/strategies/ma_crossover");
    expect(details).toMatchObject({
      strategy_id: "ma_crossover",
      min_history_bars: 31,
      settle_bars: 31,
      default_parameters: { fast_period: 10, slow_period: 30, ma_type: "sma", allow_short: false },
      recommended_risk: { strategy_name: "ma_crossover", base_preset: "default" },
    });
  });

  it("gives the recommended risk configuration: the preset with the strategy's overrides", async () => {
    const aggressive = await get("/api/v1/risk/aggressive");
    expect(await get("/api/v1/strategies/bollinger_breakout/risk-config")).toEqual({
      strategy_name: "bollinger_breakout",
      risk_level: "high",
      base_preset: "aggressive",
      config: aggressive,
    });
    const donchian = await get("/api/v1/strategies/donchian_breakout/risk-config");
    expect(donchian.config).toMatchObject({ trailing_stop_pct: 0.1, take_profit_pct: 0.2, max_drawdown: 0.2 });
  });

  it("gives parameter definitions with bounds and defaults", async () => {
    const body = await get("/api/v1/strategies/ma_crossover/parameters");
    expect(body.strategy_name).toBe("ma_crossover");
    expect(body.parameters.map((p: any) => p.name)).toEqual(["fast_period", "slow_period", "ma_type", "allow_short"]);
    expect(body.parameters[0]).toMatchObject({ type: "integer", default: 10, min: 2, max: 200 });
    expect(body.parameters[2]).toMatchObject({ type: "enum", options: ["sma", "ema"] });
    expect(body.default_parameters).toEqual({ fast_period: 10, slow_period: 30, ma_type: "sma", allow_short: false });
  });

  it("gives a template that validation accepts back unchanged", async () => {
    const template = await get("/api/v1/strategies/pullback_executor/template");
    expect(template).toMatchObject({ strategy_name: "pullback_executor", timeframe: "5m", symbols: [] });
    const result = await validate({ strategy_name: "pullback_executor", config: template });
    expect(result).toMatchObject({ valid: true, errors: [], warnings: [] });
    expect(result.config).toMatchObject({ parameters: template.parameters, risk_config: template.risk_config, timeframe: "5m" });
  });

  it("answers 404 STRATEGY_NOT_FOUND from every getter for an unknown strategy", async () => {
    for (const path of [
      "/api/v1/strategies/nope",
      "/api/v1/strategies/nope/risk-config",
      "/api/v1/strategies/nope/parameters",
      "/api/v1/strategies/nope/template",
      "/api/v1/strategies/mtf/metadata/nope",
    ]) {
      const body = await get(path, 404);
      expect(body.error_code, path).toBe("STRATEGY_NOT_FOUND");
    }
  });
});

describe("multi-timeframe metadata", () => {
  it("lists every strategy without a role", async () => {
    const all = await get("/api/v1/strategies/mtf/metadata");
    expect(ids(all)).toEqual([...NINE].sort());
    expect(Object.keys(all[0]).sort()).toEqual(["default_parameters", "description", "display_name", "role", "strategy_id", "supported_timeframes"]);
  });

  it("filters by role, counting universal strategies as directors and as executors", async () => {
    expect(ids(await get("/api/v1/strategies/mtf/metadata?role=director"))).toEqual(["trend_director", ...UNIVERSAL].sort());
    expect(ids(await get("/api/v1/strategies/mtf/metadata?role=executor"))).toEqual(
      ["rsi_mean_reversion", "bollinger_breakout", "donchian_breakout", "pullback_executor", ...UNIVERSAL].sort(),
    );
    expect(ids(await get("/api/v1/strategies/mtf/metadata?role=universal"))).toEqual([...UNIVERSAL].sort());
  });

  it("answers 422 for an unknown or empty role", async () => {
    for (const role of ["boss", ""]) {
      const body = await get(`/api/v1/strategies/mtf/metadata?role=${role}`, 422);
      expect(body.detail[0].loc, role).toEqual(["query", "role"]);
    }
  });

  it("gives one strategy's MTF metadata", async () => {
    expect(await get("/api/v1/strategies/mtf/metadata/trend_director")).toMatchObject({
      strategy_id: "trend_director",
      role: "director",
      supported_timeframes: ["1d", "1h"],
      default_parameters: { fast_period: 50, slow_period: 200, ma_type: "ema", band_pct: 0.5 },
    });
  });
});

describe("POST /strategies/validate", () => {
  it("accepts a parameter map and fills in the defaults", async () => {
    expect(await validate({ strategy_name: "ma_crossover", config: { fast_period: 5 } })).toEqual({
      valid: true,
      errors: [],
      warnings: [],
      config: { fast_period: 5, slow_period: 30, ma_type: "sma", allow_short: false },
    });
  });

  it("reports contradictory and out-of-range parameters as errors, without a config", async () => {
    const result = await validate({ strategy_name: "ma_crossover", config: { fast_period: 30, slow_period: 10, ma_type: "wma" } });
    expect(result.valid).toBe(false);
    expect(result.config).toBeUndefined();
    expect(result.errors.map((e: any) => [e.code, e.field])).toEqual([["INVALID_VALUE", "ma_type"]]);
    const combination = await validate({ strategy_name: "ma_crossover", config: { fast_period: 30, slow_period: 10 } });
    expect(combination.errors.map((e: any) => e.code)).toEqual(["INVALID_PARAMETER_COMBINATION"]);
  });

  it("reports risky choices as warnings on a valid configuration", async () => {
    const result = await validate({ strategy_name: "momentum", config: { allow_short: true } });
    expect(result.valid).toBe(true);
    expect(result.warnings.map((w: any) => w.code)).toEqual(["SHORT_SELLING_ENABLED"]);
  });

  it("answers an unknown strategy with valid: false and STRATEGY_NOT_FOUND, not a 404", async () => {
    const result = await validate({ strategy_name: "nope", config: {} });
    expect(result).toMatchObject({ valid: false, errors: [{ code: "STRATEGY_NOT_FOUND", field: "strategy_name" }] });
  });

  it("answers 422 when the body lacks strategy_name or config", async () => {
    const body = await validate({ config: [] }, 422);
    expect(body.detail.map((d: any) => d.loc.join(".")).sort()).toEqual(["body.config", "body.strategy_name"]);
  });
});
