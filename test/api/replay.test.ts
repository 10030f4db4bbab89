import { describe, expect, it } from "vitest";
import { closeDayAtEnd, closeDayBefore } from "../../packages/core/src/trading/drivers/rollover";
import type { EngineEvent } from "../../packages/core/src/engine/events";
import { WorkerHarness } from "../support/worker-harness";
import { firstSteps, intradayBars, merged, storeBars, warmedEngine } from "../support/stored-bars";

/**
 * Replays over HTTP against DynamoDB Local: a session's configuration run over stored 5-minute
 * candles on its own run, stepped, played by the session worker's loop at a speed on a manual
 * h.clock (surviving a worker restart), paused, sought backwards and forwards, and finished with
 * exactly the events of one straight engine run; the session's own run is never touched.
 */
const DAYS = ["2024-04-01", "2024-04-02", "2024-04-03"];
const { fine } = intradayBars("AAPL.US", DAYS, 11, 1);
const ALL = merged([{ timeframe: "5m", bars: fine }]);
const h = WorkerHarness.forSuite("2024-06-03T12:00:00Z", { pinFromStart: true, setup: (h) => storeBars(h.api.services, "5m", fine) });

const config = {
  strategy_name: "ma_crossover",
  parameters: { fast_period: 3, slow_period: 8 },
  symbols: ["AAPL.US"],
  timeframe: "5m",
  execution: { sizing: { model: "cash_fraction", fraction: 0.08 }, commission: { model: "percent", rate: 0.001 } },
};

const comparable = (events: { sequence: number; type: string; data: unknown }[]) => events.map((e) => ({ sequence: e.sequence, type: e.type, data: e.data }));

/** The replay run's stored events, in sequence order. */
async function replayEvents(sessionId: string): Promise<EngineEvent[]> {
  const out: EngineEvent[] = [];
  let cursor: string | undefined;
  do {
    const page = await h.api.services.trading.drivers.runs.events(`${sessionId}-replay`, { limit: 500, cursor });
    out.push(...page.items.map(({ run_id: _r, level: _l, category: _c, ...event }) => event as EngineEvent));
    cursor = page.cursor;
  } while (cursor);
  return out;
}

/** One engine with the replay's setup fed the first `steps` bars (all of them, and the day close, when `steps` is null). */
async function straight(sessionId: string, steps: number | null): Promise<EngineEvent[]> {
  const run = (await h.api.services.trading.drivers.runs.get(`${sessionId}-replay`))!;
  const engine = await warmedEngine(h.api.services, run);
  for (const { bar, timeframe } of steps === null ? ALL : firstSteps(ALL, "5m", steps)) {
    closeDayBefore(run, engine, bar.timestamp);
    engine.onBar({ ...bar }, timeframe);
  }
  if (steps === null) closeDayAtEnd(run, engine);
  return engine.drainEvents();
}

const closeOf = (step: number) => new Date(fine[step - 1]!.timestamp + 300_000).toISOString();

