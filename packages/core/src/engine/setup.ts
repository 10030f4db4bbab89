import { z } from "zod";
import type { FeeConfig } from "../fees/index";
import type { Config as RiskConfig, Limits, ProtectiveExits } from "../risk/risk";
import { Timeframe } from "../strategies/definition";

/**
 * What the engine is told once, when a session or backtest starts: its channels, capital, how
 * orders fill and cost, and the risk rules. Everything here is resolved (defaults filled,
 * strategies validated, lot sizes looked up) by the caller; the engine only runs it.
 */

/** Commission of each fill: a flat fraction of its notional (unrounded), or a broker's fee schedule. */
export const CommissionModel = z
  .discriminatedUnion("model", [
    z.object({
      model: z.literal("percent"),
      rate: z.number().min(0).max(0.1).describe("Fraction of each fill's notional, e.g. 0.001 for 0.1 %"),
    }),
    z.object({
      model: z.literal("broker"),
      broker_type: z.string().min(1).max(32).default("longport").describe("Whose fee schedule prices each fill (see docs/fees.md)"),
    }),
  ])
  .meta({ id: "CommissionModel" });
export type CommissionModel = z.infer<typeof CommissionModel>;

/** How an entry is sized: a fraction of the sleeve's free cash in the symbol's currency, whole lots. */
export const SizingModel = z
  .object({
    model: z.literal("cash_fraction"),
    fraction: z.number().gt(0).max(1).default(0.95).describe("Share of the strategy's free cash an entry may use"),
  })
  .meta({ id: "SizingModel" });
export type SizingModel = z.infer<typeof SizingModel>;

/** When a market order placed on a bar's close fills. */
export const FillRule = z.enum(["next_open", "close"]).meta({ id: "FillRule" });
export type FillRule = z.infer<typeof FillRule>;

/**
 * The conventions of protective exits on bars (docs/trading-engine.md "Protective exits"); the
 * defaults are the reference engine's (`shared/reference/backtest/EXITS.md`).
 */
export const ExitRules = z
  .object({
    priority: z
      .enum(["stop_loss", "take_profit"])
      .default("stop_loss")
      .describe(
        "Which of a position's stop and target is placed first, and so fills when one bar reaches both (orders are tried in the order they were placed, and the first fill cancels the other)",
      ),
    trailing_reference: z
      .enum(["close", "extreme"])
      .default("close")
      .describe(
        "What a trailing stop follows on bars: each bar's close (the reference engine's rule), or its best price (the high of a long, the low of a short)",
      ),
  })
  .meta({ id: "ExitRules" });
export type ExitRules = z.infer<typeof ExitRules>;
export type { ProtectiveExits } from "../risk/risk";

/** The exit conventions of a run stored before they were chosen. */
export const DEFAULT_EXIT_RULES: ExitRules = { priority: "stop_loss", trailing_reference: "close" };

