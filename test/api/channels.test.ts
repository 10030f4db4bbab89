import { PutCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChannelPresets } from "../../packages/core/src/channel-presets/index";
import { LiveRuns } from "../../packages/core/src/trading/session/live-run";
import { SessionWorker } from "../../packages/worker/src/session-worker";
import { createTestApi, type TestApi } from "../support/harness";

/**
 * Multi-channel sessions over HTTP against DynamoDB Local, on a pinned clock: the channel
 * state machine, risk limits and configuration versions, alerts, the error codes of the
 * interface, and the socket's catch-up feed.
 */
let api: TestApi;
let owner: { id: string; token: string; username: string };
let stranger: { id: string; token: string };
let clock = Date.parse("2024-03-15T13:30:00Z");
const pushed: { connection: string; message: any }[] = [];

beforeAll(async () => {
  api = await createTestApi({}, { now: () => clock });
  owner = (await api.createUser()) as typeof owner;
  stranger = await api.createUser();
  api.services.realtime.pusher = { post: async (connection, data) => (pushed.push({ connection, message: JSON.parse(data) }), "sent") };
});

const workers: SessionWorker[] = [];
afterAll(async () => {
  for (const worker of workers) await worker.stop();
});

const preset = ChannelPresets.get("balanced-multi");
const createSession = (config: Record<string, unknown> = { channels: preset.channels }, extra: Record<string, unknown> = {}) =>
  api.json("POST", "/api/v1/trading/sessions", 201, {
    token: owner.token,
    body: {
      session_name: "Balanced",
      trading_mode: "simulation",
      asset_mode: "simulated",
      initial_capital: "100000",
      tradable_symbols: ["AAPL.US"],
      config: { ...config, venue: "bars" },
      ...extra,
    },
  });
const P = (id: string) => `/api/v1/sessions/${id}`;
const Q = (id: string) => `/api/v1/channels/sessions/${id}`;
const watch = (sessionId: string, connectionId: string) =>
  api.services.realtime.connections.add({
    connection_id: connectionId,
    topic: `session:${sessionId}`,
    user_id: owner.id,
    connected_at: new Date().toISOString(),
    expires_at: Math.floor(Date.now() / 1000) + 7200,
  });

/** Asserts the channel error body: status, code, and the fields every error carries. */
async function fails(method: string, path: string, status: number, code: string, options: { body?: unknown; token?: string } = {}) {
  const body = await api.json(method, path, status, { token: owner.token, ...options });
  expect(body).toMatchObject({ error_code: code, detail: expect.any(String), path: path.split("?")[0], timestamp: expect.any(String) });
  expect(Number.isFinite(Date.parse(body.timestamp))).toBe(true);
  return body;
}

describe("channel routes: who may ask and about what", () => {
  it("answers 404 SESSION_NOT_FOUND, 403 ACCESS_DENIED, 401 and 400 CHANNEL_MANAGER_NOT_INITIALIZED under both prefixes", async () => {
    const session = await createSession();
    const empty = await createSession({});
    for (const prefix of [P, Q]) {
      const missing = await fails("GET", `${prefix("no-such-session")}/channels`, 404, "SESSION_NOT_FOUND");
      expect(missing.detail).toContain("no-such-session");
      await fails("GET", `${prefix(session.id)}/summary`, 403, "ACCESS_DENIED", { token: stranger.token });
      await fails("POST", `${prefix(session.id)}/channels/balanced/pause`, 403, "ACCESS_DENIED", { token: stranger.token });
      expect((await api.request("GET", `${prefix(session.id)}/channels`)).status).toBe(401);
      const none = await fails("GET", `${prefix(empty.id)}/channels`, 400, "CHANNEL_MANAGER_NOT_INITIALIZED");
      expect(none.detail).toContain(empty.id);
      await fails("GET", `${prefix(empty.id)}/alerts`, 400, "CHANNEL_MANAGER_NOT_INITIALIZED");
      const unknown = await fails("GET", `${prefix(session.id)}/channels/nope`, 404, "CHANNEL_NOT_FOUND");
      expect(unknown.detail).toContain("aggressive, balanced, conservative");
      await fails("GET", `${prefix(session.id)}/channels/nope/metrics`, 404, "CHANNEL_NOT_FOUND");
      await fails("POST", `${prefix(session.id)}/channels/nope/start`, 404, "CHANNEL_NOT_FOUND");
    }
  });

  it("shows a session that has not started with its three channels stopped at their allocations", async () => {
    const session = await createSession();
    const list = await api.json("GET", `${P(session.id)}/channels`, 200, { token: owner.token });
    expect(list).toMatchObject({ session_id: session.id, total_channels: 3, running_channels: 0 });
    expect(list.channels.map((c: any) => [c.channel_id, c.channel_type, c.status, c.capital_allocation, c.strategy_count])).toEqual([
      ["aggressive", "AGGRESSIVE", "stopped", 0.2, 2],
      ["balanced", "BALANCED", "stopped", 0.5, 3],
      ["conservative", "CONSERVATIVE", "stopped", 0.3, 1],
    ]);
    expect(list.channels[1]).toMatchObject({ metrics: { total_pnl: 0, win_rate: 0, total_trades: 0 }, started_at: null, error_message: null });
    const summary = await api.json("GET", `${Q(session.id)}/summary`, 200, { token: owner.token });
    expect(summary).toMatchObject({
      session_id: session.id,
      user_id: owner.id,
      status: "created",
      total_pnl: 0,
      total_capital: 100000,
      channel_count: 3,
      running_channels: 0,
      total_orders: 0,
      current_config_version: 1,
      pending_config_version: null,
    });
    const metrics = await api.json("GET", `${P(session.id)}/channels/balanced/metrics`, 200, { token: owner.token });
    expect(metrics).toMatchObject({
      channel_id: "balanced",
      total_pnl: 0,
      available_capital: 50000,
      capital_used: 0,
      active_positions: 0,
      timestamp: new Date(clock).toISOString(),
    });
    // A channel of a session that is not running cannot be operated.
    const refused = await fails("POST", `${P(session.id)}/channels/balanced/pause`, 409, "INVALID_STATE_TRANSITION");
    expect(refused.detail).toContain("start the session first");
  });
});

