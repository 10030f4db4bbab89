import { createRoute, z, type RouteConfig } from "@hono/zod-openapi";
import { FUNDING_CONFLICTS } from "@tp/core/trading/session/accounts";
import { KILL_SWITCH_CONFLICT } from "@tp/core/kill-switch";
import type { Context } from "hono";
import { ChannelActions, ChannelAlerts, ChannelConfig, ChannelReads, ChannelSchemas, ChannelStream, SessionReads } from "@tp/core/trading/index";
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
const ChannelParam = SessionIdParam.extend({ channel_id: z.string().min(1).max(64) });
const AlertParam = SessionIdParam.extend({ alert_id: z.string().min(1).max(64) });

/** The interface's prefix, and the second one that carries the same operations (plus a few of its own). */
const PRIMARY = "/api/v1/sessions/{session_id}";
const SECOND = "/api/v1/channels/sessions/{session_id}";
const BOTH = [PRIMARY, SECOND];

type Ctx = Context<AppEnv>;
const actor = (c: Ctx) => c.get("principal").user;
const by = (c: Ctx) => c.get("principal").user.username;
const tags = ["channels"];

/** The answers every channel route may give besides its own. */
const common = {
  ...errorResponses({ auth: true }),
  400: errorResponse("CHANNEL_MANAGER_NOT_INITIALIZED: the session has no channels"),
  404: errorResponse("SESSION_NOT_FOUND (or CHANNEL_NOT_FOUND for a channel route)"),
  503: errorResponse("SERVICE_UNAVAILABLE: the session's engine kept changing; `retry_after` seconds"),
  // The interface lists it among the channel endpoints' errors (with `trace_id`).
  500: errorResponse("INTERNAL_ERROR: a fault of the service; quote `trace_id`"),
};

/**
 * Multi-channel sessions (docs/channels.md): the channels of a trading session, their figures,
 * risk limits, alerts, configuration versions and the catch-up feed of the session's socket,
 * under `/api/v1/sessions/{session_id}` and `/api/v1/channels/sessions/{session_id}`.
 */
