import { z } from "zod";
import { badRequest, conflict, notFound, parseOrThrow } from "../errors";
import { TradingEngine, type ChannelRunState, type EngineView } from "../engine/engine";
import type { EngineEvent } from "../engine/events";
import { performance } from "../engine/metrics";
import type { EngineSetup } from "../engine/setup";
import { Realtime, type RealtimeDeps } from "../realtime";
import * as Risk from "../risk/risk";
import type { Actor } from "../users";
import { LiveRuns } from "./live";
import { engineOf, updateRun } from "./run-update";
import type { StoredEvent, StoredRun } from "./runs";
import type { SessionChannel } from "./session-config";
import {
  invalidTransition,
  isActiveOnWorker,
  isWorkerDriven,
  mutate,
  owned,
  transition,
  TRANSITIONS,
  type SessionAction,
  type StoredSession,
} from "./sessions";
import type { ViewDeps } from "./deps";
import { latestPositions, sessionPerformance } from "./views";
import { iso } from "../time";

/**
 * Multi-channel sessions (docs/channels.md): each channel is a sleeve of one session's engine.
 * Everything shown here is read from the table: channel status, halts and figures from the
 * run's engine snapshot, alerts and their acknowledgements from the run's event log, and
 * configuration versions from their own items. Commands (channel start, stop, pause, resume,
 * risk limits, acknowledgements) are engine operations applied to the run by `deliver`, the one
 * function that writes them, conditionally on the run's version, like every other input.
 */

// ---- ports --------------------------------------------------------------------------------------

/** One version of a session's channel configuration. */
export interface ConfigVersionRecord {
  session_id: string;
  version: number;
  timestamp: string;
  /** Per channel, per field: `{from, to}`. */
  changes: Record<string, Record<string, unknown>>;
  changed_by: string;
  channels: SessionChannel[];
}

/** Which version is in force and which waits for the channels to reload. `revision` rises with every write. */
export interface ConfigPointer {
  session_id: string;
  current_version: number;
  pending_version: number | null;
  revision: number;
}

/** Storage port of configuration versions. */
export interface ChannelConfigStore {
  pointer(sessionId: string): Promise<ConfigPointer | undefined>;
  /** Every version, oldest first. */
  versions(sessionId: string): Promise<ConfigVersionRecord[]>;
  /** Writes new version records and the pointer together if the stored pointer's revision is still `expectedRevision` (0: none yet). */
  commit(pointer: ConfigPointer, expectedRevision: number, records: ConfigVersionRecord[]): Promise<boolean>;
}

/** A message on a session's socket, as pushed and as `/updates` returns it. */
export interface StreamRecord {
  type: string;
  data: Record<string, unknown>;
  timestamp: string;
}

/** The short-lived feed of everything pushed on a session's socket. */
export interface UpdateFeed {
  /**
   * Stores messages with strictly increasing timestamps per session (never before `now`, never
   * equal to an earlier record's), so `since` a record's timestamp means exactly the records after it.
   */
  append(sessionId: string, messages: { type: string; data: Record<string, unknown> }[], now: number): Promise<StreamRecord[]>;
  /** Records with a timestamp after `sinceMs` (all kept ones when null), oldest first, at most `limit`. */
  since(sessionId: string, sinceMs: number | null, limit: number): Promise<StreamRecord[]>;
}

export interface ChannelDeps extends ViewDeps {
  configs: ChannelConfigStore;
  feed: UpdateFeed;
  realtime: RealtimeDeps;
}

// ---- schemas ------------------------------------------------------------------------------------

export const ChannelStatusValue = z.enum(["running", "paused", "stopped"]).meta({ id: "ChannelStatusValue" });
const Num = z.number();
const BriefMetrics = z.object({ total_pnl: Num, win_rate: Num, total_trades: z.int() });

export const ChannelStatus = z
  .object({
    channel_id: z.string(),
    channel_type: z.string(),
    status: ChannelStatusValue,
    capital_allocation: Num,
    metrics: BriefMetrics,
    strategy_count: z.int(),
    started_at: z.string().nullable(),
    error_message: z.string().nullable().describe("Why new entries are halted (a breached drawdown or daily-loss limit), else null"),
    is_halted: z.boolean(),
    risk_limits: Risk.Limits,
  })
  .meta({ id: "ChannelStatus" });
export type ChannelStatus = z.infer<typeof ChannelStatus>;

export const ChannelList = z
  .object({ session_id: z.string(), channels: z.array(ChannelStatus), total_channels: z.int(), running_channels: z.int() })
  .meta({ id: "ChannelList" });

export const ChannelMetrics = z
  .object({
    channel_id: z.string(),
    timestamp: z.string(),
    total_pnl: Num,
    realized_pnl: Num,
    unrealized_pnl: Num,
    daily_pnl: Num,
    current_drawdown: Num,
    total_trades: z.int(),
    winning_trades: z.int(),
    losing_trades: z.int(),
    win_rate: Num,
    active_positions: z.int(),
    capital_used: Num,
    available_capital: Num,
  })
  .meta({ id: "ChannelMetrics" });
export type ChannelMetrics = z.infer<typeof ChannelMetrics>;

export const SessionMetrics = z
  .object({ session_id: z.string(), timestamp: z.string(), channels: z.array(ChannelMetrics) })
  .meta({ id: "ChannelSessionMetrics" });