describe("the channel state machine", () => {
  let id: string;

  it("starts the session with every channel running, then walks each channel through the transition table", async () => {
    id = (await createSession()).id;
    await watch(id, "machine");
    const started = await api.json("POST", `${Q(id)}/start`, 200, { token: owner.token });
    expect(started).toMatchObject({ session_id: id, status: "running", previous_status: "created", current_config_version: 1 });
    expect(started.channels.map((c: any) => c.status)).toEqual(["running", "running", "running"]);

    const already = await fails("POST", `${P(id)}/channels/balanced/start`, 400, "CHANNEL_ALREADY_RUNNING");
    expect(already).toMatchObject({ current_status: "running", channel_id: "balanced" });
    await fails("POST", `${P(id)}/channels/balanced/resume`, 400, "CHANNEL_ALREADY_RUNNING");
    const stopRunning = await fails("POST", `${P(id)}/channels/balanced/stop`, 409, "INVALID_STATE_TRANSITION");
    expect(stopRunning.detail).toContain("pause it first");

    clock += 1000;
    const paused = await api.json("POST", `${P(id)}/channels/balanced/pause`, 200, { token: owner.token });
    expect(paused).toEqual({
      channel_id: "balanced",
      status: "paused",
      message: expect.stringContaining("positions kept"),
      paused_at: new Date(clock).toISOString(),
      current_config_version: 1,
    });
    await fails("POST", `${P(id)}/channels/balanced/pause`, 400, "CHANNEL_NOT_RUNNING");
    expect((await fails("POST", `${P(id)}/channels/balanced/start`, 409, "INVALID_STATE_TRANSITION")).detail).toContain("use resume");
    const channels = await api.json("GET", `${P(id)}/channels`, 200, { token: owner.token });
    expect(channels.channels.map((c: any) => c.status)).toEqual(["running", "paused", "running"]);
    expect(channels.running_channels).toBe(2);

    const stopped = await api.json("POST", `${Q(id)}/channels/balanced/stop`, 200, { token: owner.token });
    expect(stopped).toMatchObject({ status: "stopped", stopped_at: new Date(clock).toISOString() });
    await fails("POST", `${P(id)}/channels/balanced/stop`, 400, "CHANNEL_NOT_RUNNING");
    await fails("POST", `${P(id)}/channels/balanced/pause`, 400, "CHANNEL_NOT_RUNNING");
    expect((await fails("POST", `${P(id)}/channels/balanced/resume`, 409, "INVALID_STATE_TRANSITION")).detail).toContain("use start");
    clock += 1000;
    const restarted = await api.json("POST", `${P(id)}/channels/balanced/start`, 200, { token: owner.token });
    expect(restarted).toMatchObject({ status: "running", started_at: new Date(clock).toISOString() });
    expect((await api.json("GET", `${P(id)}/channels/balanced`, 200, { token: owner.token })).started_at).toBe(new Date(clock).toISOString());

    // Every change went to the session's run as an event and to the socket as a channel update.
    const statuses = (await api.json("GET", `/api/v1/trading/sessions/${id}/logs?limit=500`, 200, { token: owner.token })).items.filter(
      (e: any) => e.type === "channel_status",
    );
    // The session's start started every channel (recorded with the run it made), then the channel's own changes.
    expect(statuses.map((e: any) => `${e.channel_id ?? ""}:${e.data.previous}>${e.data.status}`)).toEqual([
      ...preset.channels.map((c) => `${c.channel_id}:stopped>running`),
      "balanced:running>paused",
      "balanced:paused>stopped",
      "balanced:stopped>running",
    ]);
    const updates = pushed.filter((p) => p.connection === "machine" && p.message.type === "channel_update" && p.message.data.cause === "status_change");
    expect(updates.slice(-3).map((p) => [p.message.data.channel_id, p.message.data.status])).toEqual([
      ["balanced", "paused"],
      ["balanced", "stopped"],
      ["balanced", "running"],
    ]);
    expect(updates.at(-1)!.message.data.metrics).toEqual({ total_pnl: 0, win_rate: 0, total_trades: 0 });
  });

  it("pauses and resumes the whole session under the second prefix", async () => {
    const paused = await api.json("POST", `${Q(id)}/pause`, 200, { token: owner.token });
    expect(paused).toMatchObject({ status: "paused", previous_status: "running" });
    expect(paused.channels.map((c: any) => c.status)).toEqual(["paused", "paused", "paused"]);
    await fails("POST", `${Q(id)}/pause`, 409, "INVALID_STATE_TRANSITION");
    expect((await api.json("POST", `${Q(id)}/resume`, 200, { token: owner.token })).channels.map((c: any) => c.status)).toEqual([
      "running",
      "running",
      "running",
    ]);
  });

  it("answers 503 SERVICE_UNAVAILABLE with retry_after when the engine's run keeps changing, and 500 with a trace id on a fault", async () => {
    const runs = api.services.trading.channels.runs;
    const save = runs.save;
    runs.save = async () => false;
    try {
      const response = await api.request("POST", `${P(id)}/channels/aggressive/pause`, { token: owner.token });
      expect(response.status).toBe(503);
      expect(response.headers.get("Retry-After")).toBe("1");
      expect(await response.json()).toMatchObject({
        error_code: "SERVICE_UNAVAILABLE",
        retry_after: 1,
        path: `${P(id)}/channels/aggressive/pause`,
        timestamp: expect.any(String),
      });
    } finally {
      runs.save = save;
    }
    const configs = api.services.trading.channels.configs;
    const versions = configs.versions;
    configs.versions = async () => {
      throw new Error("disk on fire");
    };
    try {
      const body = await api.json("GET", `${P(id)}/config/history`, 500, { token: owner.token });
      expect(body).toMatchObject({
        error_code: "INTERNAL_ERROR",
        detail: "Internal server error",
        trace_id: expect.any(String),
        path: `${P(id)}/config/history`,
      });
    } finally {
      configs.versions = versions;
    }
  });
});

