import { z } from "zod";
import { parseOrThrow } from "../../errors";
import type { TradingEngine } from "../../engine/engine";
import type { EngineSetup } from "../../engine/setup";
import * as Risk from "../../risk/risk";
import { iso } from "../../util/time";
import type { Actor } from "../../users";
import { notifyWorker } from "../worker/commands";
import type { ViewDeps } from "./deps";
import { engineOf, updateRun } from "../run/update";
import { sessionEngine } from "./engine";
import { asOf, cents, r6, RiskUtilization, riskUtilization } from "./figures";
import { eventPage, PageQuery } from "./reads";
import { isActiveOnWorker, mutate, owned, parseRiskConfig, type StoredSession } from "./sessions";

/**
 * A session's risk (docs/risk-and-presets.md): what it reads (the risk summary, risk events,
 * recommendations) and what it writes (a daily reset, a new risk configuration) on the session's run.
 */

export const RiskSummary = z
  .object({
    session_id: z.string(),
    as_of: z.string().nullable(),
    risk_config: Risk.Config,
    equity: z.string(),
    peak_equity: z.string(),
    current_drawdown: z.number(),
    max_drawdown: z.number(),
    daily_pnl: z.string(),
    channels: z.array(
      z.object({
        channel_id: z.string(),
        limits: Risk.Limits,
        equity: z.string(),
        current_drawdown: z.number(),
        daily_pnl: z.string(),
        trades_today: z.int(),
        is_halted: z.boolean(),
        halt_reason: z.string().nullable(),
        risk_utilization: RiskUtilization,
        open_positions: z.int(),
      }),
    ),
  })
  .meta({ id: "SessionRiskSummary" });
export type RiskSummary = z.infer<typeof RiskSummary>;

export const Recommendation = z.object({
  code: z.string(),
  severity: z.enum(["info", "warning", "critical"]),
  channel_id: z.string().nullable(),
  message: z.string(),
  reason: z.string(),
});

export const Recommendations = z
  .object({ session_id: z.string(), recommendations: z.array(Recommendation), count: z.int() })
  .meta({ id: "SessionRiskRecommendations" });

export const ResetDailyResult = z
  .object({ success: z.boolean(), message: z.string(), session_id: z.string(), reset_at: z.string() })
  .meta({ id: "RiskResetDailyResult" });

export const RiskConfigUpdateResult = z
  .object({
    success: z.boolean(),
    session_id: z.string(),
    risk_config: Risk.Config,
    warnings: z.array(z.object({ code: z.string(), field: z.string(), message: z.string() })),
  })
  .meta({ id: "SessionRiskConfigResult" });

/** Risk state of the session and each channel: drawdowns, daily P&L, halts and how much of each limit is used. */
export async function riskSummary(deps: ViewDeps, actor: Actor, id: string): Promise<RiskSummary> {
  const session = await owned(deps, actor, id);
  const { engine, run } = await sessionEngine(deps, session);
  const whole = engine.view(null);
  return {
    session_id: id,
    as_of: asOf(run),
    // What the session's run applies (a backtest's may be its own), else the session's.
    risk_config: engine.setup.risk ?? session.config.risk_config,
    equity: cents(whole.equity),
    peak_equity: cents(whole.peak),
    current_drawdown: r6(whole.current_drawdown),
    max_drawdown: r6(whole.max_drawdown),
    daily_pnl: cents(whole.daily_pnl),
    channels: engine.setup.channels.map((channel) => {
      const view = engine.view(channel.channel_id);
      return {
        channel_id: channel.channel_id,
        limits: channel.limits,
        equity: cents(view.equity),
        current_drawdown: r6(view.current_drawdown),
        daily_pnl: cents(view.daily_pnl),
        trades_today: view.daily_trades,
        is_halted: view.halt !== null,
        halt_reason: view.halt,
        risk_utilization: riskUtilization(view, channel.limits),
        open_positions: new Set(view.positions.map((p) => p.symbol)).size,
      };
    }),
  };
}

/** Risk events, alerts and denied orders, oldest first. */
export async function riskEvents(deps: ViewDeps, actor: Actor, id: string, input: unknown) {
  const query = parseOrThrow(PageQuery, input, ["query"]);
  return eventPage(deps, await owned(deps, actor, id), { ...query, category: "risk" });
}

