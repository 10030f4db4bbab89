import { forbidden, parseOrThrow } from "../../errors";
import {
  KillSwitchReleaseRequest,
  KillSwitchTripRequest,
  type KillSwitchGuard,
  type KillSwitchOrder,
  type KillSwitchScope,
  type KillSwitchState,
  type KillSwitchStatus,
  type KillSwitchStore,
  type KillSwitchTrip,
  type OutsideOrderDesk,
} from "../../kill-switch";
import { iso } from "../../util/time";
import type { Actor } from "../../users";
import { notifyWorker } from "../worker/commands";
import type { ViewDeps } from "./deps";
import { engineOf, updateRun } from "../run/update";
import { isActiveOnWorker, isListed, type StoredSession } from "./sessions";
import { transition } from "./lifecycle";

/**
 * Tripping and releasing the kill switch (docs/security.md "Kill switch"): the switch is written
 * first (so every order path refuses from then on), then each session it halts is paused (the
 * session's own pause) and every order pending on its run is cancelled (the engine's cancel: at
 * once on the bars, asked of the broker, which the session worker forwards and retries), each
 * session's log and socket getting a `kill_switch` event.
 */

export interface KillSwitchDeps {
  store: KillSwitchStore;
  guard: KillSwitchGuard;
}

/** Who trips or releases: the acting user (an administrator for the stage), the key it came with. */
export interface SwitchActor {
  actor: Actor;
  keyId: string | null;
}

const empty = (scope: KillSwitchScope, userId: string | null): KillSwitchState => ({
  scope,
  user_id: userId,
  active: false,
  trip: null,
  released_at: null,
  released_by: null,
  sessions_paused: [],
  orders: [],
});

const userOf = (scope: KillSwitchScope, actor: Actor) => (scope === "stage" ? null : actor.id);

function requireScope(scope: KillSwitchScope, actor: Actor) {
  if (scope === "stage" && actor.user_type !== "admin") throw forbidden("Only administrators may trip or release the stage's kill switch");
}

/** The sessions a switch halts: the user's, or every session the worker drives (the stage's). */
async function sessionsHalted(deps: ViewDeps, scope: KillSwitchScope, userId: string | null): Promise<StoredSession[]> {
  const sessions = scope === "stage" ? await deps.sessions.listLive() : await deps.sessions.listByUser(userId!);
  return sessions.filter(isListed);
}

/** The session's owner as the actor of what the switch does to it (an API key's session list does not narrow a switch). */
const ownerOf = (session: StoredSession): Actor => ({ id: session.user_id, user_type: "user" });

/** Pauses a running session (its own pause) and cancels every order pending on its run; the orders asked to cancel. */
async function halt(deps: ViewDeps, session: StoredSession, trip: KillSwitchTrip): Promise<{ paused: boolean; orders: KillSwitchOrder[] }> {
  let paused = false;
  if (session.status === "running") {
    try {
      await transition(deps, ownerOf(session), session.id, "pause");
      paused = true;
    } catch {
      // Paused or stopped meanwhile by someone else: nothing to pause.
    }
  }
  if (!session.run_id) return { paused, orders: [] };
  const done = await updateRun(deps, session.run_id, (run) => {
    const engine = engineOf(run);
    engine.killSwitch({ state: "tripped", scope: trip.scope, by: trip.tripped_by, reason: trip.reason }, deps.now());
    const pending = [...(run.snapshot?.pending ?? [])];
    for (const order of pending) engine.cancel(order.order_id, deps.now(), `kill switch: ${trip.reason}`);
    return { engine, value: pending };
  });
  if (!done) return { paused, orders: [] };
  await notifyWorker(deps, session.id, "input", "cancel", done.events);
  const open = new Map((done.run.snapshot?.pending ?? []).map((order) => [order.order_id, order]));
  return {
    paused,
    orders: done.value.map((order) => ({
      session_id: session.id,
      order_id: order.order_id,
      symbol: order.symbol,
      side: order.side,
      status: open.has(order.order_id) ? "pending" : "cancelled",
      cancel_requested: open.get(order.order_id)?.cancel_requested === true,
      cancel_failed: null,
    })),
  };
}

/**
 * Trips a switch: `scope` `user` (the caller's own) or `stage` (administrators). Tripping one
 * already tripped keeps its trip (who, when, why) and halts again what has started since.
 */
export async function trip(
  deps: ViewDeps & { killSwitch: KillSwitchGuard; switches: KillSwitchStore; outsideOrders?: OutsideOrderDesk },
  by: SwitchActor,
  input: unknown,
): Promise<KillSwitchState> {
  const body = parseOrThrow(KillSwitchTripRequest, input ?? {}, ["body"]);
  requireScope(body.scope, by.actor);
  const userId = userOf(body.scope, by.actor);
  return tripSwitch(deps, body.scope, userId, {
    tripped_by: by.actor.id,
    key_id: by.keyId,
    reason: body.reason ?? (body.scope === "stage" ? "stage halted by an administrator" : "halted by the user"),
  });
}