describe("risk limits, alerts and configuration versions", () => {
  let id: string;

  it("refuses limits outside their ranges with 400 INVALID_PARAMETER naming each, and ill-typed bodies with 422", async () => {
    // Without protective exits: a position left to fall is what these tests halt on.
    id = (await createSession({ channels: preset.channels, risk_config: { stop_loss_pct: null, take_profit_pct: null } })).id;
    const bad = await fails("PUT", `${P(id)}/channels/balanced/risk-limits`, 400, "INVALID_PARAMETER", { body: { max_drawdown: 5, leverage_limit: 50 } });
    expect(bad.detail).toContain("max_drawdown");
    expect(bad.detail).toContain("leverage_limit");
    expect(bad.errors.map((e: any) => e.field).sort()).toEqual(["leverage_limit", "max_drawdown"]);
    await fails("PUT", `${Q(id)}/channels/balanced/risk-limits`, 400, "INVALID_PARAMETER", { body: { max_drawdown: 0.001 } });
    await api.json("PUT", `${P(id)}/channels/balanced/risk-limits`, 422, { token: owner.token, body: { max_drawdown: "lots" } });
    await fails("PUT", `${P(id)}/channels/nope/risk-limits`, 404, "CHANNEL_NOT_FOUND", { body: { max_drawdown: 0.1 } });
  });

  it("keeps a change to a session that is not running as the pending version until the session starts", async () => {
    const saved = await api.json("PUT", `${P(id)}/channels/conservative/risk-limits`, 200, { token: owner.token, body: { max_daily_loss: 0.015 } });
    expect(saved).toMatchObject({ channel_id: "conservative", effective_at: null, config_version: 2, current_config_version: 1, pending_config_version: 2 });
    expect(saved.updated_limits).toEqual({ max_drawdown: 0.1, max_daily_loss: 0.015, max_loss_per_trade: 0.01, leverage_limit: 1 });
    expect((await api.json("GET", `${P(id)}/summary`, 200, { token: owner.token })).pending_config_version).toBe(2);
    expect((await api.json("GET", `${P(id)}/channels/conservative`, 200, { token: owner.token })).risk_limits.max_daily_loss).toBe(0.02);

    const history = await api.json("GET", `${P(id)}/config/history`, 200, { token: owner.token });
    expect(history).toMatchObject({ session_id: id, current_version: 1, pending_version: 2, total_versions: 2 });
    expect(history.history.map((h: any) => [h.version, h.is_current, h.is_pending, h.changed_by])).toEqual([
      [2, false, true, owner.username],
      [1, true, false, owner.id],
    ]);
    expect(history.history[0].changes).toEqual({ conservative: { risk_limits: { max_daily_loss: { from: 0.02, to: 0.015 } } } });

    await api.json("POST", `${Q(id)}/start`, 200, { token: owner.token });
    expect((await api.json("GET", `${P(id)}/config/history?limit=1`, 200, { token: owner.token })).history).toEqual([
      expect.objectContaining({ version: 2, is_current: true, is_pending: false }),
    ]);
    expect((await api.json("GET", `${P(id)}/channels/conservative/risk-report`, 200, { token: owner.token })).risk_limits.max_daily_loss).toBe(0.015);
    expect((await api.json("GET", `/api/v1/trading/sessions/${id}`, 200, { token: owner.token })).config.channels[2].risk_limits.max_daily_loss).toBe(0.015);
  });

  it("tightens a running channel's drawdown limit at once, halts it on a drawdown, raises an alert that is acknowledged once", async () => {
    clock += 60_000;
    const tightened = await api.json("PUT", `${P(id)}/channels/balanced/risk-limits`, 200, { token: owner.token, body: { max_drawdown: 0.02 } });
    expect(tightened).toMatchObject({
      effective_at: new Date(clock).toISOString(),
      config_version: 3,
      current_config_version: 3,
      pending_config_version: null,
    });

    // A manual buy in the balanced channel fills on the next bar; the price then falls by half.
    const deps = api.services.trading.sessions;
    const at = clock;
    await LiveRuns.feed(deps, id, [
      { bar: { symbol: "AAPL.US", timestamp: at - 60_000, open: 100, high: 100, low: 100, close: 100, volume: 1 }, timeframe: "1m", close_ms: at },
    ]);
    const order = await api.json("POST", "/api/v1/trading/orders", 201, {
      token: owner.token,
      body: { session_id: id, channel_id: "balanced", symbol: "AAPL.US", side: "buy", quantity: "40" },
    });
    expect(order.status).toBe("pending");
    await LiveRuns.feed(deps, id, [
      { bar: { symbol: "AAPL.US", timestamp: at, open: 100, high: 100, low: 100, close: 100, volume: 1 }, timeframe: "1m", close_ms: at + 60_000 },
      { bar: { symbol: "AAPL.US", timestamp: at + 60_000, open: 50, high: 50, low: 50, close: 50, volume: 1 }, timeframe: "1m", close_ms: at + 120_000 },
    ]);
    clock = at + 120_000;

    const report = await api.json("GET", `${P(id)}/channels/balanced/risk-report`, 200, { token: owner.token });
    expect(report).toMatchObject({ channel_id: "balanced", is_halted: true, trades_count: 1 });
    expect(report.current_drawdown).toBeGreaterThan(0.02);
    expect(report.warnings[0]).toContain("max_drawdown");
    const reports = await api.json("GET", `${Q(id)}/risk-reports`, 200, { token: owner.token });
    expect(reports.reports.map((r: any) => [r.channel_id, r.is_halted])).toEqual([
      ["aggressive", false],
      ["balanced", true],
      ["conservative", false],
    ]);
    expect((await api.json("GET", `${P(id)}/channels/balanced`, 200, { token: owner.token })).error_message).toContain("max_drawdown");
    const status = await api.json("GET", `${Q(id)}/risk-status`, 200, { token: owner.token });
    expect(status).toMatchObject({ halted_channels: ["balanced"], unacknowledged_alerts: 1 });

    const alerts = await api.json("GET", `${P(id)}/alerts`, 200, { token: owner.token });
    expect(alerts).toMatchObject({ total: 1, unacknowledged: 1 });
    const alert = alerts.alerts[0];
    expect(alert).toMatchObject({
      channel_id: "balanced",
      level: "critical",
      type: "risk_limit",
      acknowledged: false,
      acknowledged_at: null,
      acknowledged_by: null,
    });
    expect(alert.message).toContain("MAX_DRAWDOWN_BREACHED");
    expect((await api.json("GET", `${P(id)}/alerts?level=warning`, 200, { token: owner.token })).total).toBe(0);
    expect((await api.json("GET", `${P(id)}/alerts?type=risk_limit&acknowledged=false`, 200, { token: owner.token })).total).toBe(1);
    await api.json("GET", `${P(id)}/alerts?level=loud`, 422, { token: owner.token });
    const counts = await api.json("GET", `${Q(id)}/alerts/summary`, 200, { token: owner.token });
    expect(counts).toEqual({
      session_id: id,
      total_alerts: 1,
      unacknowledged_alerts: 1,
      alerts_by_level: { critical: 1, warning: 0, info: 0 },
      alerts_by_type: { risk_limit: 1, performance: 0, system: 0 },
      recent_critical_alerts_24h: 1,
    });

    clock += 5_000;
    // The request's clock behind the run's (as when bars run ahead of it): the answer is the instant stored.
    const requestClock = clock;
    clock = Date.parse(alert.timestamp) - 60_000;
    const acknowledged = await api.json("POST", `${P(id)}/alerts/${alert.alert_id}/acknowledge`, 200, { token: owner.token });
    expect(acknowledged).toMatchObject({
      alert_id: alert.alert_id,
      acknowledged: true,
      acknowledged_by: owner.username,
      message: `Alert ${alert.alert_id} acknowledged`,
    });
    expect(Date.parse(acknowledged.acknowledged_at)).toBeGreaterThanOrEqual(Date.parse(alert.timestamp));
    clock = requestClock;
    clock += 5_000;
    const again = await api.json("POST", `${Q(id)}/alerts/${alert.alert_id}/acknowledge`, 200, { token: owner.token });
    expect(again.acknowledged_at).toBe(acknowledged.acknowledged_at);
    expect((await api.json("GET", `${P(id)}/alerts?acknowledged=true`, 200, { token: owner.token })).alerts[0]).toMatchObject({
      acknowledged_by: owner.username,
      acknowledged_at: acknowledged.acknowledged_at,
    });
    expect((await api.json("GET", `${P(id)}/alerts/summary`, 200, { token: owner.token })).unacknowledged_alerts).toBe(0);
    await fails("POST", `${P(id)}/alerts/alert-999999/acknowledge`, 404, "ALERT_NOT_FOUND");
    await fails("POST", `${P(id)}/alerts/bogus/acknowledge`, 404, "ALERT_NOT_FOUND");

    // The figures read the same run.
    const breakdown = await api.json("GET", `${P(id)}/channels/breakdown`, 200, { token: owner.token });
    const balanced = breakdown.channels.find((c: any) => c.channel_id === "balanced");
    expect(balanced).toMatchObject({ capital_allocation: 0.5, contribution_to_pnl: 1 });
    expect(balanced.roi).toBeLessThan(0);
    const positions = await api.json("GET", `${Q(id)}/positions`, 200, { token: owner.token });
    expect(positions.channels.find((c: any) => c.channel_id === "balanced").positions).toEqual([
      expect.objectContaining({ symbol: "AAPL.US", quantity: "40" }),
    ]);
    const summary = await api.json("GET", `${P(id)}/summary`, 200, { token: owner.token });
    expect(summary).toMatchObject({ executed_orders: 1, total_orders: 1, pending_orders: 0, capital_used: 2000 });
    expect((await api.json("GET", `${Q(id)}/performance`, 200, { token: owner.token })).channels.balanced.total_pnl).toBe(balanced.total_pnl.toFixed(2));

    // Paused, the channel keeps its position and places nothing new (a manual order is denied as data).
    await api.json("POST", `${P(id)}/channels/balanced/pause`, 200, { token: owner.token });
    const denied = await api.json("POST", "/api/v1/trading/orders", 201, {
      token: owner.token,
      body: { session_id: id, channel_id: "balanced", symbol: "AAPL.US", side: "buy", quantity: "1" },
    });
    expect(denied.status).toBe("denied");
    expect(denied.denials.map((d: any) => d.reason)).toContain("CHANNEL_NOT_RUNNING");
    expect(
      (await api.json("GET", `${Q(id)}/positions`, 200, { token: owner.token })).channels.find((c: any) => c.channel_id === "balanced").positions,
    ).toHaveLength(1);
    await api.json("POST", `${P(id)}/channels/balanced/resume`, 200, { token: owner.token });
  });

  it("refuses a rollback while the session runs (409 SESSION_RUNNING) or to a version that does not exist (404 naming it), and rolls back once stopped", async () => {
    const running = await fails("POST", `${P(id)}/config/rollback`, 409, "SESSION_RUNNING", { body: { target_version: 1 } });
    expect(running.detail).toContain("running");
    const missing = await fails("POST", `${Q(id)}/config/rollback`, 404, "CONFIG_VERSION_NOT_FOUND", { body: { target_version: 99 } });
    expect(missing.detail).toContain("version 99");
    await api.json("POST", `${P(id)}/config/rollback`, 422, { token: owner.token, body: { target_version: "one" } });

    await api.json("POST", `${Q(id)}/pause`, 200, { token: owner.token });
    await fails("POST", `${P(id)}/config/rollback`, 409, "SESSION_RUNNING", { body: { target_version: 1 } });
    await api.json("POST", `${Q(id)}/stop`, 200, { token: owner.token });
    const rolled = await api.json("POST", `${P(id)}/config/rollback`, 200, { token: owner.token, body: { target_version: 1 } });
    expect(rolled).toMatchObject({ session_id: id, previous_version: 3, current_version: 1, rollback_time: new Date(clock).toISOString() });
    const history = await api.json("GET", `${P(id)}/config/history`, 200, { token: owner.token });
    expect(history).toMatchObject({ current_version: 1, pending_version: null, total_versions: 3 });
    expect((await api.json("GET", `${P(id)}/config/history?channel_id=balanced`, 200, { token: owner.token })).history.map((h: any) => h.version)).toEqual([
      3, 1,
    ]);
    const session = await api.json("GET", `/api/v1/trading/sessions/${id}`, 200, { token: owner.token });
    expect(session.config.channels.map((c: any) => c.risk_limits.max_drawdown)).toEqual([0.2, 0.15, 0.1]);
    const run = (await api.services.trading.sessions.runs.get(id))!;
    expect(run.setup.channels.map((c) => c.limits.max_drawdown)).toEqual([0.2, 0.15, 0.1]);

    // Deleting the session takes its configuration versions with it.
    await api.json("DELETE", `/api/v1/trading/sessions/${id}`, 200, { token: owner.token });
    expect(await api.services.trading.channels.configs.pointer(id)).toBeUndefined();
    expect(await api.services.trading.channels.configs.versions(id)).toEqual([]);
    await fails("GET", `${P(id)}/config/history`, 404, "SESSION_NOT_FOUND");
  });
});

