import { performance } from "../../engine/metrics";
import { iso } from "../../util/time";
import type { Actor } from "../../users";
import { alertsOf } from "./alerts";
import { currentPointer } from "./config";
import { brief, effectiveStatus, HALT_MESSAGE, metricsOf, riskReportOf } from "./figures";
import type { ChannelConfigStore } from "./ports";
import type { ChannelMetrics, ChannelRiskReport, ChannelStatus } from "./schemas";
import { allEvents, channelSession, type Loaded, loadChannels, requireChannel } from "./session";
import type { ViewDeps } from "../session/deps";
import { pagesOf } from "../../util/pages";
import { grossExposure, r2, r6 } from "../session/figures";
import { latestPositions, sessionPerformance } from "../session/reads";

/**
 * The channel views (docs/channels.md): channel status, halts and figures from the run's engine
 * snapshot, start times from its status events.
 */

/** The time each channel last went to running, from the run's status events. */
async function startTimes(deps: ViewDeps, loaded: Loaded): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (!loaded.run) return out;
  for (const event of await allEvents(deps, loaded.run.run_id, "status")) {
    if (event.type === "channel_status" && event.channel_id && event.data.status === "running") out.set(event.channel_id, event.time);
  }
  return out;
}

/** A channel's status as shown. */
function statusOf(loaded: Loaded, channelId: string, started: Map<string, number>): ChannelStatus {
  const setup = loaded.engine.setup.channels.find((c) => c.channel_id === channelId)!;
  const view = loaded.engine.view(channelId);
  const status = effectiveStatus(loaded.session, view.state);
  const startedMs = started.get(channelId);
  return {
    channel_id: channelId,
    channel_type: setup.channel_type,
    status,
    capital_allocation: setup.capital_allocation,
    metrics: brief(view),
    strategy_count: setup.strategies.length,
    started_at: status === "stopped" ? null : startedMs !== undefined ? iso(startedMs) : loaded.session.start_time,
    error_message: view.halt ? HALT_MESSAGE[view.halt] : null,
    is_halted: view.halt !== null,
    risk_limits: setup.limits,
  };
}

/** The channels of a session. */
export async function listChannels(deps: ViewDeps, actor: Actor, sessionId: string) {
  const loaded = await loadChannels(deps, actor, sessionId);
  const started = await startTimes(deps, loaded);
  const channels = loaded.engine.channelIds().map((id) => statusOf(loaded, id, started));
  return { session_id: sessionId, channels, total_channels: channels.length, running_channels: channels.filter((c) => c.status === "running").length };
}

/** One channel. */
export async function getChannel(deps: ViewDeps, actor: Actor, sessionId: string, channelId: string): Promise<ChannelStatus> {
  const loaded = await loadChannels(deps, actor, sessionId);
  requireChannel(loaded, channelId);
  return statusOf(loaded, channelId, await startTimes(deps, loaded));
}

/** A channel's figures at the latest snapshot. */
export async function channelMetrics(deps: ViewDeps, actor: Actor, sessionId: string, channelId: string): Promise<ChannelMetrics> {
  const loaded = await loadChannels(deps, actor, sessionId);
  requireChannel(loaded, channelId);
  return metricsOf(loaded.engine, channelId, deps.now());
}

/** Every channel's figures. */
export async function sessionMetrics(deps: ViewDeps, actor: Actor, sessionId: string) {
  const loaded = await loadChannels(deps, actor, sessionId);
  const at = deps.now();
  return { session_id: sessionId, timestamp: iso(at), channels: loaded.engine.channelIds().map((id) => metricsOf(loaded.engine, id, at)) };
}

/** The session's totals over its channels. */
export async function summary(deps: ViewDeps & { configs: ChannelConfigStore }, actor: Actor, sessionId: string) {
  const loaded = await loadChannels(deps, actor, sessionId);
  const whole = loaded.engine.view(null);
  const statuses = loaded.engine.channelIds().map((id) => effectiveStatus(loaded.session, loaded.engine.view(id).state));
  const executed = loaded.run ? await countOrders(deps, loaded.run.run_id) : 0;
  const pointer = await currentPointer(deps, loaded.session);
  const trades = whole.stats.closed_trades;
  return {
    session_id: sessionId,
    user_id: loaded.session.user_id,
    status: loaded.session.status,
    total_pnl: r2(whole.equity - whole.initial_equity),
    total_capital: r2(whole.initial_equity),
    capital_used: r2(grossExposure(whole)),
    total_trades: trades,
    weighted_win_rate: trades > 0 ? r6(whole.stats.wins / trades) : 0,
    channel_count: statuses.length,
    running_channels: statuses.filter((s) => s === "running").length,
    total_orders: whole.stats.orders - whole.stats.denied,
    pending_orders: whole.pending_orders.length,
    executed_orders: executed,
    current_config_version: pointer.current_version,
    pending_config_version: pointer.pending_version,
  };
}

