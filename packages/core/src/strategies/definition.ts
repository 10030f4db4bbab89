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
  /** Builds a runnable instance from validated values. */
  create(values: Values): Strategy;
}

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