describe("the channel stream", () => {
  it("pushes channel updates on fills and metrics periodically, and /updates?since returns exactly what was pushed after a timestamp", async () => {
    const config = {
      channels: [
        {
          channel_id: "fast",
          channel_type: "AGGRESSIVE",
          capital_allocation: 0.5,
          strategies: [{ strategy_name: "ma_crossover", parameters: { fast_period: 3, slow_period: 8 } }],
        },
        {
          channel_id: "slow",
          channel_type: "CONSERVATIVE",
          capital_allocation: 0.5,
          strategies: [{ strategy_name: "ma_crossover", parameters: { fast_period: 5, slow_period: 12 } }],
        },
      ],
      timeframe: "1m",
      execution: { sizing: { model: "cash_fraction", fraction: 0.08 } },
    };
    const session = await createSession(config);
    await watch(session.id, "stream");
    await api.json("POST", `${Q(session.id)}/start`, 200, { token: owner.token });
    const worker = new SessionWorker(api.services, { marketData: await api.services.marketData(), tickMs: 1e9, refreshMs: 1e9, metricsMs: 300_000 });
    workers.push(worker);
    await worker.start();
    for (let i = 0; i < 90; i++) {
      clock += 60_000;
      await worker.tick();
    }
    const mine = pushed.filter((p) => p.connection === "stream").map((p) => p.message);
    const fills = mine.filter((m) => m.type === "order_filled");
    expect(fills.length).toBeGreaterThan(1);
    const fillUpdates = mine.filter((m) => m.type === "channel_update" && m.data.cause === "fill");
    expect(fillUpdates.map((m) => [m.data.channel_id, m.data.sequence])).toEqual(fills.map((m) => [m.data.channel_id, m.data.sequence]));
    expect(fillUpdates[0].data).toMatchObject({
      status: "running",
      metrics: { total_pnl: expect.any(Number), win_rate: expect.any(Number), total_trades: expect.any(Number) },
    });
    const metrics = mine.filter((m) => m.type === "channel_metrics");
    expect(metrics.length).toBeGreaterThanOrEqual(2);
    expect(metrics[0].data).toMatchObject({
      channel_id: "fast",
      total_pnl: expect.any(Number),
      win_rate: expect.any(Number),
      active_positions: expect.any(Number),
    });
    // Every pushed record has its own instant.
    const stamps = mine.map((m) => Date.parse(m.timestamp));
    expect(stamps.every((t, i) => i === 0 || t > stamps[i - 1]!)).toBe(true);

    // A client that last saw record k catches up with exactly the records after it.
    const k = Math.floor(mine.length / 2);
    const caught = await api.json("GET", `${P(session.id)}/updates?since=${encodeURIComponent(mine[k].timestamp)}`, 200, { token: owner.token });
    expect(caught).toMatchObject({ session_id: session.id, count: mine.length - k - 1, has_more: false, last_timestamp: mine.at(-1).timestamp });
    expect(caught.updates).toEqual(mine.slice(k + 1));
    const everything = await api.json("GET", `${P(session.id)}/updates`, 200, { token: owner.token });
    expect(everything.updates).toEqual(mine);
    const paged = await api.json("GET", `${P(session.id)}/updates?since=${encodeURIComponent(mine[0].timestamp)}&limit=2`, 200, { token: owner.token });
    expect(paged).toMatchObject({ count: 2, has_more: true, last_timestamp: mine[2].timestamp });
    const none = await api.json("GET", `${P(session.id)}/updates?since=${encodeURIComponent(mine.at(-1).timestamp)}`, 200, { token: owner.token });
    expect(none).toMatchObject({ updates: [], count: 0, last_timestamp: mine.at(-1).timestamp, has_more: false });
    await api.json("GET", `${P(session.id)}/updates?since=yesterday`, 422, { token: owner.token });
    await fails("GET", `${P(session.id)}/updates`, 403, "ACCESS_DENIED", { token: stranger.token });

    const channels = await api.json("GET", `${P(session.id)}/channels`, 200, { token: owner.token });
    const totalTrades = channels.channels.reduce((sum: number, c: any) => sum + c.metrics.total_trades, 0);
    const summary = await api.json("GET", `${P(session.id)}/summary`, 200, { token: owner.token });
    expect(summary.total_trades).toBe(totalTrades);
    expect(summary.executed_orders).toBe(fills.length);
    const all = await api.json("GET", `${Q(session.id)}/metrics`, 200, { token: owner.token });
    expect(all.channels.map((m: any) => m.channel_id)).toEqual(["fast", "slow"]);
  });

  it("journals no channel_metrics while no socket listens, pushes them at the next period once one does, and never the same figures twice in a row", async () => {
    const config = {
      channels: [
        {
          channel_id: "solo",
          channel_type: "BALANCED",
          capital_allocation: 1,
          strategies: [{ strategy_name: "ma_crossover", parameters: { fast_period: 3, slow_period: 8 } }],
        },
      ],
      timeframe: "1m",
      execution: { sizing: { model: "cash_fraction", fraction: 0.08 } },
    };
    const session = await createSession(config);
    await api.json("POST", `${Q(session.id)}/start`, 200, { token: owner.token });
    // A metrics period of two bars: every other step pushes, when someone listens.
    const worker = new SessionWorker(api.services, { marketData: await api.services.marketData(), tickMs: 1e9, refreshMs: 1e9, metricsMs: 120_000 });
    workers.push(worker);
    await worker.start();
    const types = async () => (await api.json("GET", `${P(session.id)}/updates?limit=1000`, 200, { token: owner.token })).updates.map((u: any) => u.type);
    for (let i = 0; i < 10; i++) {
      clock += 60_000;
      await worker.tick();
    }
    expect(await types()).not.toContain("channel_metrics");
    await watch(session.id, "late");
    // Twenty bars: ten metrics periods, each pushing when the figures moved since the last push (the first always).
    for (let i = 0; i < 20; i++) {
      clock += 60_000;
      await worker.tick();
    }
    const metrics = pushed.filter((p) => p.connection === "late" && p.message.type === "channel_metrics");
    const figures = metrics.map(({ message: { data } }) => JSON.stringify({ ...data, timestamp: undefined }));
    expect(figures.length).toBeGreaterThanOrEqual(1);
    expect(figures.length).toBeLessThanOrEqual(10);
    expect(figures.every((f, i) => i === 0 || f !== figures[i - 1])).toBe(true);
    expect(metrics.every((p) => p.message.data.channel_id === "solo")).toBe(true);
    expect((await types()).filter((t: string) => t === "channel_metrics")).toHaveLength(figures.length);
  });
});

