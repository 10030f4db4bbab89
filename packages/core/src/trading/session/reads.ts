import { KillSwitchFlag } from "../../kill-switch";
import { z } from "zod";
import { notFound, parseOrThrow } from "../../errors";
import { LogLevel } from "../../engine/events";
import { performance, PerformanceMetrics } from "../../engine/metrics";
import { Dec } from "../../money/decimal";
import { iso } from "../../util/time";
import type { Actor } from "../../users";
import type { ViewDeps } from "./deps";
import { OrderStatus, type StoredEvent, TradingOrderResponse } from "../run/runs";
import { sessionEngine } from "./engine";
import { asOf, clockOf, eventEntry, positionFigures } from "./figures";
import { isWorkerDriven, owned, type StoredSession } from "./sessions";
import { workerStatus, WorkerStatusView } from "../worker/status";

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

/** `run_id`: which of the session's runs a view reads (docs/trading-sessions.md, "Runs"). */
export const RunQuery = z.object({
  run_id: z
    .string()
    .min(1)
    .max(160)
    .optional()
    .describe(
      "One of the session's runs (its replay's is `<session_id>-replay`, named by `replay/status`; a backtest's is its backtest id); the session's current run when absent. 404 RUN_NOT_FOUND for a run that is not the session's",
    ),
});

export const LogQuery = PageQuery.extend({ level: LogLevel.optional(), ...RunQuery.shape });
export const OrderQuery = PageQuery.extend({ status: OrderStatus.optional(), ...RunQuery.shape });

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
  .object({
    session_id: z.string(),
    run_id: z.string().nullable().describe("The run the figures are of (null: the session has not run; its starting capital)"),
    as_of: z.string().nullable(),
    session: PerformanceMetrics,
    channels: z.record(z.string(), PerformanceMetrics),
  })
  .meta({ id: "SessionPerformance" });

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
    kill_switch: KillSwitchFlag,
  })
  .meta({ id: "SessionEngineStatus" });

/**
 * The run a view of the session reads: the one `runId` names, which must be one of the session's
 * (404 `RUN_NOT_FOUND` otherwise), else the session's current run (null before it has run).
 */
export async function runOf(deps: Pick<ViewDeps, "runs">, session: StoredSession, runId: string | undefined): Promise<string | null> {
  if (runId === undefined || runId === session.run_id) return session.run_id;
  const run = await deps.runs.get(runId);
  if (!run || run.session_id !== session.id) {
    throw notFound(
      "RUN_NOT_FOUND",
      `Session ${session.id} has no run '${runId}': leave run_id out for its current run${session.run_id ? ` (${session.run_id})` : ""}; its replay's run is named by replay/status`,
    );
  }
  return runId;
}

/** A page of the events of one of the session's runs (every one, one level's or one category's), in the project's pager. */
export async function eventPage(
  deps: ViewDeps,
  session: StoredSession,
  query: { limit: number; cursor?: string; level?: LogLevel; category?: StoredEvent["category"] },
  runId: string | null = session.run_id,
): Promise<EventPage> {
  if (!runId) return { session_id: session.id, run_id: null, items: [], count: 0, next_cursor: null };
  const page = await deps.runs.events(runId, query);
  return { session_id: session.id, run_id: runId, items: page.items.map(eventEntry), count: page.items.length, next_cursor: page.cursor ?? null };
}

/** The orders of one of the session's runs (its current one by default) in the order they were placed (denied ones included, with their reasons). */
export async function orders(deps: ViewDeps, actor: Actor, id: string, input: unknown) {
  const { run_id, ...query } = parseOrThrow(OrderQuery, input, ["query"]);
  const session = await owned(deps, actor, id);
  const runId = await runOf(deps, session, run_id);
  if (!runId) return { session_id: id, run_id: null, orders: [], count: 0, next_cursor: null };
  const page = await deps.runs.orders(runId, query);
  return { session_id: id, run_id: runId, orders: page.items, count: page.items.length, next_cursor: page.cursor ?? null };
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
    as_of: asOf(run),
    cash: view.cash,
    positions: view.positions.map((p) => ({
      channel_id: p.channel_id,
      ...positionFigures(p),
      cost_basis: new Dec(p.cost).toFixed(2),
      currency: p.currency,
      opened_at: p.opened_at ? iso(p.opened_at) : null,
    })),
  };
}

/** The log of one of the session's runs (its current one by default): every event as a line, optionally of one level. */
export async function logs(deps: ViewDeps, actor: Actor, id: string, input: unknown) {
  const { run_id, ...query } = parseOrThrow(LogQuery, input, ["query"]);
  const session = await owned(deps, actor, id);
  return eventPage(deps, session, query, await runOf(deps, session, run_id));
}

/** Performance of the session and of each channel on one of its runs (its current one by default; docs/trading-engine.md has the formulas). */
export async function sessionPerformance(deps: ViewDeps, actor: Actor, id: string, input: unknown = {}) {
  const query = parseOrThrow(RunQuery, input, ["query"]);
  const session = await owned(deps, actor, id);
  const { engine, run } = await sessionEngine(deps, session, await runOf(deps, session, query.run_id));
  const days = engine.setup.trading_days_per_year;
  return {
    session_id: id,
    run_id: run?.run_id ?? null,
    as_of: asOf(run),
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
    clock: clockOf(run),
    last_sequence: run?.snapshot?.sequence ?? 0,
    pending_orders: whole.pending_orders.length,
    channels: engine.channelIds().map((channelId) => {
      const view = engine.view(channelId);
      return { channel_id: channelId, state: view.state ?? "running", halted: view.halt !== null, halt_reason: view.halt };
    }),
    updated_at: run?.updated_at ?? null,
    worker: isWorkerDriven(session) ? workerStatus(await deps.workerBeat(), deps.now(), run?.progress?.cursor_ms) : null,
    kill_switch: (await deps.killSwitch?.halting(session.user_id)) ?? null,
  };
}

/** One order of a session the caller owns. */
export async function order(deps: ViewDeps, actor: Actor, orderId: string) {
  const found = await deps.runs.order(orderId);
  if (!found) throw notFound("ORDER_NOT_FOUND", `Order ${orderId} does not exist`);
  await owned(deps, actor, found.session_id);
  return found;
}
