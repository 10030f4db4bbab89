import { describe, expect, it } from "vitest";
import type { DomainError } from "../errors";
import { ChannelPresets, Jsonc } from "./index";

const codes = (issues: { code: string }[]) => issues.map((i) => i.code);

/** A valid three-channel configuration to break one piece at a time. */
const channels = (): Record<string, unknown>[] => [
  {
    channel_id: "fast",
    channel_type: "AGGRESSIVE",
    capital_allocation: 0.3,
    strategies: [{ strategy_name: "momentum", parameters: { lookback_period: 10 }, weight: 1 }],
    risk_limits: { max_drawdown: 0.25, max_daily_loss: 0.05, max_loss_per_trade: 0.02, leverage_limit: 2 },
  },
  {
    channel_id: "core",
    channel_type: "BALANCED",
    capital_allocation: 0.4,
    strategies: [
      { strategy_name: "ma_crossover", parameters: { fast_period: 10, slow_period: 30 }, weight: 0.5 },
      { strategy_name: "rsi_mean_reversion", parameters: {}, weight: 0.5 },
    ],
    risk_limits: { max_drawdown: 0.15, max_daily_loss: 0.03, max_loss_per_trade: 0.01, leverage_limit: 1 },
  },
  {
    channel_id: "safe",
    channel_type: "CONSERVATIVE",
    capital_allocation: 0.3,
    strategies: [{ strategy_name: "trend_director", parameters: {}, weight: 1 }],
    risk_limits: { max_drawdown: 0.08, max_daily_loss: 0.02, max_loss_per_trade: 0.01, leverage_limit: 1 },
  },
];

const withChannel = (index: number, change: Record<string, unknown>) => {
  const list = channels();
  list[index] = { ...list[index], ...change };
  return list;
};

describe("channel presets", () => {
  it("lists the three presets with channel counts, types and total allocation", () => {
    const { presets, total } = ChannelPresets.list();
    expect(total).toBe(3);
    expect(presets.map((p) => [p.id, p.channel_count, p.channel_types, p.total_allocation])).toEqual([
      ["aggressive-momentum", 3, ["AGGRESSIVE", "BALANCED", "CONSERVATIVE"], 1],
      ["balanced-multi", 3, ["AGGRESSIVE", "BALANCED", "CONSERVATIVE"], 1],
      ["conservative-value", 3, ["CONSERVATIVE", "BALANCED", "AGGRESSIVE"], 1],
    ]);
    for (const preset of presets) {
      expect(preset.name.length).toBeGreaterThan(0);
      expect(preset.description.length).toBeGreaterThan(0);
      expect(preset.strategy_count).toBeGreaterThanOrEqual(preset.channel_count);
    }
  });

  it.each(["aggressive-momentum", "balanced-multi", "conservative-value"])("%s validates with no errors and no warnings", (id) => {
    expect(ChannelPresets.validate(ChannelPresets.get(id).channels)).toEqual({ valid: true, errors: [], warnings: [] });
  });

  it.each(["aggressive-momentum", "balanced-multi", "conservative-value"])("%s is served raw with its comments, and parses to the same preset", (id) => {
    const text = ChannelPresets.raw(id);
    expect(text).toMatch(/^\/\/ /);
    expect(text).toContain("/*");
    expect(() => JSON.parse(text)).toThrow();
    expect(Jsonc.parse(text)).toMatchObject({ name: ChannelPresets.get(id).name });
  });

  it("puts most of the aggressive preset's capital in aggressive channels and the reverse for conservative-value", () => {
    const share = (id: string, type: string) =>
      ChannelPresets.get(id)
        .channels.filter((c) => c.channel_type === type)
        .reduce((sum, c) => sum + c.capital_allocation, 0);
    expect(share("aggressive-momentum", "AGGRESSIVE")).toBe(0.6);
    expect(share("conservative-value", "CONSERVATIVE")).toBe(0.6);
    expect(share("balanced-multi", "BALANCED")).toBe(0.5);
  });

  it("answers 404 PRESET_NOT_FOUND for an unknown preset", () => {
    for (const fn of [ChannelPresets.raw, ChannelPresets.get]) {
      try {
        fn("yolo");
        expect.unreachable();
      } catch (error) {
        expect([(error as DomainError).status, (error as DomainError).code]).toEqual([404, "PRESET_NOT_FOUND"]);
      }
    }
  });
});

