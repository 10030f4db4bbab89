import { describe, expect, it } from "vitest";
import { DomainError, ValidationError } from "../errors";
import { Risk } from "./index";

const codes = (issues: { code: string }[]) => issues.map((i) => i.code);

describe("Risk presets", () => {
  it("lists the default, conservative, aggressive and intraday presets with their count", () => {
    const { presets, total } = Risk.presets();
    expect(presets.map((p) => p.name)).toEqual(["default", "conservative", "aggressive", "intraday"]);
    expect(total).toBe(4);
  });

  it("returns every preset validating clean, with no errors and no warnings", () => {
    for (const preset of Risk.presets().presets) {
      const result = Risk.validate(preset.config);
      expect(result, preset.name).toEqual({ valid: true, config: preset.config, errors: [], warnings: [] });
    }
  });

  it("orders presets by appetite: conservative tighter than default, default tighter than aggressive", () => {
    const conservative = Risk.preset("conservative").config;
    const standard = Risk.preset("default").config;
    const aggressive = Risk.preset("aggressive").config;
    expect(conservative.max_drawdown).toBeLessThan(standard.max_drawdown);
    expect(standard.max_drawdown).toBeLessThan(aggressive.max_drawdown);
    expect(conservative.max_position_size).toBeLessThan(standard.max_position_size);
    expect(standard.leverage_limit).toBeLessThan(aggressive.leverage_limit);
  });

  it("answers 404 RISK_PRESET_NOT_FOUND for an unknown preset", () => {
    expect(() => Risk.preset("yolo")).toThrowError(DomainError);
    try {
      Risk.preset("yolo");
    } catch (error) {
      expect((error as DomainError).status).toBe(404);
      expect((error as DomainError).code).toBe("RISK_PRESET_NOT_FOUND");
    }
  });

  it("hands out copies, so changing a returned preset leaves the next answer intact", () => {
    Risk.preset("default").config.max_drawdown = 0.9;
    expect(Risk.preset("default").config.max_drawdown).toBe(0.2);
  });
});

describe("Risk.validate", () => {
  it("fills missing fields from the default preset", () => {
    const result = Risk.validate({ max_drawdown: 0.15 });
    expect(result.valid).toBe(true);
    expect(result.config).toEqual({ ...Risk.defaults(), max_drawdown: 0.15 });
  });

  it.each([0.005, 1.5, 0])("rejects max_drawdown %s outside 0.01 to 1.0", (value) => {
    const result = Risk.validate({ max_drawdown: value });
    expect(result.valid).toBe(false);
    expect(result.config).toBeUndefined();
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatchObject({ code: "OUT_OF_RANGE", field: "max_drawdown" });
    expect(result.errors[0].message).toContain(String(value));
  });

  it("accepts max_drawdown at both ends of its range", () => {
    expect(Risk.validate({ max_drawdown: 0.01 }).valid).toBe(true);
    expect(Risk.validate({ max_drawdown: 1 }).valid).toBe(true);
  });

  it("rejects a fractional max_open_positions, a string leverage and a misspelt field, listing each", () => {
    const result = Risk.validate({ max_open_positions: 2.5, leverage_limit: "2", max_drawdwn: 0.1 });
    expect(result.valid).toBe(false);
    expect(result.errors.map((e) => [e.code, e.field]).sort()).toEqual([
      ["INVALID_TYPE", "leverage_limit"],
      ["INVALID_TYPE", "max_open_positions"],
      ["UNKNOWN_FIELD", "max_drawdwn"],
    ]);
  });

  it("rejects a body that is not an object", () => {
    const result = Risk.validate([1, 2]);
    expect(result.valid).toBe(false);
    expect(codes(result.errors)).toEqual(["INVALID_TYPE"]);
  });

  it("warns about leverage above 2 and max drawdown above 0.3 while staying valid", () => {
    const result = Risk.validate({ leverage_limit: 3, max_total_exposure: 3, max_drawdown: 0.4 });
    expect(result.valid).toBe(true);
    expect(codes(result.warnings).sort()).toEqual(["HIGH_DRAWDOWN", "HIGH_LEVERAGE"]);
  });

  it("warns when a full-size position stopped out loses more than max_loss_per_trade", () => {
    // 0.2 of capital x 0.1 stop = 0.02 of capital lost, against a 0.01 limit.
    const result = Risk.validate({ max_position_size: 0.2, stop_loss_pct: 0.1, max_loss_per_trade: 0.01 });
    expect(result.valid).toBe(true);
    expect(codes(result.warnings)).toEqual(["STOP_LOSS_EXCEEDS_TRADE_LOSS"]);
    expect(result.warnings[0].message).toContain("0.02");
  });

  it("does not warn when the stop-loss keeps a full-size position within the per-trade limit", () => {
    const result = Risk.validate({ max_position_size: 0.1, stop_loss_pct: 0.1, max_loss_per_trade: 0.01 });
    expect(result.warnings).toEqual([]);
  });

  it("warns about contradictory limits: trade loss above daily loss above drawdown, target below stop", () => {
    const result = Risk.validate({
      max_drawdown: 0.05,
      max_daily_loss: 0.08,
      max_loss_per_trade: 0.1,
      stop_loss_pct: 0.05,
      take_profit_pct: 0.02,
    });
    expect(codes(result.warnings).sort()).toEqual(["DAILY_LOSS_EXCEEDS_DRAWDOWN", "REWARD_BELOW_RISK", "TRADE_LOSS_EXCEEDS_DAILY_LOSS"]);
  });

  it("still reports warnings for the valid fields of an invalid configuration", () => {
    const result = Risk.validate({ leverage_limit: 5, max_total_exposure: 5, max_drawdown: 2 });
    expect(result.valid).toBe(false);
    expect(codes(result.errors)).toEqual(["OUT_OF_RANGE"]);
    expect(codes(result.warnings)).toContain("HIGH_LEVERAGE");
  });
});

