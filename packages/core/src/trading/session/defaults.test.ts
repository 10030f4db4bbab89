import { describe, expect, it } from "vitest";
import * as ChannelPresets from "../../channel-presets/channel-presets";
import { TradingEngine } from "../../engine/engine";
import type { EngineEvent } from "../../engine/events";
import { readBars } from "../../engine/testing/reference";
import * as Risk from "../../risk/risk";
import { Strategies } from "../../strategies/index";
import { engineSetup, normalizeConfig, sizingIssues } from "./config";

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
    // A full position would lose more than max_loss_per_trade (0.02) at the 5 % stop: the default sizes to fit it too.
    expect(normalizeConfig({ strategy_name: "ma_crossover", risk_config: { max_position_size: 1 } }).execution.sizing.fraction).toBe(0.4);
    expect(normalizeConfig({ strategy_name: "ma_crossover", risk_config: { max_position_size: 1, stop_loss_pct: null } }).execution.sizing.fraction).toBe(0.95);
    // Without a stop, ema_trend's own trailing stop of 8 % bounds the loss: 0.02 / 0.08.
    expect(normalizeConfig({ strategy_name: "ema_trend", risk_config: { max_position_size: 1, stop_loss_pct: null } }).execution.sizing.fraction).toBe(0.25);
    expect(normalizeConfig({ strategy_name: "ma_crossover", risk_config: { max_position_size: 1, max_total_exposure: 0.5 } }).execution.sizing.fraction).toBe(
      0.4,
    );
    expect(normalizeConfig({ strategy_name: "ma_crossover", risk_config: { max_position_size: 1, max_total_exposure: 0.3 } }).execution.sizing.fraction).toBe(
      0.3,
    );
  });

  it("trades under a risk configuration whose position limit alone would have let the default deny every entry for its loss at the stop", () => {
    const { filled, denials } = run({ strategy_name: "ma_crossover", parameters: { fast_period: 10, slow_period: 30 }, risk_config: { max_position_size: 1 } });
    expect(filled).toBeGreaterThan(4);
    // Its drawdown limit still halts it now and then (CHANNEL_HALTED); no entry is denied for its size.
    expect(denials.filter((reason) => reason === "MAX_LOSS_PER_TRADE_EXCEEDED" || reason === "MAX_POSITION_EXCEEDED")).toEqual([]);
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

/** A sizing the limits can never allow (docs/trading-sessions.md): refused when a configuration is made, never for the default. */
describe("a sizing the risk limits never allow", () => {
  const at = ["body", "config", "execution", "sizing", "fraction"];
  const field = (name: string, channel?: number) => (channel === undefined ? `config.risk_config.${name}` : `config.channels.${channel}.risk_limits.${name}`);
  const issuesOf = (config: unknown) => sizingIssues(normalizeConfig(config, ["AAPL.US"]), at, field);

  it("names execution.sizing.fraction and each limit it breaks, with what to change: half of the cash under the default preset", () => {
    const config = { execution: { sizing: { model: "cash_fraction", fraction: 0.5 } } };
    expect(issuesOf(config)).toEqual([
      {
        loc: at,
        msg: "execution.sizing.fraction 0.5 sizes an entry at 0.5 of the channel's equity while it holds nothing, above config.risk_config.max_position_size 0.1: every entry would be denied MAX_POSITION_EXCEEDED. Lower execution.sizing.fraction to at most 0.1, or raise config.risk_config.max_position_size to at least 0.5",
        type: "sizing_never_allowed",
      },
      {
        loc: at,
        msg: "execution.sizing.fraction 0.5 sizes an entry at 0.5 of the channel's equity while it holds nothing, a stop-out at its stop 0.05 would lose 0.025 of equity, above config.risk_config.max_loss_per_trade 0.02: every entry would be denied MAX_LOSS_PER_TRADE_EXCEEDED. Lower execution.sizing.fraction to at most 0.4, or raise config.risk_config.max_loss_per_trade to at least 0.025, or narrow the stop",
        type: "sizing_never_allowed",
      },
    ]);
    // The engine agrees: every entry of that configuration is denied, for both reasons.
    const { submitted, denials } = run({ ...config, strategy_name: "ma_crossover", parameters: { fast_period: 10, slow_period: 30 } });
    expect(submitted).toBe(0);
    expect(denials.length).toBeGreaterThan(4);
    expect(new Set(denials)).toEqual(new Set(["MAX_POSITION_EXCEEDED"]));
  });

  it("counts a strategy's weight and a channel's own limits, and lets a channel pass when one of its strategies can open a position", () => {
    const channel = (strategies: unknown[], risk_limits?: unknown) => ({
      channels: [{ channel_id: "a", capital_allocation: 1, strategies, ...(risk_limits ? { risk_limits } : {}) }],
    });
    const sizing = { execution: { sizing: { model: "cash_fraction", fraction: 0.4 } }, risk_config: { max_position_size: 0.5, stop_loss_pct: null } };
    expect(issuesOf({ ...channel([{ strategy_name: "ma_crossover", weight: 0.5 }]), ...sizing })).toEqual([]);
    const tight = issuesOf({
      ...channel(
        [
          { strategy_name: "ma_crossover", weight: 0.5 },
          { strategy_name: "ema_trend", weight: 0.5 },
        ],
        { leverage_limit: 0.1 },
      ),
      ...sizing,
    });
    expect(tight.map((issue) => issue.msg)).toEqual([
      "channel a, ma_crossover: execution.sizing.fraction 0.4 × weight 0.5 = 0.2 sizes an entry at 0.2 of the channel's equity while it holds nothing, above config.channels.0.risk_limits.leverage_limit 0.1: every entry would be denied MAX_EXPOSURE_EXCEEDED. Lower execution.sizing.fraction to at most 0.2, or raise config.channels.0.risk_limits.leverage_limit to at least 0.2",
      "channel a, ema_trend: execution.sizing.fraction 0.4 × weight 0.5 = 0.2 sizes an entry at 0.2 of the channel's equity while it holds nothing, above config.channels.0.risk_limits.leverage_limit 0.1: every entry would be denied MAX_EXPOSURE_EXCEEDED. Lower execution.sizing.fraction to at most 0.2, or raise config.channels.0.risk_limits.leverage_limit to at least 0.2",
    ]);
    // One strategy of the channel fits (a tenth of the weight): the channel trades, the other may fit in what it leaves.
    expect(
      issuesOf({
        ...channel(
          [
            { strategy_name: "ma_crossover", weight: 0.1 },
            { strategy_name: "ema_trend", weight: 1 },
          ],
          { leverage_limit: 0.1 },
        ),
        ...sizing,
      }),
    ).toEqual([]);
  });

  it("never refuses the default sizing: every catalog strategy under every risk preset, alone and with its limits loosened one by one", () => {
    for (const strategy of Strategies.list().strategies.map((s) => s.strategy_id)) {
      for (const preset of Risk.PresetName.options) {
        const base = Risk.preset(preset).config;
        for (const loosened of [
          {},
          { max_position_size: 1 },
          { max_total_exposure: 0.2 },
          { max_loss_per_trade: 0.001 },
          { stop_loss_pct: 1 },
          { leverage_limit: 0.1 },
        ]) {
          const config = { strategy_name: strategy, risk_config: { ...base, ...loosened } };
          expect(issuesOf(config), `${strategy} ${preset} ${JSON.stringify(loosened)}`).toEqual([]);
        }
      }
    }
  });

  for (const id of ChannelPresets.PresetId.options) {
    it(`passes the channel preset ${id} as it is shipped`, () => {
      expect(issuesOf({ channels: ChannelPresets.get(id).channels })).toEqual([]);
    });
  }
});