/** How orders fill and what they cost (backtests' `strategy_config.execution`, sessions' `config.execution`). */
export const Execution = z
  .object({
    commission: CommissionModel.default({ model: "broker", broker_type: "longport" }),
    sizing: SizingModel.default({ model: "cash_fraction", fraction: 0.95 }),
    fill: FillRule.default("next_open"),
    slippage_bps: z.number().min(0).max(1000).default(0).describe("Adverse price move applied to every fill, in basis points"),
    max_participation: z
      .number()
      .gt(0)
      .max(1)
      .optional()
      .describe(
        "Bar-simulated fills: the most of a bar's volume one order may take (0.1 = 10%), in whole lots; the rest waits for later bars (partial fills). Absent: an order fills whole",
      ),
    warm_up: z
      .boolean()
      .optional()
      .describe(
        "Backtests: feed the strategies the stored bars before start_date that their indicators need to settle (`settle_bars`, at least their warm-up), importing what is missing, so they can signal from the first day with the indicator values an unbroken run would hold; absent or false: they first signal once the window has given them enough bars. Simulation and live sessions always warm up",
      ),
    timeframe: Timeframe.default("1d").describe("Candle period the strategies run on unless a strategy names its own"),
    exits: ExitRules.default(DEFAULT_EXIT_RULES).describe(
      "How protective exits (risk_config's stop_loss_pct, take_profit_pct, trailing_stop_pct) fill on bars",
    ),
    intrabar: z
      .enum(["1m"])
      .optional()
      .describe(
        "Backtests on 5m, 1h or 1d bars: which of a bar's waiting orders fills first, and at what price, is read from the stored 1-minute bars inside it (a stop and a target both within the bar's range fill in the order the minutes reach them); a bar without stored minutes fills by its own open, high and low, and the result's warnings count those bars. Absent: every bar fills by its own prices",
      ),
    adjust: z
      .enum(["forward", "none"])
      .default("forward")
      .describe(
        'Backtests: the prices bars are fed at. "forward" (the default): bars before a corporate action inside the window (a split, a dividend, learnt by imports) are multiplied by its ratio, volumes divided, so the series continues at the prices after it and a split is no crash; "none": the stored prices as traded, where a split shows as a price jump (the result warns UNADJUSTED_PRICES). The result\'s price_adjustment says which and lists the actions. Sessions and replays trade the prices as traded',
      ),
  })
  .meta({ id: "Execution" });
export type Execution = z.infer<typeof Execution>;

/** One strategy of a channel, resolved: validated parameters, its symbols and its period. */
export interface StrategySlot {
  strategy_name: string;
  parameters: Record<string, unknown>;
  /** Share of the channel's capital this strategy sizes against. */
  weight: number;
  symbols: string[];
  timeframe: Timeframe;
  /**
   * Multi-timeframe role (docs/mtf-and-replay.md): a `director` places no orders, its stance per
   * symbol is the bias (`BarContext.bias`) of the channel's `executor`s. Absent: a plain strategy.
   */
  role?: "director" | "executor";
  /** The protective orders of this strategy's entries (absent: the setup's `exits`). */
  exits?: ProtectiveExits;
}

/** A sleeve of the session's capital. */
export interface ChannelSetup {
  channel_id: string;
  channel_type: string;
  capital_allocation: number;
  strategies: StrategySlot[];
  limits: Limits;
}

export interface EngineSetup {
  session_id: string;
  /** The currency equity, drawdowns and returns are measured in. */
  base_currency: string;
  /** Starting cash of the whole session by currency; each channel gets `capital_allocation` of every line. */
  capital: Record<string, string>;
  /** Units of `base_currency` per unit of each other currency (marking only; cash is never converted). */
  fx: Record<string, number>;
  channels: ChannelSetup[];
  execution: Execution;
  /** Session-wide pre-trade rules; null runs without position, exposure and count limits (cash and lots still apply). */
  risk: RiskConfig | null;
  /** The protective orders of entries a strategy slot does not set its own for (manual orders'); absent: none. */
  exits?: ProtectiveExits;
  /** Board lot per symbol (1 when absent). */
  lots: Record<string, number>;
  /** Fee schedule for the `broker` commission model. */
  fees: FeeConfig | null;
  /** Trading days per year of the session's market, for annualising (252 US, 247 HK). */
  trading_days_per_year: number;
  /** Emit `strategy_output` and `signal` events for every strategy bar (MTF sessions' `outputs`). */
  trace?: boolean;
  /**
   * Where orders fill (ENGINE.md §3): `bars` (absent), simulated on the bars fed (backtests,
   * replays, MTF steps, and sessions that ask for it); `broker`, the session's broker (a
   * simulation session's paper account, a live session's LongPort account): orders stay pending
   * until the venue's fills and ends are handed in (`routed`, `venueFill`, `venueEnded`).
   */
  venue?: "bars" | "broker";
}
