import { z } from "zod";
import { badRequest, conflict, notFound, ValidationError, parseOrThrow } from "../errors";
import { TradingEngine, type EngineView } from "../engine/engine";
import { LogLevel } from "../engine/events";
import { performance, PerformanceMetrics } from "../engine/metrics";
import type { EngineSetup } from "../engine/setup";
import { Dec, DecimalInput } from "../fees/money";
import { normalizeSymbol } from "../market/market";
import * as Risk from "../risk/risk";
import type { Actor } from "../users";
import { messageOf, OrderStatus, type StoredEvent, type StoredRun, TradingOrderResponse } from "./runs";
import { SINGLE_CHANNEL_ID } from "./session-config";
import { isActiveOnWorker, isWorkerDriven, mutate, owned, parseRiskConfig, type StoredSession } from "./sessions";
import { notifyWorker } from "./commands";
import { liveFeedsOf, LiveRuns } from "./live";
import type { ViewDeps } from "./deps";
import { workerStatus } from "./worker-status";
import { engineOf, orderOf, updateRun } from "./run-update";
import { iso } from "../time";

/**
 * The session views: every one reads the session's run (its event log, its order records and
 * its latest engine snapshot), for every trading mode. A session that has not run yet shows
 * its configuration at its starting capital.
 */

/** `limit` and an opaque `cursor` from the previous page. */
export const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(100),
  cursor: z.string().max(2048).optional(),
});

export const LogQuery = PageQuery.extend({ level: LogLevel.optional() });
export const OrderQuery = PageQuery.extend({ status: OrderStatus.optional() });

const EventEntry = z.object({
  sequence: z.int(),
  timestamp: z.string(),
  type: z.string(),
  channel_id: z.string().nullable(),
  level: LogLevel,
  message: z.string(),
  data: z.record(z.string(), z.unknown()),
});

export const EventPage = z
  .object({ session_id: z.string(), run_id: z.string().nullable(), items: z.array(EventEntry), count: z.int(), next_cursor: z.string().nullable() })
  .meta({ id: "SessionEventPage" });
export type EventPage = z.infer<typeof EventPage>;

export const OrderPage = z
  .object({ session_id: z.string(), run_id: z.string().nullable(), orders: z.array(TradingOrderResponse), count: z.int(), next_cursor: z.string().nullable() })
  .meta({ id: "SessionOrderPage" });

const PositionEntry = z.object({
  channel_id: z.string(),
  symbol: z.string(),
  quantity: z.string(),
  average_price: z.string(),
  cost_basis: z.string(),
  last_price: z.string(),
  market_value: z.string(),
  unrealized_pnl: z.string(),
  currency: z.string(),
  opened_at: z.string().nullable(),
});

export const LatestPositions = z
  .object({ session_id: z.string(), as_of: z.string().nullable(), positions: z.array(PositionEntry), cash: z.record(z.string(), z.string()) })
  .meta({ id: "SessionLatestPositions" });

export const SessionPerformance = z
  .object({ session_id: z.string(), as_of: z.string().nullable(), session: PerformanceMetrics, channels: z.record(z.string(), PerformanceMetrics) })
  .meta({ id: "SessionPerformance" });

export const WorkerStatusView = z
  .object({
    alive: z.boolean().describe("It wrote a heartbeat within the last 30 s"),
    last_heartbeat: z.string().nullable(),
    sessions: z.int(),
    feeds: z.array(z.string()),
    last_bar_at: z.string().nullable().describe("Close time of the last bar it fed this session"),
  })
  .meta({ id: "WorkerStatus" });

export const EngineStatus = z
  .object({
    session_id: z.string(),
    session_status: z.string(),
    run_id: z.string().nullable(),
    engine_state: z.enum(["not_started", "running", "paused", "stopped", "completed", "failed"]),
    clock: z.string().nullable(),
    last_sequence: z.int(),
    pending_orders: z.int(),
    channels: z.array(z.object({ channel_id: z.string(), state: z.string(), halted: z.boolean(), halt_reason: z.string().nullable() })),
    updated_at: z.string().nullable(),
    worker: WorkerStatusView.nullable().describe("Simulation and live sessions: the session worker driving them (null for backtest sessions)"),
  })
  .meta({ id: "SessionEngineStatus" });

