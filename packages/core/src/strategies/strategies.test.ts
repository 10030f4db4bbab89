import { describe, expect, it } from "vitest";
import { type DomainError, ValidationError } from "../errors";
import { Risk } from "../risk";
import { Strategies } from "./index";

const codes = (issues: { code: string }[]) => issues.map((i) => i.code);
const statusOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return [(error as DomainError).status, (error as DomainError).code];
  }
  return undefined;
};

describe("strategy catalog", () => {
  it("lists the nine strategies with their roles", () => {
    const { strategies, total } = Strategies.list();
    expect(total).toBe(9);
    expect(Object.fromEntries(strategies.map((s) => [s.strategy_id, s.role]))).toEqual({
      ma_crossover: "universal",
      rsi_mean_reversion: "executor",
      bollinger_breakout: "executor",
      macd_trend: "universal",
      donchian_breakout: "executor",
      momentum: "universal",
      trend_director: "director",
      pullback_executor: "executor",
      ema_trend: "universal",
    });
  });

  it("describes each strategy with markets, timeframes, history, risk level and parameter bounds", () => {
    const { strategies, total } = Strategies.metadataAll();
    expect(total).toBe(strategies.length);
    for (const meta of strategies) {
      expect(meta.market_types).toEqual(["US", "HK"]);
      expect(meta.timeframes.length).toBeGreaterThan(0);
      expect(meta.supported_timeframes).toEqual(meta.timeframes);
      expect(["low", "medium", "high"]).toContain(meta.risk_level);
      expect(meta.min_history_bars).toBe(Strategies.create(meta.strategy_id).warmupBars);
      expect(meta.settle_bars).toBe(Strategies.create(meta.strategy_id).settleBars);
      expect(meta.settle_bars).toBeGreaterThanOrEqual(meta.min_history_bars);
      for (const p of meta.parameters) {
        expect(p.description.length).toBeGreaterThan(0);
        if (p.type === "integer" || p.type === "number") {
          expect(p.default as number).toBeGreaterThanOrEqual(p.min!);
          expect(p.default as number).toBeLessThanOrEqual(p.max!);
        }
      }
      expect(Strategies.validate(meta.strategy_id, meta.default_parameters)).toMatchObject({ valid: true, errors: [], warnings: [] });
    }
  });

  it("gives the crossover's history need as slow period plus one", () => {
    expect(Strategies.get("ma_crossover").min_history_bars).toBe(31);
    expect(Strategies.warmupBars("ma_crossover", { slow_period: 50, fast_period: 20 })).toBe(51);
  });

  it("gives the bars indicators need to settle: the warm-up for moving windows, more for exponential and Wilder smoothing", () => {
    // SMA crossover: its windows are full at its warm-up; as EMAs, the slow one's 30 + ceil(3.5 · 31).
    expect(Strategies.get("ma_crossover").settle_bars).toBe(31);
    expect(Strategies.settleBars("ma_crossover", { ma_type: "ema" })).toBe(30 + 109);
    // RSI(14), Wilder's: first value on bar 15, then 8 · 14.
    expect(Strategies.get("rsi_mean_reversion")).toMatchObject({ min_history_bars: 15, settle_bars: 15 + 112 });
    // MACD(12, 26, 9): the slow EMA's 26 + 95, then the signal EMA's 9 + 35.
    expect(Strategies.get("macd_trend")).toMatchObject({ min_history_bars: 35, settle_bars: 121 + 44 });
    // EMA(50) over ATR(14) and EMA(20).
    expect(Strategies.get("ema_trend")).toMatchObject({ min_history_bars: 51, settle_bars: 50 + 179 });
    expect(Strategies.settleBars("ema_trend", { fast_period: 5, slow_period: 10, atr_period: 30 })).toBe(31 + 240);
    expect(Strategies.get("trend_director")).toMatchObject({ min_history_bars: 200, settle_bars: 200 + 704 });
    expect(Strategies.settleBars("trend_director", { ma_type: "sma" })).toBe(200);
    expect(Strategies.get("pullback_executor")).toMatchObject({ min_history_bars: 50, settle_bars: 229 });
    for (const name of ["bollinger_breakout", "donchian_breakout", "momentum"])
      expect(Strategies.get(name).settle_bars).toBe(Strategies.get(name).min_history_bars);
  });

  it("answers 404 STRATEGY_NOT_FOUND for an unknown strategy on every getter", () => {
    for (const getter of [Strategies.get, Strategies.riskConfig, Strategies.parameters, Strategies.template, Strategies.mtfMetadataOne]) {
      expect(statusOf(() => getter("astrology"))).toEqual([404, "STRATEGY_NOT_FOUND"]);
    }
    expect(statusOf(() => Strategies.create("astrology"))).toEqual([404, "STRATEGY_NOT_FOUND"]);
  });

  it("recommends a risk configuration that validates without errors, tighter for low-risk strategies", () => {
    for (const { strategy_id } of Strategies.list().strategies) {
      const recommended = Strategies.riskConfig(strategy_id);
      expect(Risk.validate(recommended.config), strategy_id).toMatchObject({ valid: true, warnings: [] });
    }
    expect(Strategies.riskConfig("trend_director").config.max_drawdown).toBeLessThan(Strategies.riskConfig("momentum").config.max_drawdown);
    expect(Strategies.riskConfig("rsi_mean_reversion")).toMatchObject({
      strategy_name: "rsi_mean_reversion",
      base_preset: "default",
      config: { stop_loss_pct: 0.04, take_profit_pct: 0.06, max_drawdown: 0.2 },
    });
  });

  it("lists parameters with their defaults", () => {
    const { parameters, default_parameters } = Strategies.parameters("macd_trend");
    expect(parameters.map((p) => p.name)).toEqual(["fast_period", "slow_period", "signal_period", "allow_short"]);
    expect(default_parameters).toEqual({ fast_period: 12, slow_period: 26, signal_period: 9, allow_short: false });
  });
});