export const ChannelSummary = z
  .object({
    session_id: z.string(),
    user_id: z.string(),
    status: z.string(),
    total_pnl: Num,
    total_capital: Num,
    capital_used: Num,
    total_trades: z.int(),
    weighted_win_rate: Num,
    channel_count: z.int(),
    running_channels: z.int(),
    total_orders: z.int(),
    pending_orders: z.int(),
    executed_orders: z.int(),
    current_config_version: z.int(),
    pending_config_version: z.int().nullable(),
  })
  .meta({ id: "ChannelSessionSummary" });

export const Breakdown = z
  .object({
    session_id: z.string(),
    timestamp: z.string(),
    channels: z.array(z.object({ channel_id: z.string(), contribution_to_pnl: Num, capital_allocation: Num, roi: Num, sharpe_ratio: Num, total_pnl: Num })),
  })
  .meta({ id: "ChannelBreakdown" });

const Utilization = z.object({ drawdown_usage: Num, daily_loss_usage: Num, leverage_usage: Num });

export const ChannelRiskReport = z
  .object({
    channel_id: z.string(),
    timestamp: z.string(),
    daily_pnl: Num,
    current_drawdown: Num,
    trades_count: z.int(),
    risk_utilization: Utilization,
    is_halted: z.boolean(),
    warnings: z.array(z.string()),
    risk_limits: Risk.Limits,
  })
  .meta({ id: "ChannelRiskReport" });
export type ChannelRiskReport = z.infer<typeof ChannelRiskReport>;

export const RiskReports = z
  .object({
    session_id: z.string(),
    timestamp: z.string(),
    reports: z.array(z.object({ channel_id: z.string(), current_drawdown: Num, is_halted: z.boolean(), warnings: z.array(z.string()) })),
  })
  .meta({ id: "ChannelRiskReports" });

export const RiskStatus = z
  .object({
    session_id: z.string(),
    timestamp: z.string(),
    status: z.string(),
    current_drawdown: Num,
    max_drawdown: Num,
    daily_pnl: Num,
    halted_channels: z.array(z.string()),
    unacknowledged_alerts: z.int(),
    channels: z.array(ChannelRiskReport),
  })
  .meta({ id: "ChannelRiskStatus" });

export const AlertLevel = z.enum(["critical", "warning", "info"]).meta({ id: "AlertLevel" });
export const AlertType = z.enum(["risk_limit", "performance", "system"]).meta({ id: "AlertType" });

export const Alert = z
  .object({
    alert_id: z.string(),
    channel_id: z.string().nullable(),
    level: AlertLevel,
    type: AlertType,
    message: z.string(),
    timestamp: z.string(),
    acknowledged: z.boolean(),
    acknowledged_at: z.string().nullable(),
    acknowledged_by: z.string().nullable(),
  })
  .meta({ id: "ChannelAlert" });
export type Alert = z.infer<typeof Alert>;

export const AlertQuery = z.object({
  level: AlertLevel.optional(),
  type: AlertType.optional(),
  acknowledged: z
    .enum(["true", "false"])
    .transform((v) => v === "true")
    .optional(),
  channel_id: z.string().min(1).max(64).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

export const AlertList = z.object({ alerts: z.array(Alert), total: z.int(), unacknowledged: z.int() }).meta({ id: "ChannelAlertList" });

export const AlertSummary = z
  .object({
    session_id: z.string(),
    total_alerts: z.int(),
    unacknowledged_alerts: z.int(),
    alerts_by_level: z.object({ critical: z.int(), warning: z.int(), info: z.int() }),
    alerts_by_type: z.object({ risk_limit: z.int(), performance: z.int(), system: z.int() }),
    recent_critical_alerts_24h: z.int(),
  })
  .meta({ id: "ChannelAlertSummary" });

export const AcknowledgeResult = z
  .object({ alert_id: z.string(), acknowledged: z.boolean(), acknowledged_at: z.string(), acknowledged_by: z.string(), message: z.string() })
  .meta({ id: "ChannelAlertAcknowledged" });

export const ChannelAction = z.enum(["start", "stop", "pause", "resume"]);
export type ChannelAction = z.infer<typeof ChannelAction>;

export const ChannelActionResult = z
  .object({
    channel_id: z.string(),
    status: ChannelStatusValue,
    message: z.string(),
    started_at: z.string().optional(),
    stopped_at: z.string().optional(),
    paused_at: z.string().optional(),
    resumed_at: z.string().optional(),
    current_config_version: z.int(),
  })
  .meta({ id: "ChannelActionResult" });

export const SessionActionResult = z
  .object({
    session_id: z.string(),
    status: z.string(),
    previous_status: z.string(),
    message: z.string(),
    timestamp: z.string(),
    current_config_version: z.int(),
    channels: z.array(ChannelStatus),
  })
  .meta({ id: "ChannelSessionActionResult" });

export const RiskLimitsBody = z
  .object({
    max_drawdown: z.number().optional(),
    max_daily_loss: z.number().optional(),
    max_loss_per_trade: z.number().optional(),
    leverage_limit: z.number().optional(),
  })
  .strict()
  .meta({ id: "ChannelRiskLimitsRequest" });

export const RiskLimitsResult = z
  .object({
    channel_id: z.string(),
    updated_limits: Risk.Limits,
    effective_at: z.string().nullable().describe("When the engine took the limits; null while they wait as the pending version"),
    message: z.string(),
    config_version: z.int(),
    current_config_version: z.int(),
    pending_config_version: z.int().nullable(),
  })
  .meta({ id: "ChannelRiskLimitsResult" });

export const ConfigHistory = z
  .object({
    session_id: z.string(),
    current_version: z.int(),
    pending_version: z.int().nullable(),
    history: z.array(
      z.object({
        version: z.int(),
        timestamp: z.string(),
        changes: z.record(z.string(), z.unknown()),
        changed_by: z.string(),
        is_current: z.boolean(),
        is_pending: z.boolean(),
      }),
    ),
    total_versions: z.int(),
  })
  .meta({ id: "ChannelConfigHistory" });

export const ConfigHistoryQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(100),
  channel_id: z.string().min(1).max(64).optional(),
});