const Utilization = z.object({ drawdown_usage: z.number(), daily_loss_usage: z.number(), leverage_usage: z.number() });

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
        risk_utilization: Utilization,
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

/** Body of POST /trading/orders/validate: an order for a session (and channel), checked without placing it. */
export const OrderCheckRequest = z
  .object({
    session_id: z.string().min(1).max(128),
    channel_id: z.string().min(1).max(64).optional(),
    symbol: z.string().min(1).max(32),
    side: z.enum(["buy", "sell"]),
    order_type: z.enum(["market", "limit", "stop"]).default("market"),
    quantity: DecimalInput,
    price: DecimalInput.nullish(),
  })
  .meta({ id: "TradingOrderValidateRequest" });

export const OrderCheckResult = z
  .object({
    valid: z.boolean(),
    session_id: z.string(),
    channel_id: z.string(),
    symbol: z.string(),
    reference_price: z.string().nullable(),
    denials: z.array(z.object({ reason: z.string(), message: z.string(), values: z.record(z.string(), z.union([z.number(), z.string()])) })),
  })
  .meta({ id: "TradingOrderValidateResponse" });

export const RiskConfigUpdateResult = z
  .object({
    success: z.boolean(),
    session_id: z.string(),
    risk_config: Risk.Config,
    warnings: z.array(z.object({ code: z.string(), field: z.string(), message: z.string() })),
  })
  .meta({ id: "SessionRiskConfigResult" });

const cents = (value: number) => new Dec(Number.isFinite(value) ? value : 0).toFixed(2);
const priceText = (value: number) => new Dec(value).toString();

/** The engine as of the session's latest snapshot (or fresh at its starting capital) and its run. */
async function sessionEngine(deps: ViewDeps, session: StoredSession): Promise<{ engine: TradingEngine; run: StoredRun | undefined }> {
  const run = session.run_id ? await deps.runs.get(session.run_id) : undefined;
  if (run) return { engine: engineOf(run), run };
  return { engine: new TradingEngine(await deps.setupFor(session, session.id)), run: undefined };
}

const eventEntry = (event: StoredEvent) => ({
  sequence: event.sequence,
  timestamp: iso(event.time),
  type: event.type,
  channel_id: event.channel_id,
  level: event.level,
  message: messageOf(event),
  data: event.data,
});

export async function eventPage(
  deps: ViewDeps,
  session: StoredSession,
  query: { limit: number; cursor?: string; level?: LogLevel; category?: StoredEvent["category"] },
): Promise<EventPage> {
  if (!session.run_id) return { session_id: session.id, run_id: null, items: [], count: 0, next_cursor: null };
  const page = await deps.runs.events(session.run_id, query);
  return { session_id: session.id, run_id: session.run_id, items: page.items.map(eventEntry), count: page.items.length, next_cursor: page.cursor ?? null };
}

/** The session's orders in the order they were placed (denied ones included, with their reasons). */
export async function orders(deps: ViewDeps, actor: Actor, id: string, input: unknown) {
  const query = parseOrThrow(OrderQuery, input, ["query"]);
  const session = await owned(deps, actor, id);
  if (!session.run_id) return { session_id: id, run_id: null, orders: [], count: 0, next_cursor: null };
  const page = await deps.runs.orders(session.run_id, query);
  return { session_id: id, run_id: session.run_id, orders: page.items, count: page.items.length, next_cursor: page.cursor ?? null };
}

/** Position changes, oldest first. */
export async function positionHistory(deps: ViewDeps, actor: Actor, id: string, input: unknown) {
  const query = parseOrThrow(PageQuery, input, ["query"]);
  return eventPage(deps, await owned(deps, actor, id), { ...query, category: "position" });
}

/** Open positions at the latest snapshot, marked at the last price seen. */
export async function latestPositions(deps: ViewDeps, actor: Actor, id: string) {
  const session = await owned(deps, actor, id);
  const { engine, run } = await sessionEngine(deps, session);
  const view = engine.view(null);
  return {
    session_id: id,
    as_of: run?.snapshot ? iso(run.snapshot.time) : null,
    cash: view.cash,
    positions: view.positions.map((p) => ({
      channel_id: p.channel_id,
      symbol: p.symbol,
      quantity: String(p.quantity),
      average_price: priceText(p.entry_price),
      cost_basis: new Dec(p.cost).toFixed(2),
      last_price: priceText(p.last_price),
      market_value: cents(p.market_value),
      unrealized_pnl: cents(p.unrealized_pnl),
      currency: p.currency,
      opened_at: p.opened_at ? iso(p.opened_at) : null,
    })),
  };
}

