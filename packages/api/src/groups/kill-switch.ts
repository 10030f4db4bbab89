import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { TradingServices } from "@tp/adapters/trading";
import { KillSwitchReleaseRequest, KillSwitchState, KillSwitchStatus, KillSwitchTripRequest } from "@tp/core/kill-switch";
import * as KillSwitch from "@tp/core/trading/session/kill-switch-actions";
import { bearer, createGroup, errorResponse, errorResponses, json, type AppEnv, type GroupServices } from "../http/group";
import { requireAuth } from "../http/group";

const tags = ["kill-switch"];
const scopeDenied =
  "ACCESS_DENIED: the stage's switch asked for by a non-administrator, or an API key without the `trade` scope (reading the state needs `read`)";

/**
 * The kill switch (docs/security.md "Kill switch"): the caller's switch and the stage's, tripped
 * and released. Tripping pauses the sessions it halts and cancels their orders at their venues;
 * while it is tripped every order path answers 409 KILL_SWITCH_ACTIVE.
 */
export function killSwitchGroup(services: GroupServices<"killSwitch" | "outsideOrders"> & { trading: Pick<TradingServices, "sessions"> }) {
  const app = createGroup();
  for (const path of ["/api/v1/kill-switch", "/api/v1/kill-switch/*"]) app.use(path, requireAuth(services));
  const deps = {
    ...services.trading.sessions,
    killSwitch: services.killSwitch.guard,
    switches: services.killSwitch.store,
    outsideOrders: services.outsideOrders,
  };
  const by = (c: Context<AppEnv>): KillSwitch.SwitchActor => ({ actor: c.get("principal").user, keyId: c.get("principal").key?.id ?? null });

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/kill-switch",
      tags,
      summary: "The caller's kill switch and the stage's, and whether either halts the caller's orders now",
      description:
        "`user` is the caller's own switch, `stage` the administrators' switch over every user. Each shows whether it is tripped, the current (or last) trip (who, when, why), when it was released, the sessions the trip paused and the orders it asked to cancel with their status now (`cancel_failed` when the venue kept failing the cancel: the session worker keeps retrying, at most every 30 s). A non-administrator sees only their own sessions and orders in the stage's switch.",
      security: bearer,
      responses: { 200: json(KillSwitchStatus, "The switches"), ...errorResponses({ auth: true }), 403: errorResponse(scopeDenied) },
    }),
    async (c) => c.json(await KillSwitch.status(deps, c.get("principal").user), 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/kill-switch",
      tags,
      summary: "Trip a kill switch: the caller's (scope user) or the stage's (scope stage, administrators)",
      description:
        "Halts trading at once: the switch is written first (every order, replacement, session or channel start and resume of the halted users answers 409 KILL_SWITCH_ACTIVE from then on: at once on this instance, within 2 s on the others), then each simulation and live session it halts is paused and every order pending on it is cancelled (on the bars at once; at the broker, paper or LongPort, by the session worker, which retries a failing cancel with backoff and reports it: `cancel_failed` here and a critical `CANCEL_FAILED` alert in the session's log). Each session's log and socket get a `kill_switch` event. Tripping a tripped switch keeps its trip and halts again what started since. An API key needs the `trade` scope. Recorded in the audit trail (`kill-switch`).",
      security: bearer,
      request: { body: { required: false, content: { "application/json": { schema: KillSwitchTripRequest } } } },
      responses: { 200: json(KillSwitchState, "The switch, tripped"), ...errorResponses({ auth: true }), 403: errorResponse(scopeDenied) },
    }),
    async (c) => c.json(await KillSwitch.trip(deps, by(c), await bodyOf(c)), 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/kill-switch/release",
      tags,
      summary: "Release a kill switch: orders are accepted again",
      description:
        "Orders, replacements, starts and resumes are accepted again (at once on this instance, within 2 s on the others). The sessions the trip paused stay paused: resume each when ready. Each halted session's log and socket get a `kill_switch` event (`state: released`). Releasing a switch that is not tripped changes nothing. An API key needs the `trade` scope; the stage's switch needs an administrator.",
      security: bearer,
      request: { body: { required: false, content: { "application/json": { schema: KillSwitchReleaseRequest } } } },
      responses: { 200: json(KillSwitchState, "The switch, released"), ...errorResponses({ auth: true }), 403: errorResponse(scopeDenied) },
    }),
    async (c) => c.json(await KillSwitch.release(deps, by(c), await bodyOf(c)), 200),
  );

  return app;
}

/** The JSON body, or an empty one when none was sent (both routes' fields have defaults). */
async function bodyOf(c: Context<AppEnv>): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
