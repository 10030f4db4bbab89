import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDayAtEnd, closeDayBefore } from "../../packages/core/src/trading/drivers/rollover";
import type { EngineEvent } from "../../packages/core/src/engine/events";
import { SessionWorker } from "../../packages/worker/src/session-worker";
import { createTestApi, type TestApi } from "../support/harness";
import { firstSteps, intradayBars, merged, storeBars, warmedEngine, type FedBar } from "../support/stored-bars";

/**
 * MTF sessions over HTTP against DynamoDB Local: a trend director on hourly bars sets the bias
 * of a pullback executor on 5-minute bars. A historical session steps bar by bar over stored
 * candles and its events equal those of one engine fed the same bars; the director's bias shows
 * in `outputs` and `status`; the executor never trades against it.
 */
let api: TestApi;
let token: string;
const DAYS = ["2024-04-01", "2024-04-02", "2024-04-03", "2024-04-04", "2024-04-05", "2024-04-08", "2024-04-09", "2024-04-10", "2024-04-11"];
const { fine, hourly } = intradayBars("AAPL.US", DAYS);
// The director's feed comes first in the session's configuration, so it wins ties of close time.
const ALL: FedBar[] = merged([
  { timeframe: "1h", bars: hourly },
  { timeframe: "5m", bars: fine },
]);

const director = { strategy_name: "trend_director", timeframe: "1h", parameters: { fast_period: 3, slow_period: 8, band_pct: 0.1, allow_short: true } };
const executor = {
  strategy_name: "pullback_executor",
  timeframe: "5m",
  parameters: { rsi_period: 5, pullback_level: 45, exit_level: 55, trend_period: 10, allow_short: true },
};
const body = (overrides: Record<string, unknown> = {}) => ({
  session_name: "mtf study",
  mode: "historical",
  initial_capital: "100000",
  symbols: ["AAPL.US"],
  director,
  executors: [executor],
  start_date: DAYS[0],
  end_date: DAYS[DAYS.length - 1],
  risk_config: { allow_short: true },
  execution: { sizing: { model: "cash_fraction", fraction: 0.08 }, commission: { model: "percent", rate: 0.0005 } },
  ...overrides,
});

beforeAll(async () => {
  api = await createTestApi();
  token = (await api.createUser()).token;
  await storeBars(api.services, "5m", fine);
  await storeBars(api.services, "1h", hourly);
});

