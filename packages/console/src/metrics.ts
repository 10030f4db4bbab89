import Decimal from "decimal.js";
import type { components } from "@tp/client";
import { money } from "./format";
import { num, percent } from "./ui";

export type BacktestResult = components["schemas"]["BacktestResult"];
type Value = string | number | null | undefined;

/** How a metric reads and how two of them differ: money exactly (decimal strings), ratios in percentage points. */
type Kind = "money" | "ratio" | "number" | "count";

/** The metrics a backtest's result page shows and the comparison sets side by side, in order. */
export const METRICS: { label: string; kind: Kind; of: (result: BacktestResult) => Value }[] = [
  { label: "Initial capital", kind: "money", of: (r) => r.initial_capital },
  { label: "Final capital", kind: "money", of: (r) => r.final_capital },
  { label: "Total P&L", kind: "money", of: (r) => r.performance_metrics?.total_pnl },
  { label: "Total return", kind: "ratio", of: (r) => r.performance_metrics?.total_return },
  { label: "Annualized", kind: "ratio", of: (r) => r.performance_metrics?.annualized_return },
  { label: "Sharpe", kind: "number", of: (r) => r.performance_metrics?.sharpe_ratio },
  { label: "Sortino", kind: "number", of: (r) => r.performance_metrics?.sortino_ratio },
  { label: "Max drawdown", kind: "ratio", of: (r) => r.performance_metrics?.max_drawdown },
  { label: "Win rate", kind: "ratio", of: (r) => r.performance_metrics?.win_rate },
  { label: "Profit factor", kind: "number", of: (r) => r.performance_metrics?.profit_factor },
  { label: "Trades", kind: "count", of: (r) => r.performance_metrics?.total_trades },
  { label: "Fees", kind: "money", of: (r) => r.performance_metrics?.fees_paid },
];

const missing = (value: Value): value is null | undefined | "" => value === null || value === undefined || value === "";

/** A metric as shown: ratios in percent, money as the API answers it (a decimal string), with its currency when given. */
export function shown(kind: Kind, value: Value, currency?: string): string {
  if (missing(value)) return "–";
  if (kind === "ratio") return percent(Number(value));
  if (kind === "number") return num(Number(value));
  if (kind === "money" && currency) return money(value, currency);
  return String(value);
}

/** A difference with its sign: `+12.5`, `-3`, `0`. */
const signed = (text: string): string => (/^-?0(\.0+)?$/.test(text) ? text.replace("-", "") : text.startsWith("-") ? text : `+${text}`);

/** The second run's metric less the first's: money exact, ratios in percentage points; "–" when either is missing. */
export function difference(kind: Kind, first: Value, second: Value): string {
  if (missing(first) || missing(second)) return "–";
  if (kind === "money") return signed(new Decimal(second).minus(first).toFixed());
  if (kind === "ratio") return `${signed(((Number(second) - Number(first)) * 100).toFixed(2))} pp`;
  if (kind === "count") return signed(String(Number(second) - Number(first)));
  return signed((Number(second) - Number(first)).toFixed(2));
}