/** The session's log: every event as a line, optionally of one level. */
export async function logs(deps: ViewDeps, actor: Actor, id: string, input: unknown) {
  const query = parseOrThrow(LogQuery, input, ["query"]);
  return eventPage(deps, await owned(deps, actor, id), query);
}

/** Performance of the session and of each channel (docs/trading-engine.md has the formulas). */
export async function sessionPerformance(deps: ViewDeps, actor: Actor, id: string) {
  const session = await owned(deps, actor, id);
  const { engine, run } = await sessionEngine(deps, session);
  const days = engine.setup.trading_days_per_year;
  return {
    session_id: id,
    as_of: run?.snapshot ? iso(run.snapshot.time) : null,
    session: performance(engine.view(null), days),
    channels: Object.fromEntries(engine.channelIds().map((channelId) => [channelId, performance(engine.view(channelId), days)])),
  };
}

const ENGINE_STATE: Record<StoredSession["status"], z.infer<typeof EngineStatus>["engine_state"]> = {
  created: "not_started",
  running: "running",
  paused: "paused",
  stopped: "stopped",
  completed: "completed",
  failed: "failed",
};

/** What the engine of the session is doing and where its clock is. */
export async function engineStatus(deps: ViewDeps, actor: Actor, id: string) {
  const session = await owned(deps, actor, id);
  const { engine, run } = await sessionEngine(deps, session);
  const whole = engine.view(null);
  return {
    session_id: id,
    session_status: session.status,
    run_id: session.run_id,
    engine_state: ENGINE_STATE[session.status],
    clock: run?.snapshot && run.snapshot.time > 0 ? iso(run.snapshot.time) : null,
    last_sequence: run?.snapshot?.sequence ?? 0,
    pending_orders: whole.pending_orders.length,
    channels: engine.channelIds().map((channelId) => {
      const view = engine.view(channelId);
      return { channel_id: channelId, state: view.state ?? "running", halted: view.halt !== null, halt_reason: view.halt };
    }),
    updated_at: run?.updated_at ?? null,
    worker: isWorkerDriven(session) ? workerStatus(await deps.workerBeat(), deps.now(), session.id) : null,
  };
}

function utilization(view: EngineView, limits: Risk.Limits) {
  const dailyLoss = view.day_start_equity > 0 ? Math.max(0, -view.daily_pnl / view.day_start_equity) : 0;
  const gross = view.positions.reduce((sum, p) => sum + Math.abs(p.market_value), 0);
  const leverage = view.equity > 0 ? gross / view.equity : 0;
  const r = (value: number) => Math.round(value * 1e6) / 1e6;
  return {
    drawdown_usage: r(view.current_drawdown / limits.max_drawdown),
    daily_loss_usage: r(dailyLoss / limits.max_daily_loss),
    leverage_usage: r(leverage / limits.leverage_limit),
  };
}

