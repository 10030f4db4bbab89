import { beforeAll, describe, expect, it } from "vitest";
import { createTestApi, type TestApi } from "../support/harness";

let api: TestApi;
let token: string;
beforeAll(async () => {
  api = await createTestApi();
  token = (await api.createUser()).token;
});

const validate = (channels: unknown, status = 200) => api.json("POST", "/api/v1/channel-presets/validate", status, { token, body: { channels } });

/** A well-formed channel; tests change one thing at a time. */
function channel(overrides: Record<string, unknown> = {}) {
  return {
    channel_id: "core",
    channel_type: "BALANCED",
    capital_allocation: 0.5,
    strategies: [{ strategy_name: "ma_crossover", parameters: { fast_period: 10, slow_period: 30 }, weight: 1 }],
    risk_limits: { max_drawdown: 0.15, max_daily_loss: 0.03, max_loss_per_trade: 0.015, leverage_limit: 1 },
    ...overrides,
  };
}

describe("channel preset catalog", () => {
  it("lists the three built-in presets, each fully allocated over three channels", async () => {
    const body = await api.json("GET", "/api/v1/channel-presets/presets", 200, { token });
    expect(body.total).toBe(3);
    expect(body.presets.map((p: any) => p.id)).toEqual(["aggressive-momentum", "balanced-multi", "conservative-value"]);
    for (const preset of body.presets) {
      expect(preset, preset.id).toMatchObject({ channel_count: 3, total_allocation: 1 });
      expect([...preset.channel_types].sort(), preset.id).toEqual(["AGGRESSIVE", "BALANCED", "CONSERVATIVE"]);
    }
  });

  it("serves a preset's stored text as text/plain, comments included", async () => {
    const response = await api.request("GET", "/api/v1/channel-presets/presets/balanced-multi", { headers: { Authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")?.toLowerCase()).toBe("text/plain; charset=utf-8");
    const text = await response.text();
    expect(text.startsWith("// Balanced multi-strategy preset.")).toBe(true);
    expect(text).toContain("/* Trend and counter-trend legs");
    expect(text).toContain('"name": "Balanced Multi-Strategy"');
    expect(() => JSON.parse(text)).toThrow();
  });

  it("answers 404 PRESET_NOT_FOUND as JSON for an unknown preset", async () => {
    const body = await api.json("GET", "/api/v1/channel-presets/presets/yolo", 404, { token });
    expect(body.error_code).toBe("PRESET_NOT_FOUND");
  });

  it("answers 401 without a token", async () => {
    await api.json("GET", "/api/v1/channel-presets/presets", 401);
    await api.json("GET", "/api/v1/channel-presets/presets/balanced-multi", 401);
    await api.json("POST", "/api/v1/channel-presets/validate", 401, { body: { channels: [] } });
  });
});

describe("POST /channel-presets/validate", () => {
  it("accepts two channels that share the capital exactly", async () => {
    const result = await validate([channel(), channel({ channel_id: "safe", channel_type: "CONSERVATIVE" })]);
    expect(result).toEqual({ valid: true, errors: [], warnings: [] });
  });

  it("rejects allocations summing to more than 1", async () => {
    const result = await validate([channel({ capital_allocation: 0.7 }), channel({ channel_id: "other", capital_allocation: 0.6 })]);
    expect(result.valid).toBe(false);
    expect(result.errors).toEqual([
      { code: "ALLOCATION_EXCEEDS_CAPITAL", field: "channels", message: "capital_allocation of all channels sums to 1.3, more than 1" },
    ]);
  });

  it("rejects an unknown channel type and an unknown strategy, naming where they are", async () => {
    const result = await validate([channel({ channel_type: "RECKLESS", capital_allocation: 1, strategies: [{ strategy_name: "martingale", weight: 1 }] })]);
    expect(result.valid).toBe(false);
    expect(result.errors.map((e: any) => [e.code, e.field])).toEqual([
      ["INVALID_VALUE", "channels.0.channel_type"],
      ["STRATEGY_NOT_FOUND", "channels.0.strategies.0.strategy_name"],
    ]);
  });

  it("warns about idle capital", async () => {
    const result = await validate([channel({ capital_allocation: 0.8 })]);
    expect(result.valid).toBe(true);
    expect(result.warnings.map((w: any) => w.code)).toEqual(["UNALLOCATED_CAPITAL"]);
  });

  it("reports an empty list as NO_CHANNELS, and refuses a body without channels with 422", async () => {
    expect(await validate([])).toMatchObject({ valid: false, errors: [{ code: "NO_CHANNELS" }] });
    const body = await api.json("POST", "/api/v1/channel-presets/validate", 422, { token, body: { channel: [] } });
    expect(body.detail[0].loc).toEqual(["body", "channels"]);
  });
});
