/**
 * A session's lifecycle: the state machine's operations applied to a stored session (`transition`:
 * start, pause, resume, stop, with the capital set aside in its account on start, the session
 * worker told and the channels' status recorded), the PUT that renames it, moves it or replaces its
 * risk configuration (`update`), and its deletion (`remove`). The session's shapes, its storage port
 * and the reads and writes every use case shares (`owned`, `mutate`) live in sessions.ts.
 */
import { parseOrThrow } from "../../errors";
import { iso } from "../../util/time";
import type { Actor } from "../../users";
import { notifyWorker } from "../worker/commands";
import type { RunStore } from "../run/runs";
import { riskGiven } from "./config";
import { closingFigures } from "./closing";
import { engineOf } from "../run/update";
import { recordSessionStatus } from "../run/status";
import {
  invalidTransition,
  isWorkerDriven,
  mutate,
  owned,
  parseRiskConfig,
  type SessionAccountPort,
  type SessionAction,
  type SessionDeps,
  type SessionStatus,
  type StoredSession,
  TradingSessionUpdate,
  TRANSITIONS,
  venueOf,
} from "./sessions";
/** Applies an operation of the state machine, or 409 `INVALID_STATE_TRANSITION`; a simulation or live session's worker is told at once. */
export async function transition(
  deps: SessionDeps & { runs?: Pick<RunStore, "get"> },
  actor: Actor,
  id: string,
  action: SessionAction,
): Promise<StoredSession> {
  // A session does not start or resume trading while a kill switch halts its owner (409 KILL_SWITCH_ACTIVE).
  if ((action === "start" || action === "resume") && deps.killSwitch) {
    const session = await owned(deps, actor, id);
    if (isWorkerDriven(session)) await deps.killSwitch.check(session.user_id);
  }
  if (action === "start" && deps.accounts) return startFunded(deps, deps.accounts, actor, id);
  const seen: { previous?: SessionStatus } = {};
  let session = await applyTransition(deps, actor, id, action, {}, seen);
  if (isWorkerDriven(session)) await lifecycleChanged(deps, session, action, seen.previous!);
  // A stopped session shows what it ended with: its run as of the latest snapshot.
  const run = action === "stop" && session.run_id && deps.runs ? await deps.runs.get(session.run_id) : undefined;
  if (run) {
    const figures = closingFigures(engineOf(run).view(null), run.setup.trading_days_per_year);
    session = await mutate(deps, actor, id, (current) => (current.status === "stopped" ? { ...current, ...figures } : current));
  }
  return session;
}

/** Starts a session with its capital set aside first; a start that fails gives it back. */
async function startFunded(deps: SessionDeps, accounts: SessionAccountPort, actor: Actor, id: string): Promise<StoredSession> {
  const before = await owned(deps, actor, id);
  // The state machine's refusal comes before the account's.
  const fundedBy = before.trading_mode !== "backtest" && TRANSITIONS.start.from.includes(before.status) ? await accounts.reserve(before) : null;
  let session: StoredSession;
  const seen: { previous?: SessionStatus } = {};
  try {
    session = await applyTransition(deps, actor, id, "start", fundedBy !== null ? { funded_by: fundedBy } : {}, seen);
  } catch (error) {
    await accounts.release(before);
    throw error;
  }
  if (isWorkerDriven(session)) await lifecycleChanged(deps, session, "start", seen.previous!);
  return session;
}

/**
 * Tells the worker of a live session's lifecycle change, and records what it did to each channel
 * on the session's run as `channel_status` events (docs/channels.md "Channel status events"),
 * which go to the worker like an input's, to be pushed. A session without a run yet (its first
 * start) has them written when the run is made.
 */
