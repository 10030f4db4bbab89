import { z } from "zod";
import * as Risk from "../../risk/risk";
import { RiskUtilization } from "../session/figures";

/** The request and response schemas of the channel routes (docs/channels.md). */

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

export const ChannelRiskReport = z
  .object({
    channel_id: z.string(),
    timestamp: z.string(),
    daily_pnl: Num,
    current_drawdown: Num,
    trades_count: z.int(),
    risk_utilization: RiskUtilization,
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