describe("the update feed", () => {
  it("keeps one strictly increasing order when two processes append to the same session at once", async () => {
    const { DynamoUpdateFeed } = await import("../../packages/adapters/src/stores/channel-store");
    const a = new DynamoUpdateFeed(api.services.db);
    const b = new DynamoUpdateFeed(api.services.db);
    const sessionId = `feed-${Date.now()}`;
    const batch = (writer: string, n: number) => Array.from({ length: n }, (_, i) => ({ type: "channel_metrics", data: { writer, i } }));
    // Both start from the same instant; `b` also holds a stale guess of the head after its first batch.
    await b.append(sessionId, batch("b0", 1), clock);
    await Promise.all([a.append(sessionId, batch("a", 150), clock), b.append(sessionId, batch("b", 5), clock), a.append(sessionId, batch("a2", 3), clock)]);
    const all = await a.since(sessionId, null, 1000);
    expect(all).toHaveLength(159);
    const stamps = all.map((r) => Date.parse(r.timestamp));
    expect(stamps.every((t, i) => i === 0 || t > stamps[i - 1]!)).toBe(true);
    expect(all.filter((r) => r.data.writer === "a").map((r) => r.data.i)).toEqual([...Array(150).keys()]);
    expect(await a.since(sessionId, stamps[100]!, 1000)).toEqual(all.slice(101));
  });

  it("appends many sessions' records together (appendMany), each session's in order after another writer's, as append would", async () => {
    const { DynamoUpdateFeed } = await import("../../packages/adapters/src/stores/channel-store");
    const worker = new DynamoUpdateFeed(api.services.db);
    const other = new DynamoUpdateFeed(api.services.db);
    const [s1, s2, s3] = ["one", "two", "three"].map((name) => `feed-many-${name}-${Date.now()}`) as [string, string, string];
    const batch = (writer: string, n: number) => Array.from({ length: n }, (_, i) => ({ type: "channel_update", data: { writer, i } }));
    // The worker knows s2's head; another process then moves it (the worker's guess is stale).
    await worker.append(s2, batch("first", 1), clock);
    await other.append(s2, batch("other", 2), clock);
    const settled = await worker.appendMany([
      { sessionId: s1, messages: batch("w1", 2), now: clock },
      { sessionId: s2, messages: batch("w2", 2), now: clock },
      { sessionId: s1, messages: batch("w1 again", 1), now: clock },
      { sessionId: s3, messages: batch("w3", 120), now: clock },
    ]);
    const records = settled.map((o) => (o.status === "fulfilled" ? o.value : []));
    expect(settled.every((o) => o.status === "fulfilled")).toBe(true);
    expect(records.map((r) => r.length)).toEqual([2, 2, 1, 120]);
    const writers = async (id: string) => (await worker.since(id, null, 1000)).map((r) => `${r.data.writer} ${r.data.i}`);
    expect(await writers(s1)).toEqual(["w1 0", "w1 1", "w1 again 0"]);
    expect(await writers(s2)).toEqual(["first 0", "other 0", "other 1", "w2 0", "w2 1"]);
    expect((await writers(s3)).length).toBe(120);
    // What each append answered is what the feed holds after it, timestamps strictly increasing per session.
    const all = await worker.since(s2, null, 1000);
    expect(all.slice(3)).toEqual(records[1]);
    const stamps = all.map((r) => Date.parse(r.timestamp));
    expect(stamps.every((t, i) => i === 0 || t > stamps[i - 1]!)).toBe(true);
  });
});