async function lifecycleChanged(deps: SessionDeps & { runs?: Pick<RunStore, "get"> }, session: StoredSession, action: SessionAction, previous: SessionStatus) {
  await notifyWorker(deps, session.id, "lifecycle", action);
  const runs = deps.runs as RunStore | undefined;
  if (!session.run_id || !runs?.save) return;
  const events = await recordSessionStatus({ runs, now: deps.now }, session.run_id, { action, previous, status: session.status });
  await notifyWorker(deps, session.id, "input", "channel_status", events);
}

function applyTransition(
  deps: SessionDeps,
  actor: Actor,
  id: string,
  action: SessionAction,
  patch: Partial<StoredSession> = {},
  seen: { previous?: SessionStatus } = {},
): Promise<StoredSession> {
  return mutate(deps, actor, id, (session) => {
    const rule = TRANSITIONS[action];
    seen.previous = session.status;
    if (session.trading_mode === "backtest" && (action === "start" || action === "resume")) {
      throw invalidTransition(session, action, "a backtest session runs through POST /api/v1/backtest/start");
    }
    if (!rule.from.includes(session.status)) throw invalidTransition(session, action, `${action} is allowed from ${rule.from.join(" or ")}`);
    const now = iso(deps.now());
    return {
      ...session,
      status: rule.to,
      ...(action === "start"
        ? { start_time: now, end_time: null, orders_at_broker: undefined, funded_by: undefined, final_capital: null, final_capital_by_currency: null }
        : {}),
      // The worker keeps it listed until the orders it has at its broker are cancelled.
      ...(action === "stop" ? { end_time: now, ...(isWorkerDriven(session) && venueOf(session) === "broker" ? { orders_at_broker: true } : {}) } : {}),
      ...patch,
    };
  });
}

/** Which operation a requested status means from the current one (PUT with `status`). */
function actionFor(from: SessionStatus, to: SessionStatus): SessionAction | null {
  if (to === "running") return from === "paused" ? "resume" : "start";
  if (to === "paused") return "pause";
  if (to === "stopped") return "stop";
  return null;
}

/** Renames, moves through the state machine, or replaces the risk configuration. */
export async function update(deps: SessionDeps, actor: Actor, id: string, input: unknown): Promise<StoredSession> {
  const body = parseOrThrow(TradingSessionUpdate, input, ["body"]);
  let session = await owned(deps, actor, id);
  if (body.status !== undefined && body.status !== session.status) {
    const action = actionFor(session.status, body.status);
    if (!action) throw invalidTransition(session, `set status ${body.status} on`, "completed and failed are reached by running a backtest");
    session = await transition(deps, actor, id, action);
  }
  if (body.session_name !== undefined || body.risk_config !== undefined) {
    const risk = body.risk_config !== undefined ? parseRiskConfig(body.risk_config, ["body", "risk_config"]) : undefined;
    session = await mutate(deps, actor, id, (current) => ({
      ...current,
      ...(body.session_name !== undefined ? { session_name: body.session_name } : {}),
      ...(risk ? { config: { ...current.config, risk_config: risk, risk_given: riskGiven(body.risk_config) } } : {}),
    }));
  }
  return session;
}

/** Whether the session's run still has an order at its broker (sent, not yet ended). */
async function ordersAtBroker(deps: { runs: Pick<RunStore, "get"> }, session: StoredSession): Promise<boolean> {
  const run = session.run_id ? await deps.runs.get(session.run_id) : undefined;
  return (run?.snapshot?.pending ?? []).some((order) => order.venue_order_id !== undefined);
}

/** Deletes a session that is not running or paused, nor has orders left at its broker. */
export async function remove(deps: SessionDeps & { runs: Pick<RunStore, "get"> }, actor: Actor, id: string): Promise<StoredSession> {
  const session = await owned(deps, actor, id);
  if (session.status === "running" || session.status === "paused") throw invalidTransition(session, "delete", "stop it first");
  if (session.orders_at_broker && (await ordersAtBroker(deps, session))) {
    throw invalidTransition(session, "delete", "its orders at the broker are still being cancelled; try again shortly");
  }
  await deps.sessions.delete(session);
  return session;
}