describe("MTF metadata", () => {
  const idsFor = (role?: string) => Strategies.mtfMetadata(role).map((m) => m.strategy_id);

  it("lists directors together with the universal strategies", () => {
    expect(idsFor("director")).toEqual(["ma_crossover", "macd_trend", "momentum", "trend_director", "ema_trend"]);
  });

  it("lists executors together with the universal strategies", () => {
    expect(idsFor("executor")).toEqual([
      "ma_crossover",
      "rsi_mean_reversion",
      "bollinger_breakout",
      "macd_trend",
      "donchian_breakout",
      "momentum",
      "pullback_executor",
      "ema_trend",
    ]);
  });

  it("lists only the universal strategies for role universal, and all without a role", () => {
    expect(idsFor("universal")).toEqual(["ma_crossover", "macd_trend", "momentum", "ema_trend"]);
    expect(idsFor()).toHaveLength(9);
  });

  it("answers 422 for an unknown role", () => {
    expect(() => Strategies.mtfMetadata("boss")).toThrowError(ValidationError);
  });

  it("returns the interface's fields for one strategy", () => {
    expect(Strategies.mtfMetadataOne("trend_director")).toEqual({
      strategy_id: "trend_director",
      display_name: "Trend Director",
      description: expect.any(String),
      role: "director",
      default_parameters: { fast_period: 50, slow_period: 200, ma_type: "ema", band_pct: 0.5, allow_short: false },
      supported_timeframes: ["1d", "1h"],
    });
  });
});

describe("Strategies.validate with a parameter map", () => {
  it("fills defaults and returns the normalised parameters", () => {
    expect(Strategies.validate("ma_crossover", { fast_period: 5 })).toEqual({
      valid: true,
      errors: [],
      warnings: [],
      config: { fast_period: 5, slow_period: 30, ma_type: "sma", allow_short: false },
    });
  });

  it("rejects a fast period not below the slow period", () => {
    const result = Strategies.validate("ma_crossover", { fast_period: 30, slow_period: 30 });
    expect(result.valid).toBe(false);
    expect(result.config).toBeUndefined();
    expect(result.errors).toEqual([
      {
        code: "INVALID_PARAMETER_COMBINATION",
        field: "fast_period",
        message: "fast_period (30) must be less than slow_period (30)",
      },
    ]);
  });

  it("rejects unknown, mistyped, fractional and out-of-range parameters, one error each", () => {
    const result = Strategies.validate("ma_crossover", { fast_perod: 5, slow_period: "30", fast_period: 2.5, ma_type: "wma" });
    expect(result.errors.map((e) => [e.code, e.field])).toEqual([
      ["UNKNOWN_PARAMETER", "fast_perod"],
      ["INVALID_TYPE", "fast_period"],
      ["INVALID_TYPE", "slow_period"],
      ["INVALID_VALUE", "ma_type"],
    ]);
    expect(Strategies.validate("rsi_mean_reversion", { period: 1 }).errors[0]).toEqual({
      code: "OUT_OF_RANGE",
      field: "period",
      message: "period must be between 2 and 100 (got 1)",
    });
  });

  it("rejects RSI thresholds that are inverted or an exit level outside them", () => {
    expect(codes(Strategies.validate("rsi_mean_reversion", { oversold: 50, overbought: 50 }).errors)).toEqual(["INVALID_PARAMETER_COMBINATION"]);
    expect(Strategies.validate("rsi_mean_reversion", { exit_level: 80 }).errors[0].field).toBe("exit_level");
  });

  it("warns about averages too close together, short windows and short selling", () => {
    const result = Strategies.validate("ma_crossover", { fast_period: 3, slow_period: 4, allow_short: true });
    expect(result.valid).toBe(true);
    expect(codes(result.warnings)).toEqual(["SHORT_PERIOD", "PERIODS_TOO_CLOSE", "SHORT_SELLING_ENABLED"]);
  });

  it("warns about narrow Bollinger bands and a tight ATR stop", () => {
    expect(codes(Strategies.validate("bollinger_breakout", { std_dev: 1 }).warnings)).toEqual(["NARROW_BANDS"]);
    expect(codes(Strategies.validate("ema_trend", { atr_multiple: 1 }).warnings)).toEqual(["TIGHT_STOP"]);
  });

  it("reports an unknown strategy as an invalid configuration rather than a 404", () => {
    expect(Strategies.validate("astrology", {})).toMatchObject({ valid: false, errors: [{ code: "STRATEGY_NOT_FOUND" }] });
  });

  it("prefixes fields when validating a nested configuration", () => {
    const result = Strategies.validate("macd_trend", { fast_period: 40 }, "channels.0.strategies.1.parameters");
    expect(result.errors[0].field).toBe("channels.0.strategies.1.parameters.fast_period");
  });
});

