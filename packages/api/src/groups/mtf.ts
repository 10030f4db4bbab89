import { createRoute, z } from "@hono/zod-openapi";
import { FUNDING_CONFLICTS } from "@tp/core/trading/session/accounts";
import { KILL_SWITCH_CONFLICT } from "@tp/core/kill-switch";
import type { Context } from "hono";
import { Mtf, Replay, SessionReads, Sessions } from "@tp/core/trading/index";
import type { TradingServices } from "@tp/adapters/trading";
import {
  type AppEnv,
  bearer,
  createGroup,
  errorResponse,
  errorResponses,
  json,
  jsonBody,
  providerErrorResponses,
  requireAuth,
  type GroupServices,
} from "../http/group";

const SessionIdParam = z.object({ session_id: z.string().min(1).max(128) });
const tags = ["mtf"];
const replayTags = ["replay"];
const owned = { auth: true, notFound: true } as const;
/** A replay's control and status: the session, or its replay before one started. */
const replayErrors = { auth: true, notFound: ["SESSION_NOT_FOUND", "REPLAY_NOT_FOUND"] } as const;
const transitionConflict = { 409: errorResponse("INVALID_STATE_TRANSITION: not allowed in the current state (`current_status` names it)") };
const startConflict = { 409: errorResponse(`INVALID_STATE_TRANSITION: not allowed in the current state (\`current_status\` names it); ${FUNDING_CONFLICTS}`) };

type Ctx = Context<AppEnv>;
const actor = (c: Ctx) => c.get("principal").user;

/**
 * Multi-timeframe sessions under /trading/mtf/sessions and the replay of any trading session
 * under /trading/sessions/{id}/replay/... (docs/mtf-and-replay.md). Both are drivers of the one
 * engine over stored candles; the domain is `trading/drivers/mtf.ts` and `trading/drivers/replay.ts`.
 */