export const RollbackBody = z.object({ target_version: z.int().min(1) }).meta({ id: "ChannelConfigRollbackRequest" });

export const RollbackResult = z
  .object({ session_id: z.string(), previous_version: z.int(), current_version: z.int(), rollback_time: z.string(), message: z.string() })
  .meta({ id: "ChannelConfigRollbackResult" });

export const UpdatesQuery = z.object({
  since: z
    .string()
    .max(64)
    .refine((v) => Number.isFinite(Date.parse(v)), "must be an ISO 8601 timestamp")
    .optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(1000),
});

export const Updates = z
  .object({
    session_id: z.string(),
    updates: z.array(z.object({ type: z.string(), data: z.record(z.string(), z.unknown()), timestamp: z.string() })),
    count: z.int(),
    last_timestamp: z.string().nullable().describe("Timestamp of the last update returned (or `since` when none): the next call's `since`"),
    has_more: z.boolean(),
  })
  .meta({ id: "ChannelUpdates" });

export const PositionsView = z
  .object({
    session_id: z.string(),
    as_of: z.string().nullable(),
    channels: z.array(z.object({ channel_id: z.string(), cash: z.record(z.string(), z.string()), positions: z.array(z.record(z.string(), z.unknown())) })),
  })
  .meta({ id: "ChannelPositions" });

// ---- reading ------------------------------------------------------------------------------------

const r2 = (value: number) => (Number.isFinite(value) ? Math.round(value * 100) / 100 : 0);
const r6 = (value: number) => (Number.isFinite(value) ? Math.round(value * 1e6) / 1e6 : 0);

/** A channel session as the views read it: the session, its engine as of the latest snapshot, and its run. */
interface Loaded {
  session: StoredSession;
  engine: TradingEngine;
  run: StoredRun | undefined;
}

/** The session if it exists, is the caller's and has channels: 404 `SESSION_NOT_FOUND`, 403 `ACCESS_DENIED`, 400 `CHANNEL_MANAGER_NOT_INITIALIZED`. */
export async function channelSession(deps: ViewDeps, actor: Actor, sessionId: string): Promise<StoredSession> {
  const session = await owned(deps, actor, sessionId);
  if (session.config.channels.length === 0) {
    throw badRequest(
      "CHANNEL_MANAGER_NOT_INITIALIZED",
      `Session ${sessionId} has no channels: create it with config.channels (a channel preset's content) or a strategy_name`,
    );
  }
  return session;
}

/**
 * The session's channels as its run has them. A run that did not run them (a backtest of a
 * strategy of its own, docs/backtests.md) leaves them as configured, not yet run: the views show
 * them at their starting capital rather than the run's one `main` channel.
 */
async function load(deps: ViewDeps, actor: Actor, sessionId: string): Promise<Loaded> {
  const session = await channelSession(deps, actor, sessionId);
  const run = session.run_id ? await deps.runs.get(session.run_id) : undefined;
  const engine = run ? engineOf(run) : undefined;
  const ranChannels = engine !== undefined && session.config.channels.every((channel) => engine.channelIds().includes(channel.channel_id));
  if (engine && ranChannels) return { session, engine, run };
  return { session, engine: new TradingEngine(await deps.setupFor(session, session.id)), run: undefined };
}

function requireChannel(loaded: Loaded, channelId: string) {
  if (!loaded.engine.channelIds().includes(channelId)) {
    throw notFound("CHANNEL_NOT_FOUND", `Session ${loaded.session.id} has no channel '${channelId}' (channels: ${loaded.engine.channelIds().join(", ")})`);
  }
}

/**
 * What a channel is doing, as shown: its engine state while the session is live; `paused` for a
 * running channel of a paused session; `stopped` while the session is not running or paused
 * (nothing trades it).
 */
export function effectiveStatus(session: Pick<StoredSession, "status">, state: ChannelRunState | null): ChannelRunState {
  if (session.status !== "running" && session.status !== "paused") return "stopped";
  if (session.status === "paused" && state === "running") return "paused";
  return state ?? "running";
}

function brief(view: EngineView) {
  const trades = view.stats.closed_trades;
  return { total_pnl: r2(view.equity - view.initial_equity), win_rate: trades > 0 ? r6(view.stats.wins / trades) : 0, total_trades: trades };
}

const HALT_MESSAGE = {
  drawdown: "Halted: the channel's max_drawdown limit was breached; new entries are blocked",
  daily_loss: "Halted for the day: the channel's max_daily_loss limit was breached",
} as const;

/** The time each channel last went to running, from the run's status events. */
async function startTimes(deps: ViewDeps, loaded: Loaded): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (!loaded.run) return out;
  for (const event of await allEvents(deps, loaded.run.run_id, "status")) {
    if (event.type === "channel_status" && event.channel_id && event.data.status === "running") out.set(event.channel_id, event.time);
  }
  return out;
}

async function allEvents(deps: ViewDeps, runId: string, category: StoredEvent["category"]): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  let cursor: string | undefined;
  do {
    const page = await deps.runs.events(runId, { category, limit: 500, cursor });
    out.push(...page.items);
    cursor = page.cursor;
  } while (cursor);
  return out;
}

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