describe("Risk.parse", () => {
  it("throws a 422 whose issues locate the bad field under risk_config", () => {
    try {
      Risk.parse({ max_daily_loss: -1 });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues[0].loc).toEqual(["risk_config", "max_daily_loss"]);
    }
  });

  it("returns the default configuration for an absent body", () => {
    expect(Risk.parse(undefined)).toEqual(Risk.defaults());
  });
});

describe("Risk limits", () => {
  const limits = (): Risk.Limits => Risk.limitsOf(Risk.defaults());

  it("accepts limits inside their ranges", () => {
    expect(Risk.checkLimits(limits())).toEqual({ errors: [], warnings: [] });
  });

  it("reports max_drawdown outside 0.01 to 1.0 and a missing leverage limit", () => {
    const { leverage_limit: _omitted, ...rest } = limits();
    const { errors } = Risk.checkLimits({ ...rest, max_drawdown: 1.2 }, "channels.0.risk_limits");
    expect(errors.map((e) => [e.code, e.field])).toEqual([
      ["OUT_OF_RANGE", "channels.0.risk_limits.max_drawdown"],
      ["MISSING_FIELD", "channels.0.risk_limits.leverage_limit"],
    ]);
  });

  it("applies a partial update and keeps the untouched limits", () => {
    expect(Risk.updateLimits(limits(), { max_drawdown: 0.15 })).toEqual({ ...limits(), max_drawdown: 0.15 });
  });

  it("refuses an update with max_drawdown above 1.0 with 400 INVALID_PARAMETER", () => {
    try {
      Risk.updateLimits(limits(), { max_drawdown: 1.5 });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).status).toBe(400);
      expect((error as DomainError).code).toBe("INVALID_PARAMETER");
      expect((error as DomainError).message).toContain("max_drawdown");
    }
  });
});

describe("Risk response schemas", () => {
  it("describe the preset list and validation answers exactly", () => {
    expect(Risk.PresetList.parse(Risk.presets())).toEqual(Risk.presets());
    for (const input of [{}, { max_drawdown: 3 }, { leverage_limit: 4, max_total_exposure: 4 }]) {
      const result = Risk.validate(input);
      expect(Risk.ValidationResult.parse(result)).toEqual(result);
    }
  });
});