export function channelsGroup(services: GroupServices & { trading: Pick<TradingServices, "channels"> }) {
  const app = createGroup();
  for (const path of ["/api/v1/sessions/*", "/api/v1/channels/sessions/*"]) app.use(path, requireAuth(services));
  const deps = services.trading.channels;

  const route = (
    method: "get" | "post" | "put",
    prefixes: string[],
    suffix: string,
    options: {
      summary: string;
      description?: string;
      schema: z.ZodType;
      params?: z.ZodType;
      query?: z.ZodType;
      body?: z.ZodType;
      responses?: RouteConfig["responses"];
    },
    handle: (c: Ctx, params: Record<string, string>) => Promise<unknown>,
  ) => {
    for (const prefix of prefixes) {
      app.openapi(
        createRoute({
          method,
          path: `${prefix}${suffix}`,
          tags,
          summary: options.summary,
          description: options.description,
          security: bearer,
          request: {
            params: (options.params ?? SessionIdParam) as never,
            ...(options.query ? { query: options.query as never } : {}),
            ...(options.body ? jsonBody(options.body) : {}),
          },
          responses: { 200: json(options.schema, options.summary), ...common, ...(options.responses ?? {}) },
        }),
        async (c: Ctx) => c.json((await handle(c, c.req.param() as Record<string, string>)) as never, 200),
      );
    }
  };

  route("get", BOTH, "/summary", { summary: "Totals of the session over its channels", schema: ChannelSchemas.ChannelSummary }, (c, p) =>
    ChannelReads.summary(deps, actor(c), p.session_id!),
  );
  route("get", BOTH, "/channels", { summary: "The session's channels with their status and figures", schema: ChannelSchemas.ChannelList }, (c, p) =>
    ChannelReads.listChannels(deps, actor(c), p.session_id!),
  );
  // Before /channels/{channel_id}, so `breakdown` is not taken for a channel id.
  route(
    "get",
    BOTH,
    "/channels/breakdown",
    { summary: "Each channel's contribution to P&L, allocation, ROI and Sharpe ratio", schema: ChannelSchemas.Breakdown },
    (c, p) => ChannelReads.breakdown(deps, actor(c), p.session_id!),
  );
  route("get", BOTH, "/channels/{channel_id}", { summary: "One channel", schema: ChannelSchemas.ChannelStatus, params: ChannelParam }, (c, p) =>
    ChannelReads.getChannel(deps, actor(c), p.session_id!, p.channel_id!),
  );
  route(
    "get",
    BOTH,
    "/channels/{channel_id}/metrics",
    { summary: "One channel's figures", schema: ChannelSchemas.ChannelMetrics, params: ChannelParam },
    (c, p) => ChannelReads.channelMetrics(deps, actor(c), p.session_id!, p.channel_id!),
  );

  const transitions = {
    start:
      "stopped → running; 400 CHANNEL_ALREADY_RUNNING when running; 409 INVALID_STATE_TRANSITION when paused (use resume). Brings a pending configuration version into force.",
    stop: "paused → stopped (its pending orders are cancelled); 409 INVALID_STATE_TRANSITION when running (pause it first); 400 CHANNEL_NOT_RUNNING when stopped.",
    pause: "running → paused (positions kept, no new trades); 400 CHANNEL_NOT_RUNNING when paused or stopped.",
    resume:
      "paused → running; 400 CHANNEL_ALREADY_RUNNING when running; 409 INVALID_STATE_TRANSITION when stopped (use start). Brings a pending configuration version into force.",
  } as const;
  for (const action of ChannelSchemas.ChannelAction.options) {
    route(
      "post",
      BOTH,
      `/channels/{channel_id}/${action}`,
      {
        summary: `${action[0]!.toUpperCase()}${action.slice(1)} a channel of a running or paused simulation or live session`,
        description: `${transitions[action]} Any channel operation on a session that is not running or paused (or a backtest session) answers 409 INVALID_STATE_TRANSITION.`,
        schema: ChannelSchemas.ChannelActionResult,
        params: ChannelParam,
        responses: {
          400: errorResponse("CHANNEL_ALREADY_RUNNING, CHANNEL_NOT_RUNNING or CHANNEL_MANAGER_NOT_INITIALIZED"),
          409: errorResponse(
            action === "start" || action === "resume"
              ? `INVALID_STATE_TRANSITION (\`current_status\` names the state); ${KILL_SWITCH_CONFLICT}`
              : "INVALID_STATE_TRANSITION (`current_status` names the state)",
          ),
        },
      },
      (c, p) => ChannelActions.channelAction(deps, actor(c), by(c), p.session_id!, p.channel_id!, action),
    );
  }

  route(
    "put",
    BOTH,
    "/channels/{channel_id}/risk-limits",
    {
      summary: "Change a channel's risk limits (a new configuration version)",
      description:
        "Every field is optional; those left out keep their value. Ranges: max_drawdown 0.01–1.0, max_daily_loss above 0 up to 1.0, max_loss_per_trade above 0 up to 1.0, leverage_limit 0.1–10; a value outside answers 400 INVALID_PARAMETER naming each (`errors`). In a running or paused session the engine reloads the version at once (`effective_at` now); otherwise it is the pending version (`effective_at` null) until the session or channel starts.",
      schema: ChannelSchemas.RiskLimitsResult,
      params: ChannelParam,
      body: ChannelSchemas.RiskLimitsBody,
      responses: {
        400: errorResponse("INVALID_PARAMETER (every out-of-range value in `errors`) or CHANNEL_MANAGER_NOT_INITIALIZED"),
        409: errorResponse("CONFIG_CHANGED: a concurrent change; retry"),
      },
    },
    async (c, p) => ChannelConfig.updateRiskLimits(deps, actor(c), by(c), p.session_id!, p.channel_id!, await c.req.json()),
  );
  route(
    "get",
    BOTH,
    "/channels/{channel_id}/risk-report",
    { summary: "One channel's risk report", schema: ChannelSchemas.ChannelRiskReport, params: ChannelParam },
    (c, p) => ChannelReads.riskReport(deps, actor(c), p.session_id!, p.channel_id!),
  );
  route("get", BOTH, "/risk-reports", { summary: "Every channel's drawdown, halt and warnings", schema: ChannelSchemas.RiskReports }, (c, p) =>
    ChannelReads.riskReports(deps, actor(c), p.session_id!),
  );
  route("get", BOTH, "/alerts/summary", { summary: "Counts of the session's alerts by level and type", schema: ChannelSchemas.AlertSummary }, (c, p) =>
    ChannelAlerts.alertSummary(deps, actor(c), p.session_id!),
  );
  route(
    "get",
    BOTH,
    "/alerts",
    {
      summary: "The session's alerts, newest first",
      description:
        "Filters: `level` (critical, warning, info), `type` (risk_limit, performance, system), `acknowledged` (true, false), `channel_id`; `limit` (1–500, default 100). `total` and `unacknowledged` count every match.",
      schema: ChannelSchemas.AlertList,
      query: ChannelSchemas.AlertQuery,
    },
    (c, p) => ChannelAlerts.listAlerts(deps, actor(c), p.session_id!, c.req.query()),
  );
  route(
    "post",
    BOTH,
    "/alerts/{alert_id}/acknowledge",
    {
      summary: "Acknowledge an alert (records who and when; acknowledging again answers the first acknowledgement)",
      schema: ChannelSchemas.AcknowledgeResult,
      params: AlertParam,
      responses: { 404: errorResponse("SESSION_NOT_FOUND or ALERT_NOT_FOUND") },
    },
    (c, p) => ChannelAlerts.acknowledgeAlert(deps, actor(c), by(c), p.session_id!, p.alert_id!),
  );
  route(
    "post",
    BOTH,
    "/config/rollback",
    {
      summary: "Make an earlier configuration version current again",
      description: "409 SESSION_RUNNING while the session is running or paused; 404 CONFIG_VERSION_NOT_FOUND naming the version.",
      schema: ChannelSchemas.RollbackResult,
      body: ChannelSchemas.RollbackBody,
      responses: { 404: errorResponse("SESSION_NOT_FOUND or CONFIG_VERSION_NOT_FOUND"), 409: errorResponse("SESSION_RUNNING") },
    },
    async (c, p) => ChannelConfig.rollback(deps, actor(c), p.session_id!, await c.req.json()),
  );
  route(
    "get",
    BOTH,
    "/config/history",
    {
      summary: "Configuration versions, newest first",
      description: "Query: `channel_id` (only versions that changed it), `limit` (1–500, default 100).",
      schema: ChannelSchemas.ConfigHistory,
      query: ChannelSchemas.ConfigHistoryQuery,
    },
    (c, p) => ChannelConfig.configHistory(deps, actor(c), p.session_id!, c.req.query()),
  );
  route(
    "get",
    BOTH,
    "/updates",
    {
      summary: "What the session's socket pushed after `since` (catch-up after a reconnect)",
      description:
        "`since`: the last `timestamp` the client saw (ISO 8601; omitted: everything kept, a day). Every pushed record has its own millisecond, so the answer is exactly the records after it, oldest first; `limit` (1–1000, default 1000), `has_more` says to call again with `since=last_timestamp`. Every session has a stream, with or without channels (a backtest session's carries `backtest_progress`).",
      schema: ChannelSchemas.Updates,
      query: ChannelSchemas.UpdatesQuery,
    },
    (c, p) => ChannelStream.updates(deps, actor(c), p.session_id!, c.req.query()),
  );

  // Only under the second prefix.
  route("get", [SECOND], "/metrics", { summary: "Every channel's figures", schema: ChannelSchemas.SessionMetrics }, (c, p) =>
    ChannelReads.sessionMetrics(deps, actor(c), p.session_id!),
  );
  route("get", [SECOND], "/risk-status", { summary: "The session's risk state with every channel's report", schema: ChannelSchemas.RiskStatus }, (c, p) =>
    ChannelReads.riskStatus(deps, actor(c), p.session_id!),
  );
  route("get", [SECOND], "/performance", { summary: "Performance of the session and each channel", schema: SessionReads.SessionPerformance }, (c, p) =>
    ChannelReads.channelPerformance(deps, actor(c), p.session_id!),
  );
  route("get", [SECOND], "/positions", { summary: "Open positions and cash by channel", schema: ChannelSchemas.PositionsView }, (c, p) =>
    ChannelReads.channelPositions(deps, actor(c), p.session_id!),
  );
  for (const action of ["start", "stop", "pause", "resume"] as const) {
    route(
      "post",
      [SECOND],
      `/${action}`,
      {
        summary: `${action[0]!.toUpperCase()}${action.slice(1)} the session`,
        description:
          "The session's state machine (docs/trading-sessions.md). Start also sets every channel running and brings a pending configuration version into force.",
        schema: ChannelSchemas.SessionActionResult,
        responses: {
          409: errorResponse(
            action === "start"
              ? `INVALID_STATE_TRANSITION; ${FUNDING_CONFLICTS}`
              : action === "resume"
                ? `INVALID_STATE_TRANSITION; ${KILL_SWITCH_CONFLICT}`
                : "INVALID_STATE_TRANSITION",
          ),
          ...(action === "start" ? providerErrorResponses() : {}),
        },
      },
      (c, p) => ChannelActions.sessionAction(deps, actor(c), p.session_id!, action),
    );
  }

  return app;
}