describe("the update feed's items", () => {
  it("stores an append's records together (at most 50 or 64 KB of JSON an item, the newest in the head), pages them by record, and reads the items of one record written before", async () => {
    const { DynamoUpdateFeed } = await import("../../packages/adapters/src/stores/channel-store");
    const { Keys } = await import("../../packages/adapters/src/dynamo/keys");
    const feed = new DynamoUpdateFeed(api.services.db);
    const sessionId = `feed-items-${Date.now()}`;
    const start = Date.parse("2024-03-15T14:00:00Z");
    // Items of the earlier shape: one record each, its fields in the item.
    const old = [0, 1].map((i) => ({
      ...Keys.sessionUpdate(sessionId, start + i),
      _type: "SessionUpdate",
      session_id: sessionId,
      at: start + i,
      type: "log",
      data: { i },
      timestamp: new Date(start + i).toISOString(),
      expires_at: Math.floor(Date.now() / 1000) + 3600,
    }));
    for (const item of old) await api.services.db.client.send(new PutCommand({ TableName: api.services.db.tableName, Item: item }));
    await api.services.db.client.send(
      new PutCommand({
        TableName: api.services.db.tableName,
        Item: { ...Keys.sessionUpdatesHead(sessionId), _type: "SessionUpdateHead", session_id: sessionId, at: start + 1, version: 1 },
      }),
    );

    const large = { type: "log", data: { pad: "x".repeat(70_000) } };
    const messages = [
      ...Array.from({ length: 120 }, (_, i) => ({ type: "channel_update", data: { i } })),
      large,
      ...Array.from({ length: 3 }, (_, i) => ({ type: "channel_update", data: { i: 120 + i } })),
    ];
    const written = await feed.append(sessionId, messages, start);
    expect(written.map((r) => Date.parse(r.timestamp))).toEqual(messages.map((_, i) => start + 2 + i));
    const feedQuery = {
      TableName: api.services.db.tableName,
      KeyConditionExpression: "pk = :pk",
      ExpressionAttributeValues: { ":pk": Keys.sessionUpdates(sessionId) },
    };
    const items = await api.services.db.client.send(new QueryCommand(feedQuery));
    // Two old items; a transaction of 99 records (50 in an item, 49 in the head) and one of the rest (the head's 49 to an
    // item, 21, the large one alone, and the last three in the head).
    const count = (item: Record<string, any>) => (item.records ? JSON.parse(item.records).length : 1);
    expect(items.Items!.filter((i) => i.sk !== "HEAD").map(count)).toEqual([1, 1, 50, 49, 21, 1]);
    const head = items.Items!.find((i) => i.sk === "HEAD")!;
    expect([count(head), head.count, head.at, head.version]).toEqual([3, 3, start + 2 + 123, 3]);

    const all = await feed.since(sessionId, null, 1000);
    expect(all.map((r) => r.data)).toEqual([{ i: 0 }, { i: 1 }, ...messages.map((m) => m.data)]);
    expect(all.slice(2)).toEqual(written);
    // Paged by record: `since` in the middle of an item, `limit` ending in the middle of one.
    expect(await feed.since(sessionId, start + 1, 1000)).toEqual(written);
    expect(await feed.since(sessionId, start + 30, 10)).toEqual(all.slice(31, 41));
    expect(await feed.since(sessionId, start + 2 + 123, 10)).toEqual([]);
    const pages: unknown[] = [];
    for (let since: number | null = null; ; ) {
      const page = await feed.since(sessionId, since, 7);
      if (page.length === 0) break;
      pages.push(...page);
      since = Date.parse(page.at(-1)!.timestamp);
    }
    expect(pages).toEqual(all);

    // An append that fits beside the head's records writes the head alone (no item more), and reads after it as before.
    const more = await feed.append(sessionId, [{ type: "channel_update", data: { i: 200 } }], start);
    const after = (await api.services.db.client.send(new QueryCommand(feedQuery))).Items!;
    expect(after.filter((i) => i.sk !== "HEAD").map(count)).toEqual([1, 1, 50, 49, 21, 1]);
    expect(count(after.find((i) => i.sk === "HEAD")!)).toBe(4);
    expect(await feed.since(sessionId, start + 2 + 122, 10)).toEqual([written.at(-1), ...more]);
    expect(await feed.since(sessionId, null, 1000)).toEqual([...all, ...more]);
  });
});