function metricsOf(engine: TradingEngine, channelId: string, at: number): ChannelMetrics {
  const view = engine.view(channelId);
  const used = view.positions.reduce((sum, p) => sum + Math.abs(p.market_value), 0);
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

function riskReportOf(engine: TradingEngine, channelId: string, at: number): ChannelRiskReport {
  const view = engine.view(channelId);
  const limits = engine.setup.channels.find((c) => c.channel_id === channelId)!.limits;
  const dailyLoss = view.day_start_equity > 0 ? Math.max(0, -view.daily_pnl / view.day_start_equity) : 0;
  const gross = view.positions.reduce((sum, p) => sum + Math.abs(p.market_value), 0);
  const leverage = view.equity > 0 ? gross / view.equity : 0;
  const usage = {
    drawdown_usage: r6(view.current_drawdown / limits.max_drawdown),
    daily_loss_usage: r6(dailyLoss / limits.max_daily_loss),
    leverage_usage: r6(leverage / limits.leverage_limit),
  };
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

/** The channels of a session. */
export async function listChannels(deps: ViewDeps, actor: Actor, sessionId: string) {
  const loaded = await load(deps, actor, sessionId);
  const started = await startTimes(deps, loaded);
  const channels = loaded.engine.channelIds().map((id) => statusOf(loaded, id, started));
  return { session_id: sessionId, channels, total_channels: channels.length, running_channels: channels.filter((c) => c.status === "running").length };
}

/** One channel. */
export async function getChannel(deps: ViewDeps, actor: Actor, sessionId: string, channelId: string): Promise<ChannelStatus> {
  const loaded = await load(deps, actor, sessionId);
  requireChannel(loaded, channelId);
  return statusOf(loaded, channelId, await startTimes(deps, loaded));
}

/** A channel's figures at the latest snapshot. */
export async function channelMetrics(deps: ViewDeps, actor: Actor, sessionId: string, channelId: string): Promise<ChannelMetrics> {
  const loaded = await load(deps, actor, sessionId);
  requireChannel(loaded, channelId);
  return metricsOf(loaded.engine, channelId, deps.now());
}

/** Every channel's figures. */
export async function sessionMetrics(deps: ViewDeps, actor: Actor, sessionId: string) {
  const loaded = await load(deps, actor, sessionId);
  const at = deps.now();
  return { session_id: sessionId, timestamp: iso(at), channels: loaded.engine.channelIds().map((id) => metricsOf(loaded.engine, id, at)) };
}

/** The session's totals over its channels. */
export async function summary(deps: ChannelDeps, actor: Actor, sessionId: string) {
  const loaded = await load(deps, actor, sessionId);
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
    capital_used: r2(whole.positions.reduce((sum, p) => sum + Math.abs(p.market_value), 0)),
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
  let cursor: string | undefined;
  do {
    const page = await deps.runs.orders(runId, { limit: 500, cursor, status: "filled" });
    count += page.items.length;
    cursor = page.cursor;
  } while (cursor);
  return count;
}

/** Each channel's share of the session's P&L, allocation, return on its capital and Sharpe ratio. */
export async function breakdown(deps: ViewDeps, actor: Actor, sessionId: string) {
  const loaded = await load(deps, actor, sessionId);
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
  const loaded = await load(deps, actor, sessionId);
  requireChannel(loaded, channelId);
  return riskReportOf(loaded.engine, channelId, deps.now());
}

/** Every channel's drawdown, halt and warnings. */
export async function riskReports(deps: ViewDeps, actor: Actor, sessionId: string) {
  const loaded = await load(deps, actor, sessionId);
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
  const loaded = await load(deps, actor, sessionId);
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
  const loaded = await load(deps, actor, sessionId);
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

// ---- alerts -------------------------------------------------------------------------------------

const alertId = (sequence: number) => `alert-${sequence}`;
const alertSequence = (id: string) => (/^alert-(\d{1,12})$/.exec(id) ? Number(id.slice(6)) : NaN);

/** Alerts of a run with their acknowledgements, oldest first. */
async function alertsOf(deps: ViewDeps, runId: string): Promise<Alert[]> {
  const events = await allEvents(deps, runId, "risk");
  const acks = new Map<number, StoredEvent>();
  for (const event of events)
    if (event.type === "alert_acknowledged" && !acks.has(Number(event.data.alert_sequence))) acks.set(Number(event.data.alert_sequence), event);
  return events
    .filter((event) => event.type === "alert")
    .map((event) => {
      const ack = acks.get(event.sequence);
      return {
        alert_id: alertId(event.sequence),
        channel_id: event.channel_id,
        level: AlertLevel.catch("info").parse(event.data.level),
        type: AlertType.catch("system").parse(event.data.type),
        message: String(event.data.message ?? ""),
        timestamp: iso(event.time),
        acknowledged: ack !== undefined,
        acknowledged_at: ack ? iso(ack.time) : null,
        acknowledged_by: ack ? String(ack.data.acknowledged_by) : null,
      };
    });
}

/** The session's alerts, newest first, filtered by level, type, acknowledgement and channel. */
export async function listAlerts(deps: ViewDeps, actor: Actor, sessionId: string, input: unknown) {
  const query = parseOrThrow(AlertQuery, input, ["query"]);
  const session = await channelSession(deps, actor, sessionId);
  const all = session.run_id ? await alertsOf(deps, session.run_id) : [];
  const matching = all
    .filter((a) => (query.level === undefined || a.level === query.level) && (query.type === undefined || a.type === query.type))
    .filter(
      (a) =>
        (query.acknowledged === undefined || a.acknowledged === query.acknowledged) && (query.channel_id === undefined || a.channel_id === query.channel_id),
    )
    .reverse();
  return { alerts: matching.slice(0, query.limit), total: matching.length, unacknowledged: matching.filter((a) => !a.acknowledged).length };
}

/** Counts of the session's alerts. */
export async function alertSummary(deps: ViewDeps, actor: Actor, sessionId: string) {
  const session = await channelSession(deps, actor, sessionId);
  const all = session.run_id ? await alertsOf(deps, session.run_id) : [];
  const count = (pick: (a: Alert) => boolean) => all.filter(pick).length;
  const dayAgo = deps.now() - 24 * 3_600_000;
  return {
    session_id: sessionId,
    total_alerts: all.length,
    unacknowledged_alerts: count((a) => !a.acknowledged),
    alerts_by_level: { critical: count((a) => a.level === "critical"), warning: count((a) => a.level === "warning"), info: count((a) => a.level === "info") },
    alerts_by_type: {
      risk_limit: count((a) => a.type === "risk_limit"),
      performance: count((a) => a.type === "performance"),
      system: count((a) => a.type === "system"),
    },
    recent_critical_alerts_24h: count((a) => a.level === "critical" && Date.parse(a.timestamp) >= dayAgo),
  };
}

/** Marks an alert acknowledged by `by` now (an `alert_acknowledged` event); acknowledging again answers the first acknowledgement. */
export async function acknowledgeAlert(deps: ChannelDeps, actor: Actor, by: string, sessionId: string, id: string) {
  const session = await channelSession(deps, actor, sessionId);
  const sequence = alertSequence(id);
  const alerts = session.run_id && Number.isFinite(sequence) ? await alertsOf(deps, session.run_id) : [];
  const alert = alerts.find((a) => a.alert_id === id);
  if (!alert) throw notFound("ALERT_NOT_FOUND", `Session ${sessionId} has no alert '${id}'`);
  if (alert.acknowledged) {
    return {
      alert_id: id,
      acknowledged: true,
      acknowledged_at: alert.acknowledged_at!,
      acknowledged_by: alert.acknowledged_by!,
      message: `Alert ${id} was already acknowledged`,
    };
  }
  const delivered = await deliver(deps, session.run_id!, [{ kind: "acknowledge_alert", channel_id: alert.channel_id, alert_sequence: sequence, by }]);
  await publishDelivered(deps, session, delivered);
  // The instant stored with it (the run's clock: never before the run's last event), as the alert lists show it.
  const stored = delivered.events.find((event) => event.type === "alert_acknowledged" && Number(event.data.alert_sequence) === sequence);
  return { alert_id: id, acknowledged: true, acknowledged_at: iso(stored?.time ?? deps.now()), acknowledged_by: by, message: `Alert ${id} acknowledged` };
}

// ---- commands -----------------------------------------------------------------------------------

/**
 * A change to a running engine. Each is one engine operation; `deliver` applies a list of them to
 * a run in one conditional write (the path `POST /trading/orders/{id}/cancel` takes), so they can
 * be routed through a session command queue unchanged.
 */
export type ChannelCommand =
  | { kind: "set_channel_state"; channel_id: string; state: ChannelRunState }
  | { kind: "set_channel_limits"; channel_id: string; limits: Risk.Limits }
  | { kind: "acknowledge_alert"; channel_id: string | null; alert_sequence: number; by: string };

/** The setup a command leaves behind (limits live in the setup, which the snapshot does not carry). */
function setupAfter(setup: EngineSetup, command: ChannelCommand): EngineSetup {
  if (command.kind !== "set_channel_limits") return setup;
  return { ...setup, channels: setup.channels.map((c) => (c.channel_id === command.channel_id ? { ...c, limits: command.limits } : c)) };
}

function sameLimits(setup: EngineSetup, channelId: string, limits: Risk.Limits): boolean {
  const current = setup.channels.find((c) => c.channel_id === channelId)?.limits;
  return current !== undefined && (Object.keys(limits) as (keyof Risk.Limits)[]).every((k) => current[k] === limits[k]);
}

/** Applies one command to an engine at `at`. */
export function applyCommand(engine: TradingEngine, command: ChannelCommand, at: number): void {
  switch (command.kind) {
    case "set_channel_state":
      return engine.setChannelState(command.channel_id, command.state, at);
    case "set_channel_limits":
      return engine.setLimits(command.channel_id, command.limits, at);
    case "acknowledge_alert":
      return engine.acknowledgeAlert(command.channel_id, command.alert_sequence, command.by, at);
  }
}

export interface Delivered {
  engine: TradingEngine;
  events: EngineEvent[];
}

/** Applies commands to a run through `updateRun` (one conditional save; 503 `SERVICE_UNAVAILABLE` when the run keeps changing). */
export async function deliver(deps: ViewDeps, runId: string, commands: ChannelCommand[]): Promise<Delivered> {
  const delivered = await updateRun(
    deps,
    runId,
    (run) => {
      // Limits a channel already has are not set again (a reload or rollback names every channel).
      const effective = commands.filter((c) => c.kind !== "set_channel_limits" || !sameLimits(run.setup, c.channel_id, c.limits));
      const setup = effective.reduce(setupAfter, run.setup);
      const engine = engineOf(run, setup);
      const at = deps.now();
      for (const command of effective) applyCommand(engine, command, at);
      return { engine, value: null, setup };
    },
    () => notFound("SESSION_NOT_FOUND", `The run ${runId} does not exist`),
  );
  // The step always saves: only a missing run gives null, and that throws.
  return delivered!;
}

/** Which channel operations are accepted from which state, and the answer otherwise (docs/channels.md). */
export const CHANNEL_TRANSITIONS: Readonly<Record<ChannelAction, { from: readonly ChannelRunState[]; to: ChannelRunState }>> = {
  start: { from: ["stopped"], to: "running" },
  pause: { from: ["running"], to: "paused" },
  resume: { from: ["paused"], to: "running" },
  stop: { from: ["paused"], to: "stopped" },
};

function refuse(sessionId: string, channelId: string, action: ChannelAction, state: ChannelRunState) {
  const current = { channel_id: channelId, current_status: state, action };
  if (state === "running" && (action === "start" || action === "resume")) {
    return badRequest("CHANNEL_ALREADY_RUNNING", `Channel ${channelId} of session ${sessionId} is already running`, current);
  }
  if (state === "running" && action === "stop") {
    return conflict("INVALID_STATE_TRANSITION", `Cannot stop channel ${channelId}: it is running; pause it first, then stop it`, current);
  }
  if (action === "pause" || action === "stop") {
    return badRequest("CHANNEL_NOT_RUNNING", `Channel ${channelId} of session ${sessionId} is ${state}: there is nothing to ${action}`, current);
  }
  return conflict(
    "INVALID_STATE_TRANSITION",
    `Cannot ${action} channel ${channelId}: it is ${state}; ${state === "paused" ? "use resume" : "use start"}`,
    current,
  );
}

/** A live session (simulation or live, running or paused) with its run attached; 409 otherwise. */
async function liveRun(deps: ViewDeps, session: StoredSession, what: string): Promise<string> {
  if (!isWorkerDriven(session)) {
    throw invalidTransition(session, what, `channels of a ${session.trading_mode} session run inside its backtest`);
  }
  if (!isActiveOnWorker(session)) throw invalidTransition(session, what, "start the session first");
  return (await LiveRuns.ensure(deps, session)).run_id;
}

/** Starts, stops, pauses or resumes one channel of a live session (the table in docs/channels.md). */
export async function channelAction(deps: ChannelDeps, actor: Actor, _by: string, sessionId: string, channelId: string, action: ChannelAction) {
  const loaded = await load(deps, actor, sessionId);
  requireChannel(loaded, channelId);
  const runId = await liveRun(deps, loaded.session, `${action} a channel of`);
  const state = loaded.engine.view(channelId).state ?? "running";
  const rule = CHANNEL_TRANSITIONS[action];
  if (!rule.from.includes(state)) throw refuse(sessionId, channelId, action, state);
  // A restart or a resume reloads the channel: a pending configuration version comes into force with it.
  const reload = action === "start" || action === "resume" ? await pendingCommands(deps, loaded.session) : null;
  const commands: ChannelCommand[] = [...(reload?.commands ?? []), { kind: "set_channel_state", channel_id: channelId, state: rule.to }];
  const delivered = await deliver(deps, runId, commands);
  const version = reload ? await activate(deps, actor, loaded.session, reload) : (await currentPointer(deps, loaded.session)).current_version;
  await publishDelivered(deps, loaded.session, delivered);
  const at = iso(deps.now());
  const stamp = { start: { started_at: at }, stop: { stopped_at: at }, pause: { paused_at: at }, resume: { resumed_at: at } }[action];
  const verb = { start: "started", stop: "stopped", pause: "paused (positions kept, no new trades)", resume: "resumed" }[action];
  return { channel_id: channelId, status: rule.to, message: `Channel ${channelId} ${verb}`, ...stamp, current_config_version: version };
}

/** Session-level start, stop, pause and resume (second prefix): the session's state machine, and on start every channel running on the newest configuration. */
export async function sessionAction(deps: ChannelDeps, actor: Actor, sessionId: string, action: SessionAction) {
  const before = await channelSession(deps, actor, sessionId);
  const session = await transition(deps, actor, sessionId, action);
  if (action === "start" && isWorkerDriven(session)) {
    const { run: attached, created } = await LiveRuns.attach(deps, session);
    const runId = attached.run_id;
    // A run made here starts with its warm-up's log lines: the session's socket sees them first.
    if (created) await publish(deps, sessionId, streamMessagesOf(created.engine, session, created.events));
    const reload = await pendingCommands(deps, session);
    const run = (await deps.runs.get(runId))!;
    const engine = engineOf(run);
    const restart: ChannelCommand[] = engine
      .channelIds()
      .filter((id) => engine.view(id).state !== "running")
      .map((id) => ({ kind: "set_channel_state", channel_id: id, state: "running" }));
    const commands = [...(reload?.commands ?? []), ...restart];
    if (commands.length > 0) {
      const delivered = await deliver(deps, runId, commands);
      if (reload) await activate(deps, actor, session, reload);
      await publishDelivered(deps, session, delivered);
    }
  }
  const channels = await listChannels(deps, actor, sessionId);
  await publish(
    deps,
    sessionId,
    channels.channels.map((c) => ({
      type: "channel_update",
      data: { channel_id: c.channel_id, status: c.status, metrics: c.metrics, cause: "status_change" },
    })),
  );
  return {
    session_id: sessionId,
    status: session.status,
    previous_status: before.status,
    message: `Session ${sessionId} ${TRANSITIONS[action].to}`,
    timestamp: iso(deps.now()),
    current_config_version: (await currentPointer(deps, session)).current_version,
    channels: channels.channels,
  };
}

// ---- configuration versions ---------------------------------------------------------------------

/** The pointer, or version 1 (the configuration the session was created with) before any change. */
async function currentPointer(deps: ChannelDeps, session: StoredSession): Promise<ConfigPointer> {
  return (await deps.configs.pointer(session.id)) ?? { session_id: session.id, current_version: 1, pending_version: null, revision: 0 };
}

/** Every version; before the first change, version 1 made from the session's configuration. */
async function versionsOf(deps: ChannelDeps, session: StoredSession): Promise<ConfigVersionRecord[]> {
  const stored = await deps.configs.versions(session.id);
  return stored.length > 0 ? stored : [firstVersion(session)];
}

const firstVersion = (session: StoredSession): ConfigVersionRecord => ({
  session_id: session.id,
  version: 1,
  timestamp: session.created_at,
  changes: Object.fromEntries(session.config.channels.map((c) => [c.channel_id, { created: true }])),
  changed_by: session.user_id,
  channels: session.config.channels,
});

interface Reload {
  pointer: ConfigPointer;
  target: ConfigVersionRecord;
  commands: ChannelCommand[];
}

/** The commands that bring the engine to the pending version (null when nothing is pending). */
async function pendingCommands(deps: ChannelDeps, session: StoredSession): Promise<Reload | null> {
  const pointer = await currentPointer(deps, session);
  if (pointer.pending_version === null) return null;
  const target = (await versionsOf(deps, session)).find((v) => v.version === pointer.pending_version);
  if (!target) return null;
  return { pointer, target, commands: limitCommands(target) };
}

const limitCommands = (target: ConfigVersionRecord): ChannelCommand[] =>
  target.channels.map((c) => ({ kind: "set_channel_limits", channel_id: c.channel_id, limits: c.risk_limits }));

/** Makes a version current: the pointer moves and the session's stored configuration follows. */
async function activate(deps: ChannelDeps, actor: Actor, session: StoredSession, reload: Pick<Reload, "pointer" | "target">): Promise<number> {
  const pointer = { ...reload.pointer, current_version: reload.target.version, pending_version: null, revision: reload.pointer.revision + 1 };
  if (!(await deps.configs.commit(pointer, reload.pointer.revision, []))) {
    throw conflict("CONFIG_CHANGED", `The configuration of session ${session.id} changed meanwhile; read its history and retry`);
  }
  await mutate(deps, actor, session.id, (current) => ({ ...current, config: { ...current.config, channels: reload.target.channels } }));
  return reload.target.version;
}

/**
 * Changes a channel's risk limits: a new configuration version. A live session's engine reloads
 * it at once (it becomes current, `effective_at` now); otherwise it waits as the pending version
 * until the session or the channel starts. Out-of-range values: 400 `INVALID_PARAMETER` naming each.
 */
export async function updateRiskLimits(deps: ChannelDeps, actor: Actor, by: string, sessionId: string, channelId: string, input: unknown) {
  const loaded = await load(deps, actor, sessionId);
  requireChannel(loaded, channelId);
  const session = loaded.session;
  const pointer = await currentPointer(deps, session);
  const versions = await versionsOf(deps, session);
  const base = versions.find((v) => v.version === (pointer.pending_version ?? pointer.current_version)) ?? versions[versions.length - 1]!;
  const before = base.channels.find((c) => c.channel_id === channelId)!.risk_limits;
  const limits = Risk.updateLimits(before, input);
  const changed = Object.fromEntries(
    (Object.keys(limits) as (keyof Risk.Limits)[]).filter((k) => limits[k] !== before[k]).map((k) => [k, { from: before[k], to: limits[k] }]),
  );
  const latest = versions[versions.length - 1]!.version;
  const record: ConfigVersionRecord = {
    session_id: sessionId,
    version: latest + 1,
    timestamp: iso(deps.now()),
    changes: { [channelId]: { risk_limits: changed } },
    changed_by: by,
    channels: base.channels.map((c) => (c.channel_id === channelId ? { ...c, risk_limits: limits } : c)),
  };
  const pending: ConfigPointer = { ...pointer, pending_version: record.version, revision: pointer.revision + 1 };
  const records = pointer.revision === 0 ? [versions[0]!, record] : [record];
  if (!(await deps.configs.commit(pending, pointer.revision, records))) {
    throw conflict("CONFIG_CHANGED", `The configuration of session ${sessionId} changed meanwhile; read its history and retry`);
  }
  if (isWorkerDriven(session) && isActiveOnWorker(session)) {
    const runId = (await LiveRuns.ensure(deps, session)).run_id;
    const delivered = await deliver(deps, runId, limitCommands(record));
    await activate(deps, actor, session, { pointer: pending, target: record });
    await publishDelivered(deps, session, delivered);
    return {
      channel_id: channelId,
      updated_limits: limits,
      effective_at: iso(deps.now()),
      message: `Risk limits of channel ${channelId} are in force (configuration version ${record.version})`,
      config_version: record.version,
      current_config_version: record.version,
      pending_config_version: null,
    };
  }
  return {
    channel_id: channelId,
    updated_limits: limits,
    effective_at: null,
    message: `Risk limits of channel ${channelId} saved as pending configuration version ${record.version}; they come into force when the session or the channel starts`,
    config_version: record.version,
    current_config_version: pointer.current_version,
    pending_config_version: record.version,
  };
}

/** The configuration versions, newest first (optionally only those changing one channel). */
export async function configHistory(deps: ChannelDeps, actor: Actor, sessionId: string, input: unknown) {
  const query = parseOrThrow(ConfigHistoryQuery, input, ["query"]);
  const session = await channelSession(deps, actor, sessionId);
  const pointer = await currentPointer(deps, session);
  const versions = await versionsOf(deps, session);
  const shown = versions.filter((v) => query.channel_id === undefined || query.channel_id in v.changes).reverse();
  return {
    session_id: sessionId,
    current_version: pointer.current_version,
    pending_version: pointer.pending_version,
    history: shown.slice(0, query.limit).map((v) => ({
      version: v.version,
      timestamp: v.timestamp,
      changes: v.changes,
      changed_by: v.changed_by,
      is_current: v.version === pointer.current_version,
      is_pending: v.version === pointer.pending_version,
    })),
    total_versions: versions.length,
  };
}

/**
 * Makes an earlier (or any existing) version current again. Refused with 409 `SESSION_RUNNING`
 * while the session is running or paused, 404 `CONFIG_VERSION_NOT_FOUND` naming the version.
 */
export async function rollback(deps: ChannelDeps, actor: Actor, sessionId: string, input: unknown) {
  const body = parseOrThrow(RollbackBody, input, ["body"]);
  const session = await channelSession(deps, actor, sessionId);
  const versions = await versionsOf(deps, session);
  const target = versions.find((v) => v.version === body.target_version);
  if (!target) {
    throw notFound(
      "CONFIG_VERSION_NOT_FOUND",
      `Configuration version ${body.target_version} of session ${sessionId} does not exist (versions 1 to ${versions.length})`,
    );
  }
  if (session.status === "running" || session.status === "paused") {
    throw conflict("SESSION_RUNNING", `Session ${sessionId} is ${session.status}: stop it before rolling its configuration back`, {
      current_status: session.status,
    });
  }
  const pointer = await currentPointer(deps, session);
  if (pointer.revision === 0 && !(await deps.configs.commit({ ...pointer, revision: 1 }, 0, versions))) {
    throw conflict("CONFIG_CHANGED", `The configuration of session ${sessionId} changed meanwhile; retry`);
  }
  const stored = pointer.revision === 0 ? { ...pointer, revision: 1 } : pointer;
  await activate(deps, actor, session, { pointer: stored, target });
  // The run is idle (the session is not running): its engine takes the version's limits now.
  if (session.run_id && (await deps.runs.get(session.run_id))) await deliver(deps, session.run_id, limitCommands(target));
  return {
    session_id: sessionId,
    previous_version: pointer.current_version,
    current_version: target.version,
    rollback_time: iso(deps.now()),
    message: `Configuration of session ${sessionId} rolled back from version ${pointer.current_version} to ${target.version}`,
  };
}

// ---- the stream ---------------------------------------------------------------------------------

/** `channel_update` data of a channel. */
function channelUpdate(engine: TradingEngine, session: Pick<StoredSession, "status">, channelId: string, cause: "status_change" | "fill", sequence: number) {
  const view = engine.view(channelId);
  return { channel_id: channelId, status: effectiveStatus(session, view.state), metrics: brief(view), cause, sequence };
}

/**
 * What a batch of engine events puts on the session's socket: each event as `{type, data}`, and
 * after every channel status change and every fill a `channel_update` with the channel's figures
 * as of the end of the batch.
 */
export function streamMessagesOf(engine: TradingEngine, session: Pick<StoredSession, "status">, events: readonly EngineEvent[]) {
  const out: { type: string; data: Record<string, unknown> }[] = [];
  for (const event of events) {
    out.push({ type: event.type, data: { ...event.data, channel_id: event.channel_id, sequence: event.sequence, event_time: iso(event.time) } });
    if (event.channel_id && (event.type === "channel_status" || event.type === "order_filled")) {
      out.push({
        type: "channel_update",
        data: channelUpdate(engine, session, event.channel_id, event.type === "order_filled" ? "fill" : "status_change", event.sequence),
      });
    }
  }
  return out;
}

/** `channel_metrics` of every channel (the worker publishes them periodically). */
export function metricsMessagesOf(engine: TradingEngine, at: number) {
  return engine.channelIds().map((id) => ({ type: "channel_metrics", data: { ...metricsOf(engine, id, at) } as Record<string, unknown> }));
}

export interface StreamDeps {
  feed: UpdateFeed;
  realtime: RealtimeDeps;
  now: () => number;
}

/** Stores messages in the session's feed, then pushes the stored records to its socket: what `/updates` returns is exactly what was pushed. */
export async function publish(deps: StreamDeps, sessionId: string, messages: { type: string; data: Record<string, unknown> }[]): Promise<StreamRecord[]> {
  if (messages.length === 0) return [];
  const records = await deps.feed.append(sessionId, messages, deps.now());
  await Realtime.publishMany(deps.realtime, `session:${sessionId}`, records);
  return records;
}

async function publishDelivered(deps: ChannelDeps, session: StoredSession, delivered: Delivered) {
  await publish(deps, session.id, streamMessagesOf(delivered.engine, session, delivered.events));
}

/**
 * The records pushed on the session's socket after `since` (a reconnecting client's last seen
 * timestamp). Every session has a stream (a backtest session's carries `backtest_progress`), so
 * this needs no channels.
 */
export async function updates(deps: ChannelDeps, actor: Actor, sessionId: string, input: unknown) {
  const query = parseOrThrow(UpdatesQuery, input, ["query"]);
  await owned(deps, actor, sessionId);
  const since = query.since !== undefined ? Date.parse(query.since) : null;
  const records = await deps.feed.since(sessionId, since, query.limit + 1);
  const page = records.slice(0, query.limit);
  return {
    session_id: sessionId,
    updates: page,
    count: page.length,
    last_timestamp: page.length > 0 ? page[page.length - 1]!.timestamp : since !== null ? iso(since) : null,
    has_more: records.length > query.limit,
  };
}
