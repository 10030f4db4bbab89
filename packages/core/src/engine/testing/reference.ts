import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Bar } from "../../strategies/strategy";
import type { EngineSetup, ProtectiveExits } from "../setup";
import { singleStrategySetup } from "./setups";

/**
 * The backtest reference fixtures (`shared/reference/backtest/`, beside the repository): frozen
 * daily bars and the fills a reference engine produced on them under stated rules.
 */

export interface ReferenceFill {
  bar_index: number;
  timestamp: number;
  side: "buy" | "sell";
  quantity: number;
  price: number;
  commission: number;
}

export interface ReferenceCase {
  symbol: string;
  bars: Bar[];
  rules: { fast: number; slow: number; lot: number; commission_rate: number; allocation: number; initial_cash: number };
  fills: ReferenceFill[];
  final_cash: number;
  final_position: number;
  final_value: number;
  total_commission: number;
}

/** The fixture folder: found by walking up from here to the folder that holds `shared/`. */
export function referenceDir(): string {
  let dir = dirname(new URL(import.meta.url).pathname);
  for (;;) {
    const candidate = join(dir, "shared", "reference", "backtest");
    if (existsSync(candidate)) return candidate;
    const parent = resolve(dir, "..");
    if (parent === dir) throw new Error("shared/reference/backtest not found beside the repository");
    dir = parent;
  }
}

/** Bars of a fixture CSV (timestamps in seconds there, milliseconds here). */
export function readBars(symbol: string): Bar[] {
  const text = readFileSync(join(referenceDir(), `${symbol}-1d.csv`), "utf8")
    .trim()
    .split("\n");
  return text.slice(1).map((line) => {
    const [timestamp, open, high, low, close, volume] = line.split(",").map(Number);
    return { symbol, timestamp: timestamp * 1000, open, high, low, close, volume };
  });
}

export function referenceCase(symbol: "AAPL.US" | "700.HK"): ReferenceCase {
  const expected = JSON.parse(readFileSync(join(referenceDir(), `${symbol}-sma10-30.expected.json`), "utf8"));
  return { ...expected, symbol, bars: readBars(symbol) };
}

export const REFERENCE_SYMBOLS = ["AAPL.US", "700.HK"] as const;

/** The reference rules as an engine setup (SMA cross, percent commission, all-in sizing, next-open fills), with `exits` on its entries. */
export function referenceSetup(ref: Pick<ReferenceCase, "symbol" | "rules">, exits?: ProtectiveExits): EngineSetup {
  const setup = singleStrategySetup({
    symbols: [ref.symbol],
    parameters: { fast_period: ref.rules.fast, slow_period: ref.rules.slow, ma_type: "sma" },
    capital: String(ref.rules.initial_cash),
    execution: {
      commission: { model: "percent", rate: ref.rules.commission_rate },
      sizing: { model: "cash_fraction", fraction: ref.rules.allocation },
      fill: "next_open",
    },
    lots: { [ref.symbol]: ref.rules.lot },
  });
  if (exits) setup.channels[0].strategies[0].exits = exits;
  return setup;
}

/** The protective-exit variants (EXITS.md): (a) a stop, (b) a stop and a target as an OCO pair, (c) a trailing stop. */
export const EXIT_VARIANTS = ["a", "b", "c"] as const;

export interface ExitFill extends ReferenceFill {
  order_type: "market" | "stop" | "limit" | "trailing_stop";
  exit_reason: null | "stop_loss" | "take_profit" | "trailing_stop" | "crossover";
  trigger_price?: number;
  gap?: boolean;
}

export interface ExitCase extends Omit<ReferenceCase, "fills"> {
  rules: ReferenceCase["rules"] & { stop_loss_pct: number | null; take_profit_pct: number | null; trailing_stop_pct: number | null };
  fills: ExitFill[];
  exit_counts: Record<"stop_loss" | "take_profit" | "trailing_stop" | "crossover" | "open_at_end", number>;
}

/** A protective-exit fixture (`<SYM>-sma10-30-exits-<variant>.expected.json`) with its bars. */
export function exitCase(symbol: (typeof REFERENCE_SYMBOLS)[number], variant: (typeof EXIT_VARIANTS)[number]): ExitCase {
  const expected = JSON.parse(readFileSync(join(referenceDir(), `${symbol}-sma10-30-exits-${variant}.expected.json`), "utf8"));
  return { ...expected, symbol, bars: readBars(symbol) };
}

/**
 * A risk configuration that lets the reference rules trade as the reference engine did (every
 * run applies the session's risk configuration unless the run gives its own, docs/trading-sessions.md):
 * no protective exits, the limits out of the way. The exit fixtures lay their exits over it.
 */
export const REFERENCE_RISK = {
  max_position_size: 1,
  max_loss_per_trade: 0.1,
  max_drawdown: 1,
  max_daily_loss: 1,
  stop_loss_pct: null,
  take_profit_pct: null,
  trailing_stop_pct: null,
};