describe("the connections of many topics (the worker's step looks them up together)", () => {
  it("answers every topic asked for, with its own connections only, beyond one statement's 50 partitions", async () => {
    const { DynamoConnectionStore } = await import("../../packages/adapters/src/stores/connection-store");
    const store = new DynamoConnectionStore(api.services.db);
    const run = `topics-${Date.now()}`;
    const topics = Array.from({ length: 60 }, (_, i) => `session:${run}-${i}`);
    const connected_at = new Date().toISOString();
    const expires_at = Math.floor(Date.now() / 1000) + 3600;
    // Two sockets on topic 0, one on topic 59, none on the rest.
    for (const [id, topic] of [
      ["c-a", topics[0]!],
      ["c-b", topics[0]!],
      ["c-c", topics[59]!],
    ] as const)
      await store.add({ connection_id: `${run}-${id}`, topic, connected_at, expires_at });
    const found = await store.byTopics(topics);
    expect([...found.keys()]).toEqual(topics);
    expect(
      found
        .get(topics[0]!)!
        .map((c) => c.connection_id)
        .sort(),
    ).toEqual([`${run}-c-a`, `${run}-c-b`]);
    expect(found.get(topics[59]!)!.map((c) => c.connection_id)).toEqual([`${run}-c-c`]);
    expect(found.get(topics[1]!)).toEqual([]);
    expect(found.get(topics[0]!)).toEqual(expect.arrayContaining(await store.byTopic(topics[0]!)));
  });
});