/** Every event of a session's outputs, following the pager. */
async function allOutputs(sessionId: string, kind = "all") {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const page: any = await api.json(
      "GET",
      `/api/v1/trading/mtf/sessions/${sessionId}/outputs?kind=${kind}&limit=97${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      200,
      { token },
    );
    items.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor);
  return items;
}

/** The events one engine with the session's setup gives on `bars`. */
async function engineEvents(sessionId: string, bars: FedBar[]): Promise<EngineEvent[]> {
  const run = (await api.services.trading.drivers.runs.get(sessionId))!;
  const engine = await warmedEngine(api.services, run);
  for (const { bar, timeframe } of bars) {
    closeDayBefore(run, engine, bar.timestamp);
    engine.onBar({ ...bar }, timeframe);
  }
  return engine.drainEvents();
}

const comparable = (events: { sequence: number; type: string; data: unknown }[]) => events.map((e) => ({ sequence: e.sequence, type: e.type, data: e.data }));

describe("MTF sessions", () => {
  it("answers 422 listing every problem of a director, its executors and the dates", async () => {
    const response = await api.json("POST", "/api/v1/trading/mtf/sessions", 422, {
      token,
      body: body({
        director: { strategy_name: "pullback_executor", timeframe: "5m" },
        executors: [
          { strategy_name: "trend_director", timeframe: "1h" },
          { strategy_name: "no_such_strategy", timeframe: "5m" },
          { strategy_name: "pullback_executor", timeframe: "5m", parameters: { pullback_level: 60, exit_level: 55 } },
        ],
        start_date: null,
      }),
    });
    const locs = response.detail.map((d: { loc: (string | number)[] }) => d.loc.join("."));
    expect(locs).toEqual(
      expect.arrayContaining([
        "body.director.strategy_name", // an executor cannot direct
        "body.executors.0.strategy_name", // a director cannot execute
        "body.executors.0.timeframe", // 1h is not below the director's 5m
        "body.executors.1.strategy_name", // unknown
        "body.executors.2.parameters.pullback_level", // out of range (max 50)
        "body.start_date",
      ]),
    );
    expect(response.detail.find((d: any) => d.loc.join(".") === "body.director.strategy_name").msg).toContain("role executor");
  });

  let id: string;

  it("creates a historical session from the catalog and lists it", async () => {
    const created = await api.json("POST", "/api/v1/trading/mtf/sessions", 201, { token, body: body() });
    id = created.id;
    expect(created).toMatchObject({
      mode: "historical",
      status: "created",
      symbols: ["AAPL.US"],
      director: { strategy_name: "trend_director", timeframe: "1h", parameters: { fast_period: 3, slow_period: 8, ma_type: "ema" } },
      executors: [{ strategy_name: "pullback_executor", timeframe: "5m", weight: 1 }],
      start_date: "2024-04-01",
      end_date: "2024-04-11",
    });
    const listed = await api.json("GET", "/api/v1/trading/mtf/sessions", 200, { token });
    expect(listed.map((s: { id: string }) => s.id)).toEqual([id]);
    // It is a trading session like any other: its one channel holds the director and the executor.
    const session = await api.json("GET", `/api/v1/trading/sessions/${id}`, 200, { token });
    expect(session.config.channels[0].strategies.map((s: { role: string }) => s.role)).toEqual(["director", "executor"]);
  });

  it("refuses to step before it starts, naming the state", async () => {
    const refused = await api.json("POST", `/api/v1/trading/mtf/sessions/${id}/step`, 409, { token });
    expect(refused).toMatchObject({ error_code: "INVALID_STATE_TRANSITION", current_status: "created" });
    expect(refused.detail).toContain("created");
  });

  it("steps executor bars over stored candles with exactly the events of one engine fed those bars", async () => {
    expect((await api.json("POST", `/api/v1/trading/mtf/sessions/${id}/start`, 200, { token })).status).toBe("running");
    const one = await api.json("POST", `/api/v1/trading/mtf/sessions/${id}/step`, 200, { token });
    expect(one).toMatchObject({ steps: 1, done: false, cursor: new Date(fine[0]!.timestamp + 300_000).toISOString() });
    // The first executor bar writes its strategy output (bar, indicator values, no bias yet: flat).
    expect(one.events).toHaveLength(1);
    expect(one.events[0]).toMatchObject({
      type: "strategy_output",
      data: { timeframe: "5m", role: "executor", bias: "flat", bar: { close: fine[0]!.close }, indicators: { rsi: null, trend_ema: null } },
    });

    const nine = await api.json("POST", `/api/v1/trading/mtf/sessions/${id}/step`, 200, { token, body: { bars: 9 } });
    expect(nine.steps).toBe(10);
    await api.json("POST", `/api/v1/trading/mtf/sessions/${id}/pause`, 200, { token });
    const more = await api.json("POST", `/api/v1/trading/mtf/sessions/${id}/step`, 200, { token, body: { bars: 290 } });
    expect(more.steps).toBe(300);

    const fed = firstSteps(ALL, "5m", 300);
    const expected = await engineEvents(id, fed);
    // The warm-up's log lines were written when the run was made (the start), the rest by the steps.
    const warmUp = expected.filter((e) => e.type === "log" && (e.data as { warm_up?: unknown }).warm_up !== undefined);
    expect(warmUp.map((e) => (e.data as { warm_up: { timeframe: string } }).warm_up.timeframe).sort()).toEqual(["1h", "5m"]);
    expect(comparable([...one.events, ...nine.events, ...more.events])).toEqual(comparable(expected.slice(warmUp.length)));
    expect(comparable(await allOutputs(id))).toEqual(comparable(expected));
    expect(more.cursor).toBe(new Date(fed[fed.length - 1]!.close_ms).toISOString());
  });

  it("warms its strategies up on the stored bars before its range, as a simulation session does on the market's history", async () => {
    // Six stored days before the range: 42 hourly bars, enough for the director's EMA(8) to settle (8 + ceil(3.5 · 9) = 40).
    const created = await api.json("POST", "/api/v1/trading/mtf/sessions", 201, { token, body: body({ start_date: DAYS[6] }) });
    await api.json("POST", `/api/v1/trading/mtf/sessions/${created.id}/start`, 200, { token });
    await api.json("POST", `/api/v1/trading/mtf/sessions/${created.id}/pause`, 200, { token });
    const first = await api.json("POST", `/api/v1/trading/mtf/sessions/${created.id}/step`, 200, { token });
    // From the first step on, indicators have values and the director has a stance.
    const output = first.events.find((e: { type: string; data: { role?: string } }) => e.type === "strategy_output" && e.data.role === "executor");
    expect(output.data.indicators.rsi).not.toBeNull();
    expect(output.data.indicators.trend_ema).not.toBeNull();
    const { items } = await api.json("GET", `/api/v1/trading/sessions/${created.id}/logs?limit=10`, 200, { token });
    const lines = items
      .filter((e: { data: { warm_up?: unknown } }) => e.data.warm_up !== undefined)
      .map((e: { data: { warm_up: { timeframe: string; bars: number; wanted: number } } }) => e.data.warm_up);
    expect(lines.map((w: { timeframe: string }) => w.timeframe).sort()).toEqual(["1h", "5m"]);
    for (const w of lines) expect(w.bars).toBe(w.wanted);
    // The bars their indicators need to settle, not just to signal: the director's EMA(8) 40 (8 to signal);
    // the executor's EMA(10) 10 + ceil(3.5 · 11) = 49, over RSI(5)'s 5 + 1 + 8 · 5 = 46 (10 to signal).
    expect(Object.fromEntries(lines.map((w: { timeframe: string; wanted: number }) => [w.timeframe, w.wanted]))).toEqual({ "1h": 40, "5m": 49 });
  });

  it("shows the director's bias changes in outputs and status, and the executor never trades against it", async () => {
    const mtf = await allOutputs(id, "mtf");
    expect(new Set(mtf.map((e) => e.type))).toEqual(new Set(["strategy_output", "bias_changed", "signal"]));
    const changes = mtf.filter((e) => e.type === "bias_changed");
    expect(changes.length).toBeGreaterThanOrEqual(2);
    expect(changes[0].data).toMatchObject({ symbol: "AAPL.US", timeframe: "1h", strategy: "trend_director", previous: "flat" });
    expect(["long", "short"]).toContain(changes[0].data.bias);
    // Hourly outputs carry the director's moving averages.
    const hourlyOutput = mtf.filter((e) => e.type === "strategy_output" && e.data.timeframe === "1h").at(-1);
    expect(hourlyOutput.data.indicators).toEqual({ fast_ma: expect.any(Number), slow_ma: expect.any(Number) });
    for (const signal of mtf.filter((e) => e.type === "signal")) {
      if (signal.data.target_weight > 0) expect(signal.data.bias).toBe("long");
      if (signal.data.target_weight < 0) expect(signal.data.bias).toBe("short");
    }
    // Orders came from the executor, placed on the mtf channel.
    const orders = await allOutputs(id, "order");
    expect(orders.length).toBeGreaterThan(0);
    expect(orders.every((e) => e.channel_id === "mtf")).toBe(true);

    const status = await api.json("GET", `/api/v1/trading/mtf/sessions/${id}/status`, 200, { token });
    expect(status.bias).toEqual([{ symbol: "AAPL.US", bias: changes.at(-1).data.bias, strategy: "trend_director", timeframe: "1h" }]);
    const fed = firstSteps(ALL, "5m", 300);
    const lastHour = fed.filter((f) => f.timeframe === "1h").at(-1)!.bar;
    const lastFive = fed.filter((f) => f.timeframe === "5m").at(-1)!.bar;
    expect(status.timeframes).toEqual([
      {
        timeframe: "1h",
        role: "director",
        strategies: ["trend_director"],
        last_bars: [{ ...lastHour, timestamp: new Date(lastHour.timestamp).toISOString() }],
      },
      {
        timeframe: "5m",
        role: "executor",
        strategies: ["pullback_executor"],
        last_bars: [{ ...lastFive, timestamp: new Date(lastFive.timestamp).toISOString() }],
      },
    ]);
    expect(status).toMatchObject({ mode: "historical", status: "paused", steps: 300, steps_total: fine.length, done: false });
  });

  it("steps to the end of the range, completes, and then refuses to step", async () => {
    const last = await api.json("POST", `/api/v1/trading/mtf/sessions/${id}/step`, 200, { token, body: { bars: 1000 } });
    expect(last).toMatchObject({ steps: fine.length, done: true });
    const expected = await engineEvents(id, ALL);
    const logged = await allOutputs(id);
    // The whole range plus the final day close (at the market's close, as the day rollover closes a
    // simulation session's day: its end and the daily reset), identical to one straight engine run.
    expect(comparable(logged.slice(0, expected.length))).toEqual(comparable(expected));
    expect(logged.slice(expected.length).map((e) => e.type)).toEqual(["day_end", "risk_event"]);
    // Each day ends at the market's close (20:00Z in April), not at its last bar's open.
    const ends = logged.filter((e) => e.type === "day_end").map((e) => e.timestamp.slice(11));
    expect(ends.length).toBe(DAYS.length);
    expect(new Set(ends)).toEqual(new Set(["20:00:00.000Z"]));
    // Event times never go backwards: the day's last hourly bar (19:30Z) is stamped at the close, not at 20:30Z after the day's end.
    expect(logged.every((e, i) => i === 0 || e.timestamp >= logged[i - 1]!.timestamp)).toBe(true);
    const refused = await api.json("POST", `/api/v1/trading/mtf/sessions/${id}/step`, 409, { token });
    expect(refused).toMatchObject({ error_code: "INVALID_STATE_TRANSITION", current_status: "completed" });
  });

  it("runs simulation MTF sessions through the session state machine; step is historical only", async () => {
    const sim = await api.json("POST", "/api/v1/trading/mtf/sessions", 201, { token, body: body({ mode: "simulation", start_date: null, end_date: null }) });
    expect(sim.mode).toBe("simulation");
    expect((await api.json("POST", `/api/v1/trading/mtf/sessions/${sim.id}/start`, 200, { token })).status).toBe("running");
    const refused = await api.json("POST", `/api/v1/trading/mtf/sessions/${sim.id}/step`, 409, { token });
    expect(refused).toMatchObject({ error_code: "INVALID_STATE_TRANSITION", current_status: "running" });
    expect((await api.json("POST", `/api/v1/trading/mtf/sessions/${sim.id}/resume`, 409, { token })).current_status).toBe("running");
    expect((await api.json("POST", `/api/v1/trading/mtf/sessions/${sim.id}/pause`, 200, { token })).status).toBe("paused");
    // Deleting a paused session is refused; stopped, it goes with its runs.
    expect((await api.json("DELETE", `/api/v1/trading/mtf/sessions/${sim.id}`, 409, { token })).current_status).toBe("paused");
    await api.json("POST", `/api/v1/trading/mtf/sessions/${sim.id}/stop`, 200, { token });
    expect(await api.json("DELETE", `/api/v1/trading/mtf/sessions/${sim.id}`, 200, { token })).toMatchObject({ success: true, id: sim.id });
    expect((await api.json("GET", `/api/v1/trading/mtf/sessions/${sim.id}/status`, 404, { token })).error_code).toBe("SESSION_NOT_FOUND");
  });

  it("answers 404 for unknown and non-MTF sessions and 403 for another user's", async () => {
    expect((await api.json("GET", "/api/v1/trading/mtf/sessions/nope/status", 404, { token })).error_code).toBe("SESSION_NOT_FOUND");
    const plain = await api.json("POST", "/api/v1/trading/sessions", 201, {
      token,
      body: {
        session_name: "plain",
        trading_mode: "simulation",
        asset_mode: "simulated",
        initial_capital: "1000",
        config: { strategy_name: "ma_crossover", symbols: ["AAPL.US"] },
      },
    });
    expect((await api.json("POST", `/api/v1/trading/mtf/sessions/${plain.id}/step`, 404, { token })).error_code).toBe("SESSION_NOT_FOUND");
    const other = (await api.createUser()).token;
    for (const [method, path] of [
      ["GET", "status"],
      ["GET", "outputs"],
      ["POST", "step"],
      ["POST", "stop"],
    ] as const) {
      expect((await api.json(method, `/api/v1/trading/mtf/sessions/${id}/${path}`, 403, { token: other })).error_code).toBe("ACCESS_DENIED");
    }
    expect(await api.json("GET", "/api/v1/trading/mtf/sessions", 200, { token: other })).toEqual([]);
  });
});

describe("a simulation MTF session in the session worker", () => {
  let sim: TestApi;
  let simToken: string;
  let clock = Date.parse("2024-03-15T13:30:00Z"); // the US regular session opens (EDT)
  let pinned = false;
  const workers: SessionWorker[] = [];

  beforeAll(async () => {
    sim = await createTestApi({}, { now: () => (pinned ? clock : Date.now()) });
    simToken = (await sim.createUser()).token;
    pinned = true;
  });
  afterAll(async () => {
    for (const worker of workers) await worker.stop();
  });

  it("is fed its director's and executors' bars as they close, like any session, with the outputs of each timeframe", async () => {
    const created = await sim.json("POST", "/api/v1/trading/mtf/sessions", 201, {
      token: simToken,
      body: body({ mode: "simulation", start_date: null, end_date: null }),
    });
    await sim.json("POST", `/api/v1/trading/mtf/sessions/${created.id}/start`, 200, { token: simToken });
    // Every step beats (`beatMs: 0`): the engine status reads the feeds of the heartbeat the last step wrote.
    const worker = new SessionWorker(sim.services, { marketData: await sim.services.marketData(), tickMs: 1e9, refreshMs: 1e9, beatMs: 0 });
    workers.push(worker);
    await worker.start();
    for (let minute = 0; minute < 180; minute++) {
      clock += 60_000;
      await worker.tick();
    }
    const engine = await sim.json("GET", `/api/v1/trading/sessions/${created.id}/engine/status`, 200, { token: simToken });
    expect(engine.worker.feeds).toEqual(["AAPL.US|1h", "AAPL.US|5m"]);
    const outputs: any[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await sim.json(
        "GET",
        `/api/v1/trading/mtf/sessions/${created.id}/outputs?kind=mtf&limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        200,
        { token: simToken },
      );
      outputs.push(...page.items);
      cursor = page.next_cursor;
    } while (cursor);
    // 13:30–16:30 UTC: 36 five-minute bars closed, and the hourly bars that closed in it.
    const five = outputs.filter((e) => e.type === "strategy_output" && e.data.timeframe === "5m");
    const hours = outputs.filter((e) => e.type === "strategy_output" && e.data.timeframe === "1h");
    expect(five).toHaveLength(36);
    expect(hours.length).toBeGreaterThanOrEqual(2);
    expect(five.every((e) => e.data.role === "executor" && e.data.strategy === "pullback_executor")).toBe(true);
    // An hourly bar and the 5-minute bar closing with it: the director's comes first.
    for (const hour of hours) {
      const together = five.find((e) => e.data.bar.timestamp + 300_000 === hour.data.bar.timestamp + 3_600_000);
      if (together) expect(hour.sequence).toBeLessThan(together.sequence);
    }
    expect(hours.some((hour) => five.some((e) => e.data.bar.timestamp + 300_000 === hour.data.bar.timestamp + 3_600_000))).toBe(true);
    const status = await sim.json("GET", `/api/v1/trading/mtf/sessions/${created.id}/status`, 200, { token: simToken });
    expect(status).toMatchObject({
      mode: "simulation",
      status: "running",
      steps: null,
      bias: [{ symbol: "AAPL.US", strategy: "trend_director", timeframe: "1h" }],
    });
    expect(status.timeframes[1]).toMatchObject({
      timeframe: "5m",
      last_bars: [{ symbol: "AAPL.US", timestamp: "2024-03-15T16:25:00.000Z", close: five.at(-1).data.bar.close }],
    });
    expect(status.timeframes[0].last_bars[0].timestamp).toBe(new Date(hours.at(-1).data.bar.timestamp).toISOString());
  });

  it("plays a running historical session in the worker at its speed, pauses it, steps it, and completes it", async () => {
    await storeBars(sim.services, "5m", fine);
    await storeBars(sim.services, "1h", hourly);
    const created = await sim.json("POST", "/api/v1/trading/mtf/sessions", 201, { token: simToken, body: body({ speed: 50 }) });
    const before = await sim.json("GET", `/api/v1/trading/mtf/sessions/${created.id}/status`, 200, { token: simToken });
    expect(before).toMatchObject({ status: "created", steps: 0, speed: 50, playing: false });
    await sim.json("POST", `/api/v1/trading/mtf/sessions/${created.id}/start`, 200, { token: simToken });
    const worker = workers.at(-1)!;
    clock += 2_000;
    await worker.tick();
    expect(await sim.json("GET", `/api/v1/trading/mtf/sessions/${created.id}/status`, 200, { token: simToken })).toMatchObject({
      status: "running",
      steps: 100,
      steps_total: fine.length,
      playing: true,
    });
    await sim.json("POST", `/api/v1/trading/mtf/sessions/${created.id}/pause`, 200, { token: simToken });
    clock += 5_000;
    await worker.tick();
    expect((await sim.json("POST", `/api/v1/trading/mtf/sessions/${created.id}/step`, 200, { token: simToken })).steps).toBe(101);
    await sim.json("POST", `/api/v1/trading/mtf/sessions/${created.id}/resume`, 200, { token: simToken });
    clock += 100_000;
    await worker.tick();
    const done = await sim.json("GET", `/api/v1/trading/mtf/sessions/${created.id}/status`, 200, { token: simToken });
    expect(done).toMatchObject({ status: "completed", steps: fine.length, done: true, playing: false });
    // Played, paused, stepped and played again: the events of one straight engine run.
    const run = (await sim.services.trading.drivers.runs.get(created.id))!;
    const engine = await warmedEngine(sim.services, run);
    for (const { bar, timeframe } of ALL) {
      closeDayBefore(run, engine, bar.timestamp);
      engine.onBar({ ...bar }, timeframe);
    }
    closeDayAtEnd(run, engine);
    const logged: any[] = [];
    let cursor: string | undefined;
    do {
      const page = await sim.services.trading.drivers.runs.events(created.id, { limit: 500, cursor });
      logged.push(...page.items);
      cursor = page.cursor;
    } while (cursor);
    expect(comparable(logged)).toEqual(comparable(engine.drainEvents()));
  });
});