export function mtfGroup(services: GroupServices<"realtime"> & { trading: Pick<TradingServices, "drivers"> }) {
  const app = createGroup();
  app.use("/api/v1/trading/*", requireAuth(services));
  const deps = services.trading.drivers;

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/trading/mtf/sessions",
      tags,
      summary: "The caller's MTF sessions, newest first",
      security: bearer,
      request: { query: Sessions.SessionListQuery },
      responses: { 200: json(z.array(Mtf.MtfSessionResponse), "MTF sessions"), ...errorResponses({ auth: true }) },
    }),
    async (c) => c.json((await Mtf.list(deps, actor(c), c.req.valid("query"))).map(Mtf.toResponse), 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/trading/mtf/sessions",
      tags,
      summary: "Create an MTF session: a director on a higher timeframe, executors on lower ones (status created)",
      description:
        "Strategies come from GET /strategies/mtf/metadata: the director's role is director or universal, each executor's executor or universal, each timeframe one the strategy supports, every executor's below the director's. `historical` sessions need `start_date` and `end_date` and advance by `step`. 422 lists every problem.",
      security: bearer,
      request: jsonBody(Mtf.MtfSessionCreate),
      responses: { 201: json(Mtf.MtfSessionResponse, "The new session"), ...errorResponses({ auth: true }) },
    }),
    async (c) => c.json(Mtf.toResponse(await Mtf.create(deps, actor(c), c.req.valid("json"))), 201),
  );

  for (const action of ["start", "stop", "pause", "resume"] as const) {
    const rule = Sessions.TRANSITIONS[action];
    app.openapi(
      createRoute({
        method: "post",
        path: `/api/v1/trading/mtf/sessions/{session_id}/${action}`,
        tags,
        summary: `${action[0].toUpperCase()}${action.slice(1)} an MTF session (${rule.from.join(" or ")} → ${rule.to})`,
        security: bearer,
        request: { params: SessionIdParam },
        responses: {
          200: json(Mtf.MtfSessionResponse, "The session in its new state"),
          ...(action === "start"
            ? { ...startConflict, ...providerErrorResponses() }
            : action === "resume"
              ? { 409: errorResponse(`INVALID_STATE_TRANSITION: not allowed in the current state; ${KILL_SWITCH_CONFLICT}`) }
              : transitionConflict),
          ...errorResponses(owned),
        },
      }),
      async (c) => c.json(Mtf.toResponse(await Mtf.transition(deps, actor(c), c.req.valid("param").session_id, action)), 200),
    );
  }

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/trading/mtf/sessions/{session_id}/step",
      tags,
      summary: "Advance a historical MTF session by executor bars over stored candles (running or paused)",
      description:
        'Body optional: `{"bars": n}` (1–1000, default 1). Answers the events the step wrote. 409 INVALID_STATE_TRANSITION for simulation and live sessions and outside running/paused.',
      security: bearer,
      request: { params: SessionIdParam, body: { content: { "application/json": { schema: Mtf.MtfStepRequest } }, required: false } },
      responses: { 200: json(Mtf.MtfStepResult, "Where the session is and what the step produced"), ...transitionConflict, ...errorResponses(owned) },
    }),
    async (c) => {
      const body = await c.req.json().catch(() => ({}));
      return c.json(await Mtf.step(deps, actor(c), c.req.valid("param").session_id, body), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/api/v1/trading/mtf/sessions/{session_id}",
      tags,
      summary: "Delete an MTF session that is not running or paused, with its runs",
      security: bearer,
      request: { params: SessionIdParam },
      responses: { 200: json(Sessions.SessionDeleteResult, "Deleted"), ...transitionConflict, ...errorResponses(owned) },
    }),
    async (c) => {
      const session = await Mtf.remove(deps, actor(c), c.req.valid("param").session_id);
      return c.json({ success: true, message: `MTF session ${session.session_name} deleted`, id: session.id }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/trading/mtf/sessions/{session_id}/status",
      tags,
      summary: "Each timeframe's last bar, the director's bias per symbol, positions and equity",
      security: bearer,
      request: { params: SessionIdParam },
      responses: { 200: json(Mtf.MtfStatus, "Status"), ...errorResponses(owned) },
    }),
    async (c) => c.json(await Mtf.status(deps, actor(c), c.req.valid("param").session_id), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/trading/mtf/sessions/{session_id}/outputs",
      tags,
      summary: "What each timeframe produced: strategy outputs (bar, indicator values, stance), bias changes, signals, orders (paged, oldest first)",
      security: bearer,
      request: { params: SessionIdParam, query: Mtf.OutputQuery },
      responses: { 200: json(SessionReads.EventPage, "A page of events"), ...errorResponses(owned) },
    }),
    async (c) => c.json(await Mtf.outputs(deps, actor(c), c.req.valid("param").session_id, c.req.query()), 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/trading/sessions/{session_id}/replay/start",
      tags: replayTags,
      summary: "Replay the session's configuration over stored candles for a date range (restarts any earlier replay)",
      description:
        "Runs on its own run (`<session_id>-replay`), never the session's live one; plays at `speed` steps per second unless `paused` is true. The events stream to the session's socket marked `replay: true`.",
      security: bearer,
      request: { params: SessionIdParam, ...jsonBody(Replay.ReplayStartRequest) },
      responses: { 200: json(Replay.ReplayStatusView, "The replay at the start of its range"), ...errorResponses(owned) },
    }),
    async (c) => c.json(await Replay.start(deps, actor(c), c.req.valid("param").session_id, c.req.valid("json")), 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/trading/sessions/{session_id}/replay/control",
      tags: replayTags,
      summary: "play, pause, step (bars), seek (to) or speed (speed)",
      description:
        "`play` from paused; `pause` while playing; `step` while paused (`bars`, default 1); `seek` in any state (`to`: ISO date or date-time; backwards replays from the start); `speed` in any state. Otherwise 409 INVALID_STATE_TRANSITION naming the replay's state. 404 REPLAY_NOT_FOUND before a start.",
      security: bearer,
      request: { params: SessionIdParam, ...jsonBody(Replay.ReplayControlRequest) },
      responses: { 200: json(Replay.ReplayStatusView, "The replay after the action"), ...transitionConflict, ...errorResponses(replayErrors) },
    }),
    async (c) => {
      const id = c.req.valid("param").session_id;
      const { status, events } = await Replay.control(deps, actor(c), id, c.req.valid("json"));
      await Replay.publish(services.realtime, id, status.run_id, events);
      return c.json(status, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/trading/sessions/{session_id}/replay/status",
      tags: replayTags,
      summary: "The replay's state, speed, cursor and progress",
      security: bearer,
      request: { params: SessionIdParam },
      responses: { 200: json(Replay.ReplayStatusView, "Status"), ...errorResponses(replayErrors) },
    }),
    async (c) => c.json(await Replay.status(deps, actor(c), c.req.valid("param").session_id), 200),
  );

  return app;
}