describe("ChannelPresets.validate", () => {
  it("accepts a sound configuration", () => {
    expect(ChannelPresets.validate(channels())).toEqual({ valid: true, errors: [], warnings: [] });
  });

  it("rejects allocations summing to more than 1", () => {
    const result = ChannelPresets.validate(withChannel(0, { capital_allocation: 0.5 }));
    expect(result.valid).toBe(false);
    expect(result.errors).toEqual([
      { code: "ALLOCATION_EXCEEDS_CAPITAL", field: "channels", message: "capital_allocation of all channels sums to 1.2, more than 1" },
    ]);
  });

  it("rejects a zero or negative allocation", () => {
    const result = ChannelPresets.validate(withChannel(0, { capital_allocation: 0 }));
    expect(result.errors.map((e) => [e.code, e.field])).toEqual([["OUT_OF_RANGE", "channels.0.capital_allocation"]]);
  });

  it("warns when part of the capital is left unallocated", () => {
    const result = ChannelPresets.validate(withChannel(0, { capital_allocation: 0.1 }));
    expect(result.valid).toBe(true);
    expect(result.warnings).toEqual([
      {
        code: "UNALLOCATED_CAPITAL",
        field: "channels",
        message: "capital_allocation of all channels sums to 0.8; 0.2 of capital stays idle",
      },
    ]);
  });

  it("rejects duplicate channel ids, naming both positions", () => {
    const result = ChannelPresets.validate(withChannel(2, { channel_id: "fast" }));
    expect(result.errors).toEqual([
      { code: "DUPLICATE_CHANNEL_ID", field: "channels.2.channel_id", message: "channel_id 'fast' is used by channels.0 and channels.2" },
    ]);
  });

  it("rejects an unknown channel type", () => {
    const result = ChannelPresets.validate(withChannel(1, { channel_type: "YOLO" }));
    expect(result.errors.map((e) => [e.code, e.field])).toEqual([["INVALID_VALUE", "channels.1.channel_type"]]);
  });

  it("rejects a strategy missing from the catalog", () => {
    const result = ChannelPresets.validate(withChannel(0, { strategies: [{ strategy_name: "astrology", parameters: {}, weight: 1 }] }));
    expect(result.errors.map((e) => [e.code, e.field])).toEqual([["STRATEGY_NOT_FOUND", "channels.0.strategies.0.strategy_name"]]);
  });

  it("rejects invalid strategy parameters under the strategy's path", () => {
    const result = ChannelPresets.validate(
      withChannel(1, {
        strategies: [{ strategy_name: "ma_crossover", parameters: { fast_period: 40, slow_period: 30 }, weight: 1 }],
      }),
    );
    expect(result.errors.map((e) => [e.code, e.field])).toEqual([["INVALID_PARAMETER_COMBINATION", "channels.1.strategies.0.parameters.fast_period"]]);
  });

  it("rejects risk limits out of range, max_drawdown outside 0.01 to 1.0 included", () => {
    const result = ChannelPresets.validate(
      withChannel(0, { risk_limits: { max_drawdown: 1.5, max_daily_loss: 0.05, max_loss_per_trade: 0.02, leverage_limit: 20 } }),
    );
    expect(result.errors.map((e) => [e.code, e.field])).toEqual([
      ["OUT_OF_RANGE", "channels.0.risk_limits.max_drawdown"],
      ["OUT_OF_RANGE", "channels.0.risk_limits.leverage_limit"],
    ]);
  });

  it("warns about a high-risk strategy and loose limits in a conservative channel", () => {
    const result = ChannelPresets.validate(
      withChannel(2, {
        strategies: [{ strategy_name: "momentum", parameters: {}, weight: 1 }],
        risk_limits: { max_drawdown: 0.3, max_daily_loss: 0.05, max_loss_per_trade: 0.02, leverage_limit: 1.5 },
      }),
    );
    expect(result.valid).toBe(true);
    expect(result.warnings.map((w) => [w.code, w.field])).toEqual([
      ["HIGH_RISK_STRATEGY_IN_CONSERVATIVE_CHANNEL", "channels.2.strategies.0.strategy_name"],
      ["LIMITS_LOOSER_THAN_CHANNEL_TYPE", "channels.2.risk_limits.max_drawdown"],
      ["LIMITS_LOOSER_THAN_CHANNEL_TYPE", "channels.2.risk_limits.leverage_limit"],
    ]);
  });

  it("warns when strategy weights do not sum to 1", () => {
    const list = channels();
    (list[1].strategies as { weight: number }[])[1].weight = 0.2;
    expect(ChannelPresets.validate(list).warnings.map((w) => [w.code, w.field])).toEqual([["WEIGHTS_NOT_NORMALISED", "channels.1.strategies"]]);
  });

  it("passes on the strategies' own warnings", () => {
    const result = ChannelPresets.validate(withChannel(0, { strategies: [{ strategy_name: "momentum", parameters: { allow_short: true }, weight: 1 }] }));
    expect(codes(result.warnings)).toEqual(["SHORT_SELLING_ENABLED"]);
  });

  it("rejects a body that is not a non-empty array of channels", () => {
    expect(codes(ChannelPresets.validate({}).errors)).toEqual(["INVALID_TYPE"]);
    expect(codes(ChannelPresets.validate([]).errors)).toEqual(["NO_CHANNELS"]);
    expect(codes(ChannelPresets.validate(["x"]).errors)).toEqual(["INVALID_TYPE"]);
  });

  it("reports every missing field of an empty channel", () => {
    const result = ChannelPresets.validate([{}]);
    expect(result.errors.map((e) => e.field).sort()).toEqual([
      "channels.0.capital_allocation",
      "channels.0.channel_id",
      "channels.0.channel_type",
      "channels.0.risk_limits",
      "channels.0.strategies",
    ]);
    expect(new Set(codes(result.errors))).toEqual(new Set(["MISSING_FIELD"]));
  });
});

describe("channel preset response schemas", () => {
  it("describe the list and validation answers exactly", () => {
    expect(ChannelPresets.PresetList.parse(ChannelPresets.list())).toEqual(ChannelPresets.list());
    for (const input of [channels(), withChannel(0, { capital_allocation: 0.9 }), [{}]]) {
      const result = ChannelPresets.validate(input);
      expect(ChannelPresets.ValidationResult.parse(result)).toEqual(result);
    }
  });
});