describe("replay", () => {
  let id: string;
  const path = (suffix: string) => `/api/v1/trading/sessions/${id}/replay/${suffix}`;
  const control = (body: unknown, status = 200) => h.api.json("POST", path("control"), status, { token: h.token, body });

  it("answers 404 REPLAY_NOT_FOUND before a start and 422 listing every problem of a start", async () => {
    const session = await h.api.json("POST", "/api/v1/trading/sessions", 201, {
      token: h.token,
      body: { session_name: "replayed", trading_mode: "simulation", asset_mode: "simulated", initial_capital: "100000", config },
    });
    id = session.id;
    await h.api.services.realtime.connections.add({
      connection_id: "watcher",
      topic: `session:${id}`,
      user_id: "x",
      connected_at: new Date().toISOString(),
      expires_at: Math.floor(Date.now() / 1000) + 7200,
    });
    expect((await h.api.json("GET", path("status"), 404, { token: h.token })).error_code).toBe("REPLAY_NOT_FOUND");
    expect((await control({ action: "play" }, 404)).error_code).toBe("REPLAY_NOT_FOUND");
    const bad = await h.api.json("POST", path("start"), 422, { token: h.token, body: { start_date: "2024-04-03", end_date: "2024-04-01", speed: -1 } });
    const locs = bad.detail.map((d: { loc: (string | number)[] }) => d.loc.join("."));
    expect(locs).toEqual(expect.arrayContaining(["body.speed"]));
    const order = await h.api.json("POST", path("start"), 422, { token: h.token, body: { start_date: "2024-04-03", end_date: "2024-04-01" } });
    expect(order.detail.map((d: { loc: (string | number)[] }) => d.loc.join("."))).toEqual(["body.end_date"]);
    const long = await h.api.json("POST", path("start"), 422, { token: h.token, body: { start_date: "2000-01-01", end_date: "2024-01-01" } });
    expect(long.detail).toEqual([expect.objectContaining({ loc: ["body", "end_date"], type: "range_too_long" })]);
    expect((await control({ action: "rewind" }, 422)).error_code).toBeDefined();
  });

  it("warms its strategies up on the stored bars before its range, as a simulation session does on the market's history", async () => {
    const other = await h.api.json("POST", "/api/v1/trading/sessions", 201, {
      token: h.token,
      body: { session_name: "warmed replay", trading_mode: "simulation", asset_mode: "simulated", initial_capital: "100000", config },
    });
    await h.api.json("POST", `/api/v1/trading/sessions/${other.id}/replay/start`, 200, {
      token: h.token,
      body: { start_date: DAYS[1], end_date: DAYS[2], paused: true },
    });
    const [line] = await replayEvents(other.id);
    expect(line).toMatchObject({ type: "log", data: { warm_up: { symbol: "AAPL.US", timeframe: "5m", bars: 9, wanted: 9 } } }); // slow_period 8, and the bar before
    // The last bar of history is the last 5-minute bar of the day before the range.
    expect(line!.time).toBe(Date.parse(`${DAYS[0]}T20:00:00Z`));
  });

  it("starts paused at the beginning of the range and steps bar by bar like one engine fed those bars", async () => {
    const started = await h.api.json("POST", path("start"), 200, { token: h.token, body: { start_date: DAYS[0], end_date: DAYS[2], speed: 20, paused: true } });
    expect(started).toMatchObject({
      session_id: id,
      run_id: `${id}-replay`,
      state: "paused",
      speed: 20,
      steps: 0,
      cursor: null,
      progress: 0,
      step_timeframe: "5m",
      timezone: "America/New_York",
    });
    const one = await control({ action: "step" });
    expect(one).toMatchObject({ state: "paused", steps: 1, cursor: closeOf(1) });
    const ten = await control({ action: "step", bars: 9 });
    expect(ten).toMatchObject({ steps: 10, cursor: closeOf(10), bars: 10 });
    expect(comparable(await replayEvents(id))).toEqual(comparable(await straight(id, 10)));
    expect(ten).toMatchObject({ steps_total: fine.length, progress: Math.round((10 / fine.length) * 1e6) / 1e6 });
  });

  it("plays in the worker at its speed, survives a worker restart, streams its events, and pauses", async () => {
    h.pushed.length = 0;
    const playing = await control({ action: "play" });
    expect(playing.state).toBe("playing");
    // A playing replay takes no steps or second play: it names its state.
    expect(await control({ action: "step" }, 409)).toMatchObject({ error_code: "INVALID_STATE_TRANSITION", current_status: "playing" });
    expect((await control({ action: "play" }, 409)).current_status).toBe("playing");

    const first = await h.newWorker();
    h.clock += 2_000; // 20 steps a second
    await first.tick();
    expect((await h.api.json("GET", path("status"), 200, { token: h.token })).steps).toBe(50);
    await first.stop();
    const second = await h.newWorker();
    h.clock += 1_000;
    await second.tick();
    const status = await h.api.json("GET", path("status"), 200, { token: h.token });
    expect(status).toMatchObject({ state: "playing", steps: 70, cursor: closeOf(70) });
    expect(comparable(await replayEvents(id))).toEqual(comparable(await straight(id, 70)));
    // Streamed like a live session, on the session's topic, marked as the replay's.
    const before = (await straight(id, 10)).length;
    const expected = (await straight(id, 70)).filter((e) => e.sequence > before);
    expect(h.pushed.map((m) => m.data.sequence)).toEqual(expected.map((e) => e.sequence));
    expect(h.pushed.every((m) => m.data.replay === true && m.data.run_id === `${id}-replay`)).toBe(true);

    expect((await control({ action: "pause" })).state).toBe("paused");
    h.clock += 5_000;
    await second.tick();
    expect((await h.api.json("GET", path("status"), 200, { token: h.token })).steps).toBe(70);
    expect(await control({ action: "pause" }, 409)).toMatchObject({ error_code: "INVALID_STATE_TRANSITION", current_status: "paused" });
  });

  it("seeks backwards and forwards to exactly the state of a straight run to the same point", async () => {
    const back = await control({ action: "seek", to: closeOf(25) });
    expect(back).toMatchObject({ state: "paused", steps: 25, cursor: closeOf(25) });
    expect(comparable(await replayEvents(id))).toEqual(comparable(await straight(id, 25)));
    const forward = await control({ action: "seek", to: closeOf(120) });
    expect(forward).toMatchObject({ steps: 120, cursor: closeOf(120) });
    expect(comparable(await replayEvents(id))).toEqual(comparable(await straight(id, 120)));
  });

  it("keeps playing when the worker's loop reads the run between the marker and the play", async () => {
    const markers = h.api.services.trading.drivers.replays;
    const mark = markers.mark.bind(markers);
    let raced = 0;
    // The loop runs right after the first marking: it sees the run still paused and drops the marker.
    markers.mark = async (runId) => {
      await mark(runId);
      if (raced++ === 0) await h.workers.at(-1)!.tick();
    };
    try {
      expect((await control({ action: "play" })).state).toBe("playing");
    } finally {
      markers.mark = mark;
    }
    expect(raced).toBe(2);
    expect(await markers.list()).toContain(`${id}-replay`);
    h.clock += 1_000;
    await h.workers.at(-1)!.tick();
    expect((await h.api.json("GET", path("status"), 200, { token: h.token })).steps).toBe(140);
    expect((await control({ action: "pause" })).state).toBe("paused");
  });

  it("plays to the end at a new speed after a seek, equal to one straight run, then refuses to play", async () => {
    await control({ action: "seek", to: closeOf(40) });
    expect((await control({ action: "speed", speed: 1000 })).speed).toBe(1000);
    await control({ action: "play" });
    const worker = h.workers.at(-1)!;
    h.clock += 10_000;
    await worker.tick();
    const done = await h.api.json("GET", path("status"), 200, { token: h.token });
    expect(done).toMatchObject({ state: "finished", steps: fine.length, progress: 1, cursor: closeOf(fine.length) });
    expect(comparable(await replayEvents(id))).toEqual(comparable(await straight(id, null)));
    const events = await replayEvents(id);
    expect(events.some((e) => e.type === "order_filled")).toBe(true);
    // Event times never go backwards within the run; each day ends at the market's close (20:00Z in April), not at its last bar's open.
    expect(events.every((e, i) => i === 0 || e.time >= events[i - 1]!.time)).toBe(true);
    expect(events.filter((e) => e.type === "day_end").map((e) => new Date(e.time).toISOString())).toEqual(DAYS.map((day) => `${day}T20:00:00.000Z`));
    expect(await control({ action: "play" }, 409)).toMatchObject({ error_code: "INVALID_STATE_TRANSITION", current_status: "finished" });
    expect((await control({ action: "step" }, 409)).current_status).toBe("finished");
    // Sought back from the end, it is paused again at the day asked for (every bar of the first day closed before it).
    expect(await control({ action: "seek", to: DAYS[1] })).toMatchObject({ state: "paused", steps: 78 });
  });

  for (const [reason, exits] of [
    ["stop_loss", { stop_loss_pct: 0.002, take_profit_pct: null }],
    ["take_profit", { stop_loss_pct: null, take_profit_pct: 0.003 }],
    ["trailing_stop", { stop_loss_pct: null, take_profit_pct: null, trailing_stop_pct: 0.002 }],
  ] as const) {
    it(`exits by its ${reason.replace("_", " ")} as one straight engine does (docs/trading-engine.md "Protective exits")`, async () => {
      const risk_config = { ...exits, max_loss_per_trade: 0.1 };
      const protectedSession = await h.api.json("POST", "/api/v1/trading/sessions", 201, {
        token: h.token,
        body: {
          session_name: `replay, ${reason}`,
          trading_mode: "simulation",
          asset_mode: "simulated",
          initial_capital: "100000",
          config: { ...config, risk_config },
        },
      });
      const at = (suffix: string) => `/api/v1/trading/sessions/${protectedSession.id}/replay/${suffix}`;
      await h.api.json("POST", at("start"), 200, { token: h.token, body: { start_date: DAYS[0], end_date: DAYS[2], paused: true } });
      const done = await h.api.json("POST", at("control"), 200, { token: h.token, body: { action: "seek", to: closeOf(fine.length) } });
      expect(done.steps).toBe(fine.length);
      const events = await replayEvents(protectedSession.id);
      expect(comparable(events)).toEqual(comparable(await straight(protectedSession.id, null)));
      const closedBy = events.filter((e) => e.type === "trade_closed").map((e) => e.data.exit_reason);
      expect(closedBy).toContain(reason);
      expect(closedBy.filter((r) => r !== "signal").every((r) => r === reason)).toBe(true);
    });
  }

  it("never touches the session's own run or state", async () => {
    const session = await h.api.json("GET", `/api/v1/trading/sessions/${id}`, 200, { token: h.token });
    expect(session.status).toBe("created");
    expect(await h.api.json("GET", `/api/v1/trading/sessions/${id}/orders`, 200, { token: h.token })).toMatchObject({ run_id: null, orders: [] });
    expect(await h.api.services.trading.drivers.runs.get(id)).toBeUndefined();
  });

  it("shows its events, orders and performance in the session's views by run_id, the current run's without it", async () => {
    const status = await h.api.json("GET", path("status"), 200, { token: h.token });
    const run = `${id}-replay`;
    expect(status.run_id).toBe(run);
    expect(status.orders).toBeGreaterThan(0);
    const get = (suffix: string, code = 200, token = h.token) => h.api.json("GET", `/api/v1/trading/sessions/${id}/${suffix}`, code, { token });

    const logs = [];
    let cursor: string | null = null;
    do {
      const page = await get(`logs?run_id=${run}&limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      expect(page.run_id).toBe(run);
      logs.push(...page.items);
      cursor = page.next_cursor;
    } while (cursor);
    const stored = await replayEvents(id);
    expect(logs.map((line) => [line.sequence, line.type])).toEqual(stored.map((e) => [e.sequence, e.type]));
    expect((await get(`logs?run_id=${run}&level=warning`)).items.every((line: { level: string }) => line.level === "warning")).toBe(true);

    const orders = await get(`orders?run_id=${run}&limit=500`);
    expect(orders).toMatchObject({ session_id: id, run_id: run, count: status.orders });
    expect(orders.orders.every((o: { run_id: string; session_id: string }) => o.run_id === run && o.session_id === id)).toBe(true);
    expect(orders.orders.filter((o: { status: string }) => o.status === "denied")).toHaveLength(status.denied_orders);
    const filled = await get(`orders?run_id=${run}&status=filled`);
    expect(filled.orders.length).toBeGreaterThan(0);
    expect(filled.orders.every((o: { status: string }) => o.status === "filled")).toBe(true);

    const performance = await get(`performance?run_id=${run}`);
    expect(performance).toMatchObject({ session_id: id, run_id: run, as_of: expect.any(String) });
    expect(performance.session).toMatchObject({ orders: status.orders, denied_orders: status.denied_orders, total_trades: status.closed_trades });

    // Without run_id: the session's current run, as before (it has never started, so none).
    expect(await get("logs")).toMatchObject({ run_id: null, items: [] });
    expect(await get("orders")).toMatchObject({ run_id: null, orders: [] });
    expect(await get("performance")).toMatchObject({ run_id: null, as_of: null, session: { orders: 0, total_trades: 0 } });

    // A run that is not the session's: 404 RUN_NOT_FOUND, whoever owns it; a malformed run_id: 422 at the query field.
    const stranger = await h.api.json("POST", "/api/v1/trading/sessions", 201, {
      token: h.token,
      body: { session_name: "another", trading_mode: "simulation", asset_mode: "simulated", initial_capital: "100000", config },
    });
    await h.api.json("POST", `/api/v1/trading/sessions/${stranger.id}/replay/start`, 200, {
      token: h.token,
      body: { start_date: DAYS[0], end_date: DAYS[0], paused: true },
    });
    for (const suffix of ["logs", "orders", "performance"]) {
      expect((await get(`${suffix}?run_id=${stranger.id}-replay`, 404)).error_code).toBe("RUN_NOT_FOUND");
      expect((await get(`${suffix}?run_id=nope`, 404)).error_code).toBe("RUN_NOT_FOUND");
      const bad = await get(`${suffix}?run_id=${"x".repeat(161)}`, 422);
      expect(bad.detail.map((d: { loc: string[] }) => d.loc)).toEqual([["query", "run_id"]]);
    }
    expect((await get(`orders?run_id=${run}`, 403, (await h.api.createUser()).token)).error_code).toBe("ACCESS_DENIED");
  });

  it("answers 404 for an unknown session and 403 for another user's", async () => {
    expect((await h.api.json("GET", "/api/v1/trading/sessions/nope/replay/status", 404, { token: h.token })).error_code).toBe("SESSION_NOT_FOUND");
    const other = (await h.api.createUser()).token;
    expect((await h.api.json("GET", path("status"), 403, { token: other })).error_code).toBe("ACCESS_DENIED");
    expect((await h.api.json("POST", path("control"), 403, { token: other, body: { action: "pause" } })).error_code).toBe("ACCESS_DENIED");
    expect((await h.api.json("POST", path("start"), 403, { token: other, body: { start_date: DAYS[0], end_date: DAYS[1] } })).error_code).toBe("ACCESS_DENIED");
  });

  it("is deleted with its session", async () => {
    expect(await h.api.json("DELETE", `/api/v1/trading/sessions/${id}`, 200, { token: h.token })).toMatchObject({ success: true });
    expect(await h.api.services.trading.drivers.runs.get(`${id}-replay`)).toBeUndefined();
  });
});