/** Advice derived from the risk state, each with the numbers that led to it. */
export async function recommendations(deps: ViewDeps, actor: Actor, id: string) {
  const summary = await riskSummary(deps, actor, id);
  const out: z.infer<typeof Recommendation>[] = [];
  const pct = (value: number) => `${(value * 100).toFixed(1)}%`;
  for (const channel of summary.channels) {
    const u = channel.risk_utilization;
    if (channel.is_halted) {
      out.push({
        code: channel.halt_reason === "drawdown" ? "REVIEW_HALTED_CHANNEL" : "WAIT_FOR_NEXT_DAY",
        severity: "critical",
        channel_id: channel.channel_id,
        message:
          channel.halt_reason === "drawdown"
            ? "Review the channel's strategies before raising its drawdown limit or restarting it"
            : "New entries resume on the next trading day, or after reset-daily",
        reason: `channel ${channel.channel_id} is halted by its ${channel.halt_reason === "drawdown" ? "drawdown" : "daily loss"} limit`,
      });
    } else if (u.drawdown_usage >= 0.8) {
      out.push({
        code: "REDUCE_EXPOSURE",
        severity: "warning",
        channel_id: channel.channel_id,
        message: "Reduce position sizes: the channel is close to its drawdown limit",
        reason: `drawdown ${pct(channel.current_drawdown)} uses ${pct(u.drawdown_usage)} of max_drawdown ${pct(channel.limits.max_drawdown)}`,
      });
    }
    if (!channel.is_halted && u.daily_loss_usage >= 0.8) {
      out.push({
        code: "PAUSE_FOR_THE_DAY",
        severity: "warning",
        channel_id: channel.channel_id,
        message: "Consider pausing the channel until tomorrow",
        reason: `today's loss uses ${pct(u.daily_loss_usage)} of max_daily_loss ${pct(channel.limits.max_daily_loss)}`,
      });
    }
    if (u.leverage_usage >= 0.9) {
      out.push({
        code: "DELEVERAGE",
        severity: "warning",
        channel_id: channel.channel_id,
        message: "Gross exposure is near the leverage limit; new entries may be denied",
        reason: `leverage uses ${pct(u.leverage_usage)} of leverage_limit ${channel.limits.leverage_limit}`,
      });
    }
  }
  const risk = summary.risk_config;
  if (risk.max_drawdown > 0.3) {
    out.push({
      code: "TIGHTEN_MAX_DRAWDOWN",
      severity: "info",
      channel_id: null,
      message: "A session-wide max_drawdown above 30% rarely protects capital in time",
      reason: `max_drawdown is ${pct(risk.max_drawdown)}`,
    });
  }
  if (risk.trailing_stop_pct === null && risk.allow_short) {
    out.push({
      code: "ADD_TRAILING_STOP",
      severity: "info",
      channel_id: null,
      message: "Short positions without a trailing stop can lose without bound",
      reason: "allow_short is true and trailing_stop_pct is null",
    });
  }
  if (out.length === 0) {
    out.push({
      code: "WITHIN_LIMITS",
      severity: "info",
      channel_id: null,
      message: "Every channel is within its limits",
      reason: "no limit is more than 80% used",
    });
  }
  return { session_id: id, recommendations: out, count: out.length };
}

/** Applies a command to the session's stored run (a reset, a risk change); nothing when it has not run yet. A live session's worker pushes the events. */
async function applyToRun(
  deps: ViewDeps,
  session: StoredSession,
  action: string,
  apply: (engine: TradingEngine, at: number) => void,
  setup?: (setup: EngineSetup) => EngineSetup,
) {
  if (!session.run_id) return;
  const done = await updateRun(deps, session.run_id, (run) => {
    const nextSetup = setup ? setup(run.setup) : run.setup;
    const engine = engineOf(run, nextSetup);
    apply(engine, deps.now());
    return { engine, value: null, setup: nextSetup };
  });
  if (done && isActiveOnWorker(session)) await notifyWorker(deps, session.id, "input", action, done.events);
}

/** Restarts the daily risk counters (trades today, the day's loss anchor, daily-loss halts). */
export async function resetDaily(deps: ViewDeps, actor: Actor, id: string) {
  const session = await owned(deps, actor, id);
  await applyToRun(deps, session, "reset_daily", (engine, at) => engine.resetDaily(at));
  return { success: true, message: `Daily risk counters of session ${id} reset`, session_id: id, reset_at: iso(deps.now()) };
}

/** Replaces the session's risk configuration (validated like /risk/validate); the engine uses it from now on. */
export async function updateRiskConfig(deps: ViewDeps, actor: Actor, id: string, input: unknown) {
  const body = parseOrThrow(z.object({ config: z.record(z.string(), z.unknown()) }).or(z.record(z.string(), z.unknown())), input, ["body"]);
  const given = "config" in body && typeof body.config === "object" && body.config !== null ? (body.config as Record<string, unknown>) : body;
  const risk = parseRiskConfig(given, ["body", "config"]);
  const session = await mutate(deps, actor, id, (current) => ({ ...current, config: { ...current.config, risk_config: risk } }));
  await applyToRun(
    deps,
    session,
    "risk_config",
    () => undefined,
    (setup) => (setup.risk === null ? setup : { ...setup, risk }),
  );
  return { success: true, session_id: id, risk_config: risk, warnings: Risk.warningsFor(risk) };
}