/** Trips `scope`'s switch with what `trip` says (the API, or a session's risk breach) and halts its sessions. */
export async function tripSwitch(
  deps: ViewDeps & { killSwitch: KillSwitchGuard; switches: KillSwitchStore; outsideOrders?: OutsideOrderDesk },
  scope: KillSwitchScope,
  userId: string | null,
  trip: Pick<KillSwitchTrip, "tripped_by" | "key_id" | "reason">,
): Promise<KillSwitchState> {
  const before = (await deps.switches.get(scope, userId)) ?? empty(scope, userId);
  const current: KillSwitchTrip = before.active && before.trip ? before.trip : { scope, user_id: userId, tripped_at: iso(deps.now()), ...trip };
  let state: KillSwitchState = before.active ? before : { ...empty(scope, userId), active: true, trip: current };
  await deps.switches.save(state);
  deps.killSwitch.noteLocally(scope, userId, current);
  const paused = new Set(state.sessions_paused);
  const orders = new Map(state.orders.map((order) => [order.order_id, order]));
  for (const session of await sessionsHalted(deps, scope, userId)) {
    const halted = await halt(deps, session, current);
    if (halted.paused) paused.add(session.id);
    for (const order of halted.orders) orders.set(order.order_id, order);
  }
  // The owners' own orders on the simulated venue, outside any session: withdrawn at once.
  for (const order of (await deps.outsideOrders?.withdraw(scope === "stage" ? null : [userId!])) ?? []) orders.set(order.order_id, order);
  state = { ...state, sessions_paused: [...paused], orders: [...orders.values()] };
  await deps.switches.save(state);
  return withCurrentOrders(deps, state);
}

/** Releases a switch: orders are accepted again (the sessions it paused stay paused until resumed). */
export async function release(deps: ViewDeps & { killSwitch: KillSwitchGuard; switches: KillSwitchStore }, by: SwitchActor, input: unknown) {
  const body = parseOrThrow(KillSwitchReleaseRequest, input ?? {}, ["body"]);
  requireScope(body.scope, by.actor);
  const userId = userOf(body.scope, by.actor);
  const before = (await deps.switches.get(body.scope, userId)) ?? empty(body.scope, userId);
  if (!before.active) return withCurrentOrders(deps, before);
  const state: KillSwitchState = { ...before, active: false, released_at: iso(deps.now()), released_by: by.actor.id };
  await deps.switches.save(state);
  deps.killSwitch.noteLocally(body.scope, userId, null);
  for (const session of await sessionsHalted(deps, body.scope, userId)) {
    if (!session.run_id || !isActiveOnWorker(session)) continue;
    const done = await updateRun(deps, session.run_id, (run) => {
      const engine = engineOf(run);
      engine.killSwitch({ state: "released", scope: body.scope, by: by.actor.id, reason: before.trip?.reason ?? null }, deps.now());
      return { engine, value: null };
    });
    if (done) await notifyWorker(deps, session.id, "input", "kill_switch", done.events);
  }
  return withCurrentOrders(deps, state);
}

/** The caller's switch and the stage's, and whether either halts the caller now. */
export async function status(deps: ViewDeps & { killSwitch: KillSwitchGuard; switches: KillSwitchStore }, actor: Actor): Promise<KillSwitchStatus> {
  const [user, stage] = await Promise.all([deps.switches.get("user", actor.id), deps.switches.get("stage", null)]);
  const [userState, stageState] = await Promise.all([
    withCurrentOrders(deps, user ?? empty("user", actor.id)),
    withCurrentOrders(deps, stage ?? empty("stage", null), actor.user_type === "admin" ? null : actor.id),
  ]);
  return { active: userState.active || stageState.active, user: userState, stage: stageState };
}

/** The switch with each order's status as its session's run has it now; a non-administrator sees only their own orders of the stage's switch. */
async function withCurrentOrders(deps: ViewDeps, state: KillSwitchState, onlyOf: string | null = null): Promise<KillSwitchState> {
  const orders = await Promise.all(
    state.orders.map(async (order) => {
      // An order outside any session was withdrawn at the trip (or its failure recorded): as stored.
      const now = order.session_id === null ? undefined : await deps.runs.order(order.order_id);
      return { order, now };
    }),
  );
  const owners = onlyOf === null ? null : new Set((await deps.sessions.listByUser(onlyOf)).map((session) => session.id));
  return {
    ...state,
    sessions_paused: owners ? state.sessions_paused.filter((id) => owners.has(id)) : state.sessions_paused,
    orders: orders
      .filter(({ order }) => !owners || (order.session_id === null ? order.account_id === onlyOf : owners.has(order.session_id)))
      .map(({ order, now }) => ({
        ...order,
        ...(now
          ? { status: now.status, cancel_requested: (now.status === "pending" || now.status === "partially_filled") && now.cancel_requested === true }
          : {}),
      })),
  };
}
