import { describe, expect, it } from "vitest";
import * as ChannelPresets from "../channel-presets/channel-presets";
import { TradingEngine } from "../engine/engine";
import type { EngineEvent } from "../engine/events";
import { readBars } from "../engine/testing/reference";
import { engineSetup, normalizeConfig } from "./session-config";

/**
 * Defaults that trade (docs/trading-sessions.md): a configuration that names no sizing and no
 * risk settings, and every channel preset shipped as it is, runs under the risk rules it is
 * given and places orders, none of them denied for its size. Two years of AAPL's daily bars.
 */
function run(config: unknown) {
  const normal = normalizeConfig(config, ["AAPL.US"]);
  const engine = new TradingEngine(
    engineSetup({
      run_id: "defaults",
      config: normal,
      capital: { USD: "100000" },
      base_currency: "USD",
      fx: {},
      lots: { "AAPL.US": 1 },
      fees: null,
      enforce_risk: true,
    }),
  );
  const events: EngineEvent[] = [];
  let day = "";
  for (const bar of readBars("AAPL.US")) {
    const today = new Date(bar.timestamp).toISOString().slice(0, 10);
    if (day && today !== day) engine.endDay();
    day = today;
    engine.onBar(bar, "1d");
    events.push(...engine.drainEvents());
  }
  const count = (type: string) => events.filter((e) => e.type === type).length;
  const denials = events.filter((e) => e.type === "order_denied").map((e) => String((e.data as { reason?: string }).reason));
  return { normal, submitted: count("order_submitted"), filled: count("order_filled"), denials };
}

describe("defaults that trade", () => {
  it("sizes entries within the default position limit when a configuration gives no sizing", () => {
    const { normal, submitted, filled, denials } = run({ strategy_name: "ma_crossover", parameters: { fast_period: 10, slow_period: 30 } });
    expect(normal.execution.sizing).toEqual({ model: "cash_fraction", fraction: normal.risk_config.max_position_size });
    expect(normal.risk_config.max_position_size).toBe(0.1);
    expect(submitted).toBeGreaterThan(4);
    expect(filled).toBeGreaterThan(4);
    expect(denials).toEqual([]);
  });

  it("keeps a sizing the configuration gives, and fits the default to a risk configuration it gives", () => {
    expect(normalizeConfig({ strategy_name: "ma_crossover", execution: { sizing: { model: "cash_fraction", fraction: 0.5 } } }).execution.sizing.fraction).toBe(
      0.5,
    );
    expect(normalizeConfig({ strategy_name: "ma_crossover", risk_config: { max_position_size: 0.25 } }).execution.sizing.fraction).toBe(0.25);
    expect(normalizeConfig({ strategy_name: "ma_crossover", risk_config: { max_position_size: 1 } }).execution.sizing.fraction).toBe(0.95);
  });

  for (const id of ChannelPresets.PresetId.options) {
    it(`trades the channel preset ${id} as it is shipped`, () => {
      const preset = ChannelPresets.get(id);
      const { submitted, filled, denials } = run({ channels: preset.channels });
      expect(submitted, id).toBeGreaterThan(0);
      expect(filled, id).toBeGreaterThan(0);
      expect(
        denials.filter((reason) => reason === "MAX_POSITION_EXCEEDED"),
        id,
      ).toEqual([]);
    });
  }
});
