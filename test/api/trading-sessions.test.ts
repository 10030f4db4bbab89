import { beforeAll, describe, expect, it } from "vitest";
import { ChannelPresets } from "../../packages/core/src/channel-presets/index";
import { createTestApi, type TestApi } from "../support/harness";

let api: TestApi;
let owner: { id: string; token: string };
let stranger: { id: string; token: string };

beforeAll(async () => {
  api = await createTestApi();
  owner = await api.createUser();
  stranger = await api.createUser();
});

const sessionBody = (overrides: Record<string, unknown> = {}) => ({
  session_name: "Crossover on Apple",
  trading_mode: "simulation",
  asset_mode: "simulated",
  initial_capital: 100000,
  tradable_symbols: ["aapl.us"],
  config: { strategy_name: "ma_crossover", parameters: { fast_period: 5 } },
  ...overrides,
});

const createSession = (overrides: Record<string, unknown> = {}, token = owner.token) =>
  api.json("POST", "/api/v1/trading/sessions", 201, { token, body: sessionBody(overrides) });

describe("trading sessions", () => {
  it("creates a one-channel session whose missing strategy parameters take their defaults", async () => {
    const session = await createSession();
    expect(session).toMatchObject({
      user_id: owner.id,
      session_name: "Crossover on Apple",
      trading_mode: "simulation",
      status: "created",
      strategy_name: "ma_crossover",
      initial_capital: "100000",
      tradable_symbols: ["AAPL.US"],
      strategy_params: { fast_period: 5, slow_period: 30, ma_type: "sma", allow_short: false },
    });
    expect(session.config.channels).toHaveLength(1);
    expect(session.config.channels[0]).toMatchObject({ channel_id: "main", capital_allocation: 1, risk_limits: { max_drawdown: 0.2 } });
    expect(session.config.symbols).toEqual(["AAPL.US"]);
    expect(session.config.execution).toMatchObject({ fill: "next_open", commission: { model: "broker", broker_type: "longport" } });
  });

  it("takes a channel preset's content as config as it is, ignoring unknown keys", async () => {
    const preset = ChannelPresets.get("balanced-multi");
    const session = await createSession({ config: { ...preset, ui_colour: "teal" } });
    expect(session.strategy_name).toBe("multi_channel");
    expect(session.config.channels.map((c: { channel_id: string }) => c.channel_id)).toEqual(["aggressive", "balanced", "conservative"]);
    expect(session.config.ui_colour).toBeUndefined();
  });

  it("makes a session without channels from an empty config", async () => {
    const session = await createSession({ config: {} });
    expect(session.strategy_name).toBe("none");
    expect(session.config.channels).toEqual([]);
  });

  it("answers 422 listing every problem of a bad body", async () => {
    const body = await api.json("POST", "/api/v1/trading/sessions", 422, {
      token: owner.token,
      body: sessionBody({
        trading_mode: "papier",
        initial_capital: -5,
        config: { strategy_name: "nope", channels: [{ channel_id: "a b", capital_allocation: 2, strategies: [] }] },
      }),
    });
    const locs = body.detail.map((d: { loc: string[] }) => d.loc.join("."));
    expect(locs).toEqual(expect.arrayContaining(["body.trading_mode", "body.initial_capital"]));
  });

  it("reports every config problem with its location", async () => {
    const body = await api.json("POST", "/api/v1/trading/sessions", 422, {
      token: owner.token,
      body: sessionBody({
        config: {
          channels: [
            { channel_id: "x", capital_allocation: 0.7, strategies: [{ strategy_name: "ma_crossover", parameters: { fast_period: 50, slow_period: 20 } }] },
            { channel_id: "x", capital_allocation: 0.6, strategies: [{ strategy_name: "unknown_strategy" }] },
          ],
        },
      }),
    });
    const locs = body.detail.map((d: { loc: (string | number)[] }) => d.loc.join("."));
    expect(locs).toEqual(
      expect.arrayContaining([
        "body.config.channels.0.strategies.0.parameters.fast_period",
        "body.config.channels.1.channel_id",
        "body.config.channels.1.strategies.0.strategy_name",
        "body.config.channels",
      ]),
    );
  });

  it("shows a configuration's timeframe as its execution's timeframe too, and refuses two different ones", async () => {
    const created = await api.json("POST", "/api/v1/trading/sessions", 201, {
      token: owner.token,
      body: sessionBody({ config: { strategy_name: "ma_crossover", timeframe: "5m" } }),
    });
    expect([created.config.timeframe, created.config.execution.timeframe]).toEqual(["5m", "5m"]);
    const fromExecution = await api.json("POST", "/api/v1/trading/sessions", 201, {
      token: owner.token,
      body: sessionBody({ config: { execution: { timeframe: "1h" } } }),
    });
    expect([fromExecution.config.timeframe, fromExecution.config.execution.timeframe]).toEqual(["1h", "1h"]);
    const both = await api.json("POST", "/api/v1/trading/sessions", 422, {
      token: owner.token,
      body: sessionBody({ config: { timeframe: "5m", execution: { timeframe: "1h" } } }),
    });
    expect(both.detail.map((d: { loc: string[] }) => d.loc)).toEqual([["body", "config", "timeframe"]]);
  });

  it("locates a configuration's problem under body, once", async () => {
    const body = await api.json("POST", "/api/v1/trading/sessions", 422, { token: owner.token, body: sessionBody({ config: { strategy_name: "ma_cross" } }) });
    expect(body.detail.map((d: { loc: (string | number)[] }) => d.loc)).toEqual([["body", "config", "strategy_name"]]);
  });

  it("keeps an execution's participation cap and refuses one outside (0, 1], listing every bad execution field", async () => {
    const created = await api.json("POST", "/api/v1/trading/sessions", 201, {
      token: owner.token,
      body: sessionBody({ config: { execution: { max_participation: 0.25 } } }),
    });
    expect(created.config.execution).toMatchObject({ max_participation: 0.25, slippage_bps: 0 });
    const body = await api.json("POST", "/api/v1/trading/sessions", 422, {
      token: owner.token,
      body: sessionBody({ config: { execution: { max_participation: 0, slippage_bps: -1, warm_up: "yes" } } }),
    });
    const locs = body.detail.map((d: { loc: (string | number)[] }) => d.loc.join("."));
    expect(locs).toEqual(
      expect.arrayContaining(["body.config.execution.max_participation", "body.config.execution.slippage_bps", "body.config.execution.warm_up"]),
    );
  });

  it("moves through the state machine and answers 409 naming the state for illegal transitions", async () => {
    const { id } = await createSession();
    const path = `/api/v1/trading/sessions/${id}`;
    const conflict = await api.json("POST", `${path}/pause`, 409, { token: owner.token });
    expect(conflict).toMatchObject({ error_code: "INVALID_STATE_TRANSITION", current_status: "created" });
    const started = await api.json("POST", `${path}/start`, 200, { token: owner.token });
    expect(started.status).toBe("running");
    expect(started.start_time).not.toBeNull();
    expect((await api.json("POST", `${path}/pause`, 200, { token: owner.token })).status).toBe("paused");
    expect((await api.json("POST", `${path}/resume`, 200, { token: owner.token })).status).toBe("running");
    const deleting = await api.request("DELETE", path, { token: owner.token });
    expect(deleting.status).toBe(409);
    const stopped = await api.json("POST", `${path}/stop`, 200, { token: owner.token });
    expect(stopped).toMatchObject({ status: "stopped" });
    expect(stopped.end_time).not.toBeNull();
    expect((await api.json("PUT", path, 200, { token: owner.token, body: { status: "running" } })).status).toBe("running");
  });

  it("refuses a backtest session's start: it runs through /backtest/start", async () => {
    const { id } = await createSession({ trading_mode: "backtest" });
    const refused = await api.json("POST", `/api/v1/trading/sessions/${id}/start`, 409, { token: owner.token });
    expect(refused.detail).toContain("/api/v1/backtest/start");
  });

  it("answers 403 ACCESS_DENIED for another user's session and 404 SESSION_NOT_FOUND for an unknown one", async () => {
    const { id } = await createSession();
    for (const path of [`/api/v1/trading/sessions/${id}`, `/api/v1/trading/sessions/${id}/performance`, `/api/v1/risk/sessions/${id}/summary`]) {
      const denied = await api.json("GET", path, 403, { token: stranger.token });
      expect(denied.error_code).toBe("ACCESS_DENIED");
    }
    const missing = await api.json("GET", "/api/v1/trading/sessions/does-not-exist", 404, { token: owner.token });
    expect(missing.error_code).toBe("SESSION_NOT_FOUND");
  });

  it("lists the caller's sessions newest first, by status, with limit and offset", async () => {
    const user = await api.createUser();
    const a = await createSession({ session_name: "a" }, user.token);
    const b = await createSession({ session_name: "b" }, user.token);
    await api.json("POST", `/api/v1/trading/sessions/${a.id}/start`, 200, { token: user.token });
    const all = await api.json("GET", "/api/v1/trading/sessions", 200, { token: user.token });
    expect(all.map((s: { id: string }) => s.id)).toEqual([b.id, a.id]);
    const running = await api.json("GET", "/api/v1/trading/sessions?status=running", 200, { token: user.token });
    expect(running.map((s: { id: string }) => s.id)).toEqual([a.id]);
    const second = await api.json("GET", "/api/v1/trading/sessions?limit=1&offset=1", 200, { token: user.token });
    expect(second.map((s: { id: string }) => s.id)).toEqual([a.id]);
    expect((await api.request("GET", "/api/v1/trading/sessions?limit=0", { token: user.token })).status).toBe(422);
  });

  it("updates the risk configuration, refusing max_drawdown outside 0.01 to 1.0", async () => {
    const { id } = await createSession();
    const bad = await api.request("PUT", `/api/v1/risk/sessions/${id}/config`, { token: owner.token, body: { config: { max_drawdown: 1.5 } } });
    expect(bad.status).toBe(422);
    const ok = await api.json("PUT", `/api/v1/risk/sessions/${id}/config`, 200, { token: owner.token, body: { config: { max_drawdown: 0.12 } } });
    expect(ok.risk_config.max_drawdown).toBe(0.12);
    const session = await api.json("GET", `/api/v1/trading/sessions/${id}`, 200, { token: owner.token });
    expect(session.config.risk_config.max_drawdown).toBe(0.12);
  });

  it("validates an order against the session's checks and lists every denial", async () => {
    const { id } = await createSession();
    const result = await api.json("POST", "/api/v1/trading/orders/validate", 200, {
      token: owner.token,
      body: { session_id: id, symbol: "AAPL.US", side: "buy", order_type: "limit", quantity: 2000, price: 100 },
    });
    expect(result.valid).toBe(false);
    expect(result.denials.map((d: { reason: string }) => d.reason)).toEqual([
      "INSUFFICIENT_CASH",
      "MAX_POSITION_EXCEEDED",
      "MAX_EXPOSURE_EXCEEDED",
      "MAX_LOSS_PER_TRADE_EXCEEDED",
    ]);
    expect(result.denials[1].values).toMatchObject({ position_value: 200000, equity: 100000, max: 0.1 });
    const small = await api.json("POST", "/api/v1/trading/orders/validate", 200, {
      token: owner.token,
      body: { session_id: id, symbol: "AAPL.US", side: "buy", order_type: "limit", quantity: 10, price: 100 },
    });
    expect(small).toMatchObject({ valid: true, denials: [], channel_id: "main", reference_price: "100" });
  });

  it("shows a session that has not run at its starting capital in every view", async () => {
    const { id } = await createSession();
    const token = owner.token;
    const perf = await api.json("GET", `/api/v1/trading/sessions/${id}/performance`, 200, { token });
    expect(perf.session).toMatchObject({ initial_equity: "100000.00", final_equity: "100000.00", total_trades: 0 });
    expect(Object.keys(perf.channels)).toEqual(["main"]);
    expect(await api.json("GET", `/api/v1/trading/sessions/${id}/orders`, 200, { token })).toMatchObject({ orders: [], count: 0 });
    expect(await api.json("GET", `/api/v1/trading/sessions/${id}/logs?level=warning`, 200, { token })).toMatchObject({ items: [] });
    expect(await api.json("GET", `/api/v1/trading/sessions/${id}/positions/latest`, 200, { token })).toMatchObject({ positions: [], cash: { USD: "100000" } });
    expect(await api.json("GET", `/api/v1/trading/sessions/${id}/engine/status`, 200, { token })).toMatchObject({
      engine_state: "not_started",
      channels: [{ channel_id: "main", halted: false }],
    });
    const summary = await api.json("GET", `/api/v1/trading/sessions/${id}/risk/summary`, 200, { token });
    expect(summary.channels[0]).toMatchObject({ channel_id: "main", is_halted: false, risk_utilization: { drawdown_usage: 0 } });
    const advice = await api.json("GET", `/api/v1/risk/sessions/${id}/recommendations`, 200, { token });
    expect(advice.recommendations[0].code).toBe("WITHIN_LIMITS");
    expect((await api.json("POST", `/api/v1/risk/sessions/${id}/reset-daily`, 200, { token })).success).toBe(true);
    expect((await api.request("GET", `/api/v1/trading/sessions/${id}/logs?level=loud`, { token })).status).toBe(422);
  });

  it("deletes a stopped session and answers 404 for an unknown order", async () => {
    const { id } = await createSession();
    expect((await api.json("DELETE", `/api/v1/trading/sessions/${id}`, 200, { token: owner.token })).success).toBe(true);
    expect((await api.request("GET", `/api/v1/trading/sessions/${id}`, { token: owner.token })).status).toBe(404);
    const order = await api.json("GET", "/api/v1/trading/orders/none-1", 404, { token: owner.token });
    expect(order.error_code).toBe("ORDER_NOT_FOUND");
  });
});