describe("Strategies.validate with a template", () => {
  it("accepts the template it hands out, unchanged", () => {
    const template = Strategies.template("donchian_breakout");
    expect(template).toMatchObject({ strategy_name: "donchian_breakout", timeframe: "1d", symbols: [] });
    const result = Strategies.validate("donchian_breakout", template);
    expect(result).toMatchObject({ valid: true, errors: [], warnings: [] });
    const { display_name: _shown, ...expected } = template;
    expect(result.config).toEqual(expected);
  });

  it("checks parameters, risk configuration and timeframe under their own paths", () => {
    const result = Strategies.validate("donchian_breakout", {
      timeframe: "1m",
      symbols: ["AAPL.US"],
      parameters: { entry_period: 1 },
      risk_config: { max_drawdown: 2 },
    });
    expect(result.errors.map((e) => e.field)).toEqual(["parameters.entry_period", "risk_config.max_drawdown"]);
    expect(codes(result.warnings)).toEqual(["UNUSUAL_TIMEFRAME"]);
  });

  it("rejects an unknown timeframe and a strategy name that does not match", () => {
    const result = Strategies.validate("momentum", { strategy_name: "macd_trend", timeframe: "2h", parameters: {} });
    expect(result.errors.map((e) => [e.code, e.field])).toEqual([
      ["INVALID_VALUE", "strategy_name"],
      ["INVALID_VALUE", "timeframe"],
    ]);
  });
});

describe("Strategies.create", () => {
  it("builds an instance with defaults filled and the warm-up of its parameters", () => {
    const strategy = Strategies.create("donchian_breakout", { entry_period: 55 });
    expect(strategy.parameters).toEqual({ entry_period: 55, exit_period: 10, allow_short: false });
    expect(strategy.warmupBars).toBe(56);
  });

  it("throws a 422 locating each bad parameter", () => {
    try {
      Strategies.create("ma_crossover", { fast_period: 50, slow_period: 20 });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues).toEqual([
        { loc: ["parameters", "fast_period"], msg: "fast_period (50) must be less than slow_period (20)", type: "invalid_parameter_combination" },
      ]);
    }
  });
});

describe("response schemas", () => {
  it("describe every answer exactly, so the OpenAPI document matches what is sent", () => {
    const exact = <T>(schema: { parse(value: unknown): T }, value: T) => expect(schema.parse(value)).toEqual(value);
    exact(Strategies.StrategyList, Strategies.list());
    exact(Strategies.StrategyMetadataList, Strategies.metadataAll());
    for (const { strategy_id } of Strategies.list().strategies) {
      exact(Strategies.StrategyDetails, Strategies.get(strategy_id));
      exact(Strategies.RecommendedRisk, Strategies.riskConfig(strategy_id));
      exact(Strategies.ParameterList, Strategies.parameters(strategy_id));
      exact(Strategies.Template, Strategies.template(strategy_id));
      exact(Strategies.MtfMetadata, Strategies.mtfMetadataOne(strategy_id));
      exact(Strategies.ValidationResult, Strategies.validate(strategy_id, Strategies.template(strategy_id)));
    }
    exact(Strategies.ValidationResult, Strategies.validate("ma_crossover", { fast_period: 3, slow_period: 2 }));
    exact(Strategies.ValidationResult, Strategies.validate("ma_crossover", {}));
  });
});