/** Risk state of the session and each channel: drawdowns, daily P&L, halts and how much of each limit is used. */
export async function riskSummary(deps: ViewDeps, actor: Actor, id: string): Promise<RiskSummary> {
  const session = await owned(deps, actor, id);
  const { engine, run } = await sessionEngine(deps, session);
  const whole = engine.view(null);
  return {
    session_id: id,
    as_of: run?.snapshot ? iso(run.snapshot.time) : null,
    // What the session's run applies (a backtest's may be its own), else the session's.
    risk_config: engine.setup.risk ?? session.config.risk_config,
    equity: cents(whole.equity),
    peak_equity: cents(whole.peak),
    current_drawdown: Math.round(whole.current_drawdown * 1e6) / 1e6,
    max_drawdown: Math.round(whole.max_drawdown * 1e6) / 1e6,
    daily_pnl: cents(whole.daily_pnl),
    channels: engine.setup.channels.map((channel) => {
      const view = engine.view(channel.channel_id);
      return {
        channel_id: channel.channel_id,
        limits: channel.limits,
        equity: cents(view.equity),
        current_drawdown: Math.round(view.current_drawdown * 1e6) / 1e6,
        daily_pnl: cents(view.daily_pnl),
        trades_today: view.daily_trades,
        is_halted: view.halt !== null,
        halt_reason: view.halt,
        risk_utilization: utilization(view, channel.limits),
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

/** Runs the pre-trade checks of a session's channel on an order without placing it; every denial is listed. */
export async function checkOrder(deps: ViewDeps, actor: Actor, input: unknown) {
  const body = parseOrThrow(OrderCheckRequest, input, ["body"]);
  const session = await owned(deps, actor, body.session_id);
  const symbol = normalizeSymbol(body.symbol);
  const { engine } = await sessionEngine(deps, session);
  const channelId = body.channel_id ?? engine.channelIds()[0] ?? SINGLE_CHANNEL_ID;
  if (!engine.channelIds().includes(channelId)) {
    throw notFound(
      "CHANNEL_NOT_FOUND",
      `Session ${session.id} has no channel '${channelId}'${engine.channelIds().length === 0 ? " (it has no channels)" : ""}`,
    );
  }
  const given = body.price ? Number(body.price) : null;
  const price = given ?? (await deps.lastPrice(symbol));
  const denials = engine.check({
    channel_id: channelId,
    symbol,
    side: body.side,
    quantity: Number(body.quantity),
    order_type: body.order_type,
    price,
  });
  return {
    valid: denials.length === 0,
    session_id: session.id,
    channel_id: channelId,
    symbol,
    reference_price: price === null ? null : priceText(price),
    denials,
  };
}

/**
 * A manual order into a running simulation or live session (`POST /trading/orders`): the run is
 * restored from its snapshot, the order goes through the channel's pre-trade checks and is saved
 * with its events, conditionally on the run's version, so it serialises with the session worker's
 * bar feeds. It fills on the session's next bar that opens after it (no look-ahead). A denied order
 * is answered as data: status `denied` with every reason.
 */
export async function placeOrder(deps: ViewDeps, actor: Actor, input: unknown): Promise<TradingOrderResponse> {
  const body = parseOrThrow(OrderCheckRequest, input, ["body"]);
  const session = await owned(deps, actor, body.session_id);
  if (!isWorkerDriven(session)) {
    throw conflict("SESSION_NOT_TRADING", `Session ${session.id} is a ${session.trading_mode} session: its orders come from its backtest`, {
      trading_mode: session.trading_mode,
    });
  }
  if (session.status !== "running") {
    throw conflict("SESSION_NOT_RUNNING", `Session ${session.id} is ${session.status}: start or resume it before placing orders`, {
      current_status: session.status,
    });
  }
  const symbol = normalizeSymbol(body.symbol);
  if (!liveFeedsOf(session).some((feed) => feed.symbol === symbol)) {
    throw badRequest(
      "SYMBOL_NOT_IN_SESSION",
      `Session ${session.id} has no bars of ${symbol}: orders fill on the session's own feeds (${
        liveFeedsOf(session)
          .map((f) => f.symbol)
          .join(", ") || "none"
      })`,
    );
  }
  const runId = session.run_id === session.id ? session.id : (await LiveRuns.ensure(deps, session)).run_id;
  const placed = await updateRun(deps, runId, (run) => {
    const engine = engineOf(run);
    const channelId = body.channel_id ?? engine.channelIds()[0] ?? SINGLE_CHANNEL_ID;
    if (!engine.channelIds().includes(channelId)) throw notFound("CHANNEL_NOT_FOUND", `Session ${session.id} has no channel '${channelId}'`);
    const { order } = engine.submit(
      {
        channel_id: channelId,
        symbol,
        side: body.side,
        quantity: Number(body.quantity),
        order_type: body.order_type,
        price: body.price ? Number(body.price) : null,
        reason: "manual order",
      },
      deps.now(),
    );
    return { engine, value: order };
  });
  await notifyWorker(deps, session.id, "input", "order", placed!.events);
  const denied = placed!.events.find((event) => event.type === "order_denied");
  const id = placed!.value ? placed!.value.order_id : `${runId}-d${denied!.sequence}`;
  return orderOf(placed!, id) ?? (await deps.runs.order(id))!;
}

/** A pending order of a simulation or live session the caller owns, and that session (409 `SESSION_NOT_TRADING` for a backtest's). */
async function tradableOrder(deps: ViewDeps, actor: Actor, orderId: string) {
  const found = await order(deps, actor, orderId);
  const session = await owned(deps, actor, found.session_id);
  if (!isWorkerDriven(session)) {
    throw conflict("SESSION_NOT_TRADING", `Order ${orderId} belongs to a ${session.trading_mode} session: its orders are its backtest's`, {
      trading_mode: session.trading_mode,
    });
  }
  return found;
}

/** 409 `code` naming the status of an order that is no longer pending. */
async function notPending(deps: ViewDeps, orderId: string, code: string, action: string) {
  const current = (await deps.runs.order(orderId))!;
  return conflict(code, `Order ${orderId} is ${current.status}: only a pending order can be ${action}`, { current_status: current.status });
}

/**
 * Cancels a pending order of a simulation or live session (running or paused): withdrawn on the
 * session's run like every other input. 409 `ORDER_NOT_CANCELLABLE` names the order's status
 * when it is no longer pending.
 */
export async function cancelOrder(deps: ViewDeps, actor: Actor, orderId: string): Promise<TradingOrderResponse> {
  const found = await tradableOrder(deps, actor, orderId);
  const done = await updateRun(deps, found.run_id, async (run) => {
    const engine = engineOf(run);
    if (!engine.cancel(orderId, deps.now(), "cancelled on request")) throw await notPending(deps, orderId, "ORDER_NOT_CANCELLABLE", "cancelled");
    return { engine, value: null };
  });
  await notifyWorker(deps, found.session_id, "input", "cancel", done!.events);
  return (await deps.runs.order(orderId))!;
}

/** PUT /trading/orders/{order_id}: a new quantity, a new price (limit and stop orders), or both. */
export const OrderReplaceRequest = z
  .object({ quantity: DecimalInput.optional(), price: DecimalInput.optional() })
  .refine((body) => body.quantity !== undefined || body.price !== undefined, { message: "give quantity, price or both", path: ["quantity"] })
  .meta({ id: "TradingOrderReplaceRequest" });

export const OrderReplaceResult = z
  .object({
    replaced: z.boolean(),
    order: TradingOrderResponse,
    denials: z.array(z.object({ reason: z.string(), message: z.string(), values: z.record(z.string(), z.union([z.number(), z.string()])) })),
  })
  .meta({ id: "TradingOrderReplaceResult" });

/**
 * Replaces a pending order's quantity or price (running or paused simulation and live sessions):
 * the changed order passes the pre-trade checks as if placed now (the daily order count aside),
 * keeps its place in the queue and fills on the next bar that reaches it. A denied replacement
 * leaves the order as it was (`replaced: false` with every denial). 409 `ORDER_NOT_REPLACEABLE`
 * names the status of an order no longer pending; 422 for a price on a market order.
 */
export async function replaceOrder(deps: ViewDeps, actor: Actor, orderId: string, input: unknown): Promise<z.infer<typeof OrderReplaceResult>> {
  const body = parseOrThrow(OrderReplaceRequest, input, ["body"]);
  const found = await tradableOrder(deps, actor, orderId);
  if (body.price !== undefined && found.order_type === "market") {
    throw new ValidationError([{ loc: ["body", "price"], msg: `order ${orderId} is a market order: only its quantity can change`, type: "value_error" }]);
  }
  const change = {
    quantity: body.quantity === undefined ? undefined : Number(body.quantity),
    price: body.price === undefined ? undefined : Number(body.price),
  };
  const done = await updateRun(deps, found.run_id, async (run) => {
    const engine = engineOf(run);
    const result = engine.replace(orderId, change, deps.now());
    if (!result) throw await notPending(deps, orderId, "ORDER_NOT_REPLACEABLE", "replaced");
    return { engine, value: result.denials };
  });
  await notifyWorker(deps, found.session_id, "input", "replace", done!.events);
  const denials = done!.value;
  return { replaced: denials.length === 0, order: (await deps.runs.order(orderId))!, denials };
}

/** One order of a session the caller owns. */
export async function order(deps: ViewDeps, actor: Actor, orderId: string) {
  const found = await deps.runs.order(orderId);
  if (!found) throw notFound("ORDER_NOT_FOUND", `Order ${orderId} does not exist`);
  await owned(deps, actor, found.session_id);
  return found;
}