async function countOrders(deps: ViewDeps, runId: string): Promise<number> {
  let count = 0;
  for await (const items of pagesOf((cursor) => deps.runs.orders(runId, { limit: 500, cursor, status: "filled" }))) count += items.length;
  return count;
}

/** Each channel's share of the session's P&L, allocation, return on its capital and Sharpe ratio. */
export async function breakdown(deps: ViewDeps, actor: Actor, sessionId: string) {
  const loaded = await loadChannels(deps, actor, sessionId);
  const whole = loaded.engine.view(null);
  const total = whole.equity - whole.initial_equity;
  const days = loaded.engine.setup.trading_days_per_year;
  return {
    session_id: sessionId,
    timestamp: iso(deps.now()),
    channels: loaded.engine.setup.channels.map((channel) => {
      const view = loaded.engine.view(channel.channel_id);
      const pnl = view.equity - view.initial_equity;
      return {
        channel_id: channel.channel_id,
        contribution_to_pnl: Math.abs(total) > 1e-9 ? r6(pnl / total) : 0,
        capital_allocation: channel.capital_allocation,
        roi: view.initial_equity > 0 ? r6(pnl / view.initial_equity) : 0,
        sharpe_ratio: performance(view, days).sharpe_ratio ?? 0,
        total_pnl: r2(pnl),
      };
    }),
  };
}

/** One channel's risk report. */
export async function riskReport(deps: ViewDeps, actor: Actor, sessionId: string, channelId: string): Promise<ChannelRiskReport> {
  const loaded = await loadChannels(deps, actor, sessionId);
  requireChannel(loaded, channelId);
  return riskReportOf(loaded.engine, channelId, deps.now());
}

/** Every channel's drawdown, halt and warnings. */
export async function riskReports(deps: ViewDeps, actor: Actor, sessionId: string) {
  const loaded = await loadChannels(deps, actor, sessionId);
  const at = deps.now();
  return {
    session_id: sessionId,
    timestamp: iso(at),
    reports: loaded.engine.channelIds().map((id) => {
      const report = riskReportOf(loaded.engine, id, at);
      return { channel_id: id, current_drawdown: report.current_drawdown, is_halted: report.is_halted, warnings: report.warnings };
    }),
  };
}

/** The session's risk state with every channel's full report (second prefix only). */
export async function riskStatus(deps: ViewDeps, actor: Actor, sessionId: string) {
  const loaded = await loadChannels(deps, actor, sessionId);
  const at = deps.now();
  const whole = loaded.engine.view(null);
  const channels = loaded.engine.channelIds().map((id) => riskReportOf(loaded.engine, id, at));
  const alerts = loaded.run ? await alertsOf(deps, loaded.run.run_id) : [];
  return {
    session_id: sessionId,
    timestamp: iso(at),
    status: loaded.session.status,
    current_drawdown: r6(whole.current_drawdown),
    max_drawdown: r6(whole.max_drawdown),
    daily_pnl: r2(whole.daily_pnl),
    halted_channels: channels.filter((c) => c.is_halted).map((c) => c.channel_id),
    unacknowledged_alerts: alerts.filter((a) => !a.acknowledged).length,
    channels,
  };
}

/** Performance of the session and each channel (the trading view, behind the channel checks). */
export async function channelPerformance(deps: ViewDeps, actor: Actor, sessionId: string) {
  await channelSession(deps, actor, sessionId);
  return sessionPerformance(deps, actor, sessionId);
}

/** Open positions and cash grouped by channel. */
export async function channelPositions(deps: ViewDeps, actor: Actor, sessionId: string) {
  const session = await channelSession(deps, actor, sessionId);
  const latest = await latestPositions(deps, actor, sessionId);
  const loaded = await loadChannels(deps, actor, sessionId);
  return {
    session_id: sessionId,
    as_of: latest.as_of,
    channels: session.config.channels.map((channel) => ({
      channel_id: channel.channel_id,
      cash: loaded.engine.view(channel.channel_id).cash,
      positions: latest.positions.filter((p) => p.channel_id === channel.channel_id),
    })),
  };
}
