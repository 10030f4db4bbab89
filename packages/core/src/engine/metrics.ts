import { z } from "zod";
import { Dec } from "../money/decimal";
import type { EngineView } from "./engine";

/**
 * Performance figures of a channel or a session (formulas in docs/trading-engine.md). Ratios are
 * plain numbers rounded to 6 decimals; money is a decimal string; null where a figure is
 * undefined (no trades, no losing day).
 */
export const PerformanceMetrics = z
  .object({
    initial_equity: z.string(),
    final_equity: z.string(),
    total_return: z.number(),
    annualized_return: z.number().nullable(),
    sharpe_ratio: z.number().nullable(),
    sortino_ratio: z.number().nullable(),
    max_drawdown: z.number(),
    max_drawdown_duration_days: z.int(),
    current_drawdown: z.number(),
    win_rate: z.number().nullable(),
    profit_factor: z.number().nullable(),
    average_win: z.string().nullable(),
    average_loss: z.string().nullable(),
    exposure: z.number().nullable(),
    total_trades: z.int(),
    winning_trades: z.int(),
    losing_trades: z.int(),
    orders: z.int(),
    denied_orders: z.int(),
    fees_paid: z.string(),
    realized_pnl: z.string(),
    unrealized_pnl: z.string(),
    total_pnl: z.string(),
    trading_days: z.int(),
  })
  .meta({ id: "PerformanceMetrics" });
export type PerformanceMetrics = z.infer<typeof PerformanceMetrics>;

const round = (value: number) => Math.round(value * 1e6) / 1e6;
const finite = (value: number): number | null => (Number.isFinite(value) ? round(value) : null);
const cents = (value: number) => new Dec(value).toFixed(2);

/** Daily returns of a run: each day's closing equity against the previous one (the first against the initial equity). */
export function dailyReturns(initial: number, days: readonly number[]): number[] {
  const out: number[] = [];
  let previous = initial;
  for (const equity of days) {
    out.push(previous > 0 ? equity / previous - 1 : 0);
    previous = equity;
  }
  return out;
}

/** The figures of `view`, annualised with `tradingDaysPerYear`. */
export function performance(view: EngineView, tradingDaysPerYear: number): PerformanceMetrics {
  const returns = dailyReturns(view.initial_equity, view.equity_days);
  const n = returns.length;
  const mean = n > 0 ? returns.reduce((a, b) => a + b, 0) / n : 0;
  const variance = n > 1 ? returns.reduce((a, r) => a + (r - mean) ** 2, 0) / (n - 1) : 0;
  const downside = n > 0 ? Math.sqrt(returns.reduce((a, r) => a + Math.min(r, 0) ** 2, 0) / n) : 0;
  const annual = Math.sqrt(tradingDaysPerYear);
  const growth = view.initial_equity > 0 ? view.equity / view.initial_equity : 1;
  const { stats } = view;
  const grossProfit = new Dec(stats.gross_profit);
  const grossLoss = new Dec(stats.gross_loss);
  const realized = new Dec(stats.realized);
  return {
    initial_equity: cents(view.initial_equity),
    final_equity: cents(view.equity),
    total_return: round(growth - 1),
    annualized_return: n > 0 && growth > 0 ? finite(growth ** (tradingDaysPerYear / n) - 1) : null,
    sharpe_ratio: variance > 0 ? finite((mean / Math.sqrt(variance)) * annual) : null,
    sortino_ratio: downside > 0 ? finite((mean / downside) * annual) : null,
    max_drawdown: round(view.max_drawdown),
    max_drawdown_duration_days: view.max_drawdown_days,
    current_drawdown: round(view.current_drawdown),
    win_rate: stats.closed_trades > 0 ? round(stats.wins / stats.closed_trades) : null,
    profit_factor: grossLoss.gt(0) ? round(grossProfit.div(grossLoss).toNumber()) : null,
    average_win: stats.wins > 0 ? grossProfit.div(stats.wins).toFixed(2) : null,
    average_loss: stats.losses > 0 ? grossLoss.div(stats.losses).toFixed(2) : null,
    exposure: n > 0 ? round(view.days_in_market / n) : null,
    total_trades: stats.closed_trades,
    winning_trades: stats.wins,
    losing_trades: stats.losses,
    orders: stats.orders,
    denied_orders: stats.denied,
    fees_paid: new Dec(stats.fees).toFixed(2),
    realized_pnl: realized.toFixed(2),
    unrealized_pnl: cents(view.unrealized_pnl),
    total_pnl: cents(view.equity - view.initial_equity),
    trading_days: n,
  };
}
