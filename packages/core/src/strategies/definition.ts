import { z } from "zod";
import { type ConfigIssue, issue, joinField } from "../risk/config-issue";
import type { Config as RiskConfig, PresetName as RiskPresetName } from "../risk/risk";
import type { ParameterDefinition, ParameterValue } from "./parameter";
import type { Strategy } from "./strategy";

/** Candle periods a strategy can run on. */
export const Timeframe = z.enum(["1m", "5m", "1h", "1d"]).meta({ id: "Timeframe" });
export type Timeframe = z.infer<typeof Timeframe>;

/** Role of a strategy in a multi-timeframe session. */
export const Role = z.enum(["director", "executor", "universal"]).meta({ id: "StrategyRole" });
export type Role = z.infer<typeof Role>;

/** Families of strategies, for grouping in the catalog. */
export const Category = z.enum(["trend", "mean_reversion", "breakout", "momentum", "multi_timeframe"]).meta({ id: "StrategyCategory" });
export type Category = z.infer<typeof Category>;

/** How much a strategy's results swing. */
export const RiskLevel = z.enum(["low", "medium", "high"]).meta({ id: "StrategyRiskLevel" });
export type RiskLevel = z.infer<typeof RiskLevel>;

/** Parameter values after validation, defaults filled in. */
export type Values = Record<string, ParameterValue>;

/** Problems found by a strategy's cross-parameter rules. */
export interface CheckResult {
  errors: ConfigIssue[];
  warnings: ConfigIssue[];
}

/** Everything the catalog knows about one strategy. */
export interface StrategyDefinition {
  strategy_id: string;
  display_name: string;
  category: Category;
  description: string;
  risk_level: RiskLevel;
  role: Role;
  /** Periods the strategy is meant for, the preferred one first. */
  timeframes: Timeframe[];
  parameters: ParameterDefinition[];
  /** The recommended risk configuration: a preset with some fields changed. */
  risk: { preset: RiskPresetName; overrides: Partial<RiskConfig> };
  /** Rules between parameters, run on values already known to be in range. */
  check(values: Values, prefix: string): CheckResult;
  /** Bars of one symbol needed before the first signal can appear. */
  warmup(values: Values): number;
  /**
   * Bars of one symbol after which the strategy's indicators no longer depend on how much
   * history came before (within 0.1 %): its warm-up for moving windows (SMA, Donchian,
   * Bollinger, ROC), more for exponential and Wilder smoothing, which keep their seed's error
   * and only shrink it (`emaSettle`, `wilderSettle`). Absent: the warm-up. What a live or
   * simulation run loads before its first bar (docs/strategies.md "Warm-up and settling").
   */
  settle?(values: Values): number;
  /** Builds a runnable instance from validated values. */
  create(values: Values): Strategy;
}

/**
 * Bars an EMA of `period` needs to settle: its seed (the mean of the first `period` bars), then
 * ceil(3.5 · (period + 1)) bars over which the seed's error shrinks by (1 − α) a bar, α =
 * 2 / (period + 1), to below e^−7 < 0.1 % of what it was.
 */
export const emaSettle = (period: number): number => period + Math.ceil(3.5 * (period + 1));

/**
 * Bars Wilder's smoothing (RSI, ATR: α = 1 / `period`) needs to settle: its first value on bar
 * period + 1 (the mean of `period` changes), then 8 · period bars over which the seed's error
 * shrinks by (1 − 1/period) a bar, to below e^−8 ≈ 0.03 %: one period more than an EMA's
 * e^−7, because an RSI's seed can miss by more than its own mean value (a seed window with no
 * losses against a history that had some), which 0.03 % of brings within 0.1 %.
 */
export const wilderSettle = (period: number): number => period + 1 + 8 * period;

/** Bars a strategy's indicators need to settle with `values`: its declared figure, never below its warm-up. */
export const settleOf = (definition: StrategyDefinition, values: Values): number => Math.max(definition.warmup(values), definition.settle?.(values) ?? 0);

/** The short-selling switch every strategy takes. */
export const allowShortParameter: ParameterDefinition = {
  name: "allow_short",
  type: "boolean",
  default: false,
  description: "Whether bearish signals open short positions; when false they only close longs",
};

/** Error when `smaller` is not below `larger`. */
export const requireBelow = (values: Values, smaller: string, larger: string, prefix: string): ConfigIssue[] =>
  (values[smaller] as number) < (values[larger] as number)
    ? []
    : [
        issue(
          "INVALID_PARAMETER_COMBINATION",
          joinField(prefix, smaller),
          `${joinField(prefix, smaller)} (${values[smaller]}) must be less than ${larger} (${values[larger]})`,
        ),
      ];

/** Warning when a window is so short that the indicator mostly follows noise. */
export const warnShortPeriod = (values: Values, name: string, below: number, prefix: string): ConfigIssue[] =>
  (values[name] as number) < below
    ? [
        issue(
          "SHORT_PERIOD",
          joinField(prefix, name),
          `${joinField(prefix, name)} ${values[name]} is shorter than ${below} bars; expect noisy, frequent signals`,
        ),
      ]
    : [];
