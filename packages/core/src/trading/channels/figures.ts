import type { EngineView, TradingEngine } from "../../engine/engine";
import { iso } from "../../util/time";
import type { ChannelMetrics, ChannelRiskReport } from "./schemas";
import { grossExposure, r2, r6, riskUtilization } from "../session/figures";

export { effectiveStatus } from "../run/status";

/** A channel's figures as its engine has them: status, brief metrics, full metrics and the risk report. Pure. */

/** The brief figures a channel's status carries. */
export function brief(view: EngineView) {
  const trades = view.stats.closed_trades;
  return { total_pnl: r2(view.equity - view.initial_equity), win_rate: trades > 0 ? r6(view.stats.wins / trades) : 0, total_trades: trades };
}

export const HALT_MESSAGE = {
  drawdown: "Halted: the channel's max_drawdown limit was breached; new entries are blocked",
  daily_loss: "Halted for the day: the channel's max_daily_loss limit was breached",
} as const;

/** A channel's figures at `at`. */
export function metricsOf(engine: TradingEngine, channelId: string, at: number): ChannelMetrics {
  const view = engine.view(channelId);
  const used = grossExposure(view);
  const trades = view.stats.closed_trades;
  return {
    channel_id: channelId,
    timestamp: iso(at),
    total_pnl: r2(view.equity - view.initial_equity),
    realized_pnl: r2(Number(view.stats.realized)),
    unrealized_pnl: r2(view.unrealized_pnl),
    daily_pnl: r2(view.daily_pnl),
    current_drawdown: r6(view.current_drawdown),
    total_trades: trades,
    winning_trades: view.stats.wins,
    losing_trades: view.stats.losses,
    win_rate: trades > 0 ? r6(view.stats.wins / trades) : 0,
    active_positions: new Set(view.positions.map((p) => p.symbol)).size,
    capital_used: r2(used),
    available_capital: r2(view.equity - used),
  };
}

/** A channel's risk report at `at`: its limits, how much of each is used, its halt and the warnings. */
export function riskReportOf(engine: TradingEngine, channelId: string, at: number): ChannelRiskReport {
  const view = engine.view(channelId);
  const limits = engine.setup.channels.find((c) => c.channel_id === channelId)!.limits;
  const usage = riskUtilization(view, limits);
  const pct = (value: number) => `${(value * 100).toFixed(1)}%`;
  const warnings: string[] = [];
  if (view.halt) warnings.push(HALT_MESSAGE[view.halt]);
  if (usage.drawdown_usage >= 0.8 && view.halt !== "drawdown")
    warnings.push(`Drawdown ${pct(view.current_drawdown)} uses ${pct(usage.drawdown_usage)} of max_drawdown ${pct(limits.max_drawdown)}`);
  if (usage.daily_loss_usage >= 0.8 && view.halt !== "daily_loss")
    warnings.push(`Today's loss uses ${pct(usage.daily_loss_usage)} of max_daily_loss ${pct(limits.max_daily_loss)}`);
  if (usage.leverage_usage >= 0.9) warnings.push(`Gross exposure uses ${pct(usage.leverage_usage)} of leverage_limit ${limits.leverage_limit}`);
  return {
    channel_id: channelId,
    timestamp: iso(at),
    daily_pnl: r2(view.daily_pnl),
    current_drawdown: r6(view.current_drawdown),
    trades_count: view.daily_trades,
    risk_utilization: usage,
    is_halted: view.halt !== null,
    warnings,
    risk_limits: limits,
  };
}
