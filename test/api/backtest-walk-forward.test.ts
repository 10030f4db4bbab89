import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Keys } from "../../packages/adapters/src/dynamo/keys";
import { Sweeps } from "../../packages/core/src/backtests/index";
import { CandleBatches } from "../../packages/core/src/candles/candle-batch";
import { referenceCase, REFERENCE_RISK } from "../../packages/core/src/engine/testing/reference";
import { backtestHandlers } from "../../packages/functions/src/workflow/backtest";
import { sweepHandlers } from "../../packages/functions/src/workflow/sweep";
import { runGrid } from "../../packages/core/src/backtests/sweep-grid-tasks";
import { LocalWorkflowRunner } from "../../packages/local/src/workflow-runner";
import { createTestApi, type TestApi } from "../support/harness";
import { expectSameResults } from "../support/backtest-results";

/**
 * Walk-forward optimisation end to end (a sweep with a `walk_forward` plan): the API starts the
 * sweep machine, the local runner runs it with the Lambda task handlers over the reference
 * fixtures' daily bars; every in-sample point's figures and every out-of-sample run are compared
 * with the backtest started alone. The in-sample grid runs in process, a chunk of points per task,
 * storing only their figures; each window's best is stored as a backtest and compared whole.
 */
let api: TestApi;
let runner: LocalWorkflowRunner;
const ref = referenceCase("AAPL.US");
const RANGE = { start_date: "2020-01-01", end_date: "2023-12-31" };
const PLAN = { windows: 2, mode: "rolling", in_sample_days: 250, out_of_sample_days: 120 };
const EXECUTION = {
  commission: { model: "percent", rate: ref.rules.commission_rate },
  sizing: { model: "cash_fraction", fraction: ref.rules.allocation },
  fill: "next_open",
};
const GRID = { fast_period: [5, 10], slow_period: [20, 30] };
const candles = ref.bars.map((b) => ({ ...b, timestamp: b.timestamp / 1000, turnover: 0, trade_session: "Intraday" as const }));

beforeAll(async () => {
  const handlers = { backtest: () => backtestHandlers(() => Promise.resolve(api.services)), sweep: () => sweepHandlers(() => Promise.resolve(api.services)) };
  runner = new LocalWorkflowRunner(handlers);
  api = await createTestApi({ SWEEP_MAX_CONCURRENCY: "3" }, { workflows: runner });
  await api.services.candles.upsert("AAPL.US", "1d", CandleBatches.fromCandles(candles));
});
afterAll(() => runner.stop());

async function backtestSession(on: TestApi, token: string) {
  return on.json("POST", "/api/v1/trading/sessions", 201, {
    token,
    body: { session_name: "walk-forward", trading_mode: "backtest", asset_mode: "simulated", initial_capital: ref.rules.initial_cash, config: {} },
  });
}

const request = (sessionId: string, body: Record<string, unknown> = {}) => ({
  session_id: sessionId,
  strategy_name: "ma_crossover",
  strategy_config: { execution: EXECUTION, risk_config: REFERENCE_RISK },
  parameters: GRID,
  symbols: ["AAPL.US"],
  ...RANGE,
  initial_capital: ref.rules.initial_cash,
  walk_forward: PLAN,
  ...body,
});

async function startWalkForward(token: string, body: Record<string, unknown> = {}) {
  const session = await backtestSession(api, token);
  const started = await api.json("POST", "/api/v1/backtest/sweeps", 200, { token, body: request(session.id, body) });
  return { sweepId: started.sweep_id as string, started };
}

async function settled(token: string, sweepId: string, execution = 1) {
  expect((await runner.outcome("sweep", `${sweepId}-${execution}`))?.status).toBe("SUCCEEDED");
  return api.json("GET", `/api/v1/backtest/sweeps/${sweepId}`, 200, { token });
}

/** The backtest started alone with these parameters over these dates: its id once it has ended. */
async function alone(token: string, parameters: object, range: { start_date: string; end_date: string }) {
  const session = await backtestSession(api, token);
  const { backtest_id } = await api.json("POST", "/api/v1/backtest/start", 200, {
    token,
    body: {
      session_id: session.id,
      strategy_name: "ma_crossover",
      strategy_config: { ...parameters, execution: EXECUTION, risk_config: REFERENCE_RISK },
      symbols: ["AAPL.US"],
      ...range,
      initial_capital: ref.rules.initial_cash,
    },
  });
  expect((await runner.outcome("backtest", `${backtest_id}-1`))?.status).toBe("SUCCEEDED");
  return backtest_id as string;
}

interface Ranked {
  rank: number;
  window: number;
  backtest_id: string;
  stored: boolean;
  parameters: Record<string, number>;
  value: number | null;
  performance_metrics: { annualized_return: number | null };
}

describe("walk-forward optimisation", () => {
  let user: { id: string; token: string };
  let completed: { walk_forward: { windows: { best: { parameters: object } }[] } };
  beforeAll(async () => {
    user = await api.createUser();
  });

  it("runs the grid on each window's in-sample part, each window's argmax out of sample, every run as the backtest alone, stitched", {
    timeout: 180_000,
  }, async () => {
    const { sweepId, started } = await startWalkForward(user.token);
    const sessionId = (await api.services.trading.backtests.sweeps.get(sweepId))!.session_id;
    expect(started).toMatchObject({ success: true, runs: 8, skipped: 0 });
    expect(await settled(user.token, sweepId)).toMatchObject({
      status: "completed",
      runs_total: 8,
      runs_done: 8,
      out_of_sample_total: 2,
      out_of_sample_done: 2,
      progress: 100,
    });
    const result = await api.json("GET", `/api/v1/backtest/sweeps/${sweepId}/result`, 200, { token: user.token });
    completed = result;
    const wf = result.walk_forward;
    expect(wf.plan).toEqual(PLAN);
    // 250 + 2 × 120 = 490 trading days ending on the range's last (2023-12-29, a Friday).
    expect(wf.windows.map((w: { in_sample: object; out_of_sample: object }) => [w.in_sample, w.out_of_sample])).toEqual([
      [
        { start_date: "2022-01-19", end_date: "2023-01-17", trading_days: 250 },
        { start_date: "2023-01-18", end_date: "2023-07-11", trading_days: 120 },
      ],
      [
        { start_date: "2022-07-13", end_date: "2023-07-11", trading_days: 250 },
        { start_date: "2023-07-12", end_date: "2023-12-29", trading_days: 120 },
      ],
    ]);
    const ranking = result.ranking as Ranked[];
    expect(ranking.map((r) => [r.window, r.rank])).toEqual([
      [0, 1],
      [0, 2],
      [0, 3],
      [0, 4],
      [1, 1],
      [1, 2],
      [1, 3],
      [1, 4],
    ]);
    for (const [k, window] of wf.windows.entries()) {
      const runs = ranking.filter((r) => r.window === k);
      // The best is the argmax of the window's in-sample Sharpe ratios (first in grid order on a tie).
      const top = Math.max(...runs.map((r) => r.value ?? -Infinity));
      const grid = [5, 10].flatMap((fast) => [20, 30].map((slow) => ({ fast_period: fast, slow_period: slow })));
      const argmax = grid.find((p) =>
        runs.some((r) => r.parameters.fast_period === p.fast_period && r.parameters.slow_period === p.slow_period && r.value === top),
      );
      expect(window.best.parameters).toEqual(argmax);
      expect(window.best).toMatchObject({ backtest_id: runs[0]!.backtest_id, value: top, annualized_return: runs[0]!.performance_metrics.annualized_return });
      expect(window.in_sample_runs).toBe(4);
      // Only the window's best point is stored as a backtest; the others keep their figures alone.
      expect(runs.map((r) => r.stored)).toEqual([true, false, false, false]);
      for (const run of runs.slice(1)) {
        expect((await api.json("GET", `/api/v1/backtest/${run.backtest_id}/result`, 404, { token: user.token })).error_code).toBe("BACKTEST_NOT_FOUND");
      }
      // Every in-sample point of the window has the figures of the backtest alone over the in-sample part; the stored best, its whole run.
      for (const run of runs) {
        const single = await alone(user.token, run.parameters, window.in_sample);
        const singleResult = await api.json("GET", `/api/v1/backtest/${single}/result`, 200, { token: user.token });
        expect(singleResult.fills.length).toBeGreaterThan(0);
        expect(run.performance_metrics).toEqual(singleResult.performance_metrics);
        if (run.stored) await expectSameResults(api, user.token, [run.backtest_id, single]);
      }
      // The out-of-sample run is the best point alone over the out-of-sample part.
      expect(window.out_of_sample_run).toMatchObject({ status: "completed", value: window.out_of_sample_run.performance_metrics.sharpe_ratio });
      const oos = await api.json("GET", `/api/v1/backtest/${window.out_of_sample_run.backtest_id}/result`, 200, { token: user.token });
      expect(oos).toMatchObject({ start_date: window.out_of_sample.start_date, end_date: window.out_of_sample.end_date });
      await expectSameResults(api, user.token, [window.out_of_sample_run.backtest_id, await alone(user.token, window.best.parameters, window.out_of_sample)]);
    }

    // The stitched curve: the second window's returns compounded on the first's final equity.
    const finals = wf.windows.map((w: { out_of_sample_run: { performance_metrics: { final_equity: string } } }) =>
      Number(w.out_of_sample_run.performance_metrics.final_equity),
    );
    const initial = ref.rules.initial_cash;
    expect(wf.stitched).toMatchObject({ windows: 2, initial_equity: "100000.00", trading_days: 240 });
    expect(Number(wf.stitched.final_equity)).toBeCloseTo((finals[0] * finals[1]) / initial, 1);
    expect(wf.stitched.equity_curve).toHaveLength(240);
    expect(wf.stitched.equity_curve[0].date).toBe("2023-01-18");
    expect(wf.stitched.equity_curve.at(-1)).toMatchObject({ date: "2023-12-29", equity: wf.stitched.final_equity, window: 1 });
    expect(wf.stitched.total_return).toBeCloseTo(Number(wf.stitched.final_equity) / initial - 1, 5);
    const inSample = wf.windows.map((w: { best: { annualized_return: number } }) => w.best.annualized_return);
    expect(wf.in_sample_annualized_return).toBeCloseTo((inSample[0] + inSample[1]) / 2, 5);
    expect(wf.out_of_sample_annualized_return).toBe(wf.stitched.annualized_return);
    expect(wf.efficiency).toBeCloseTo(wf.out_of_sample_annualized_return / wf.in_sample_annualized_return, 5);

    // The grid's figures: one item per window (4 points of 250 daily bars make one chunk), in the versioned shape.
    const chunks = await api.services.trading.backtests.grids.chunks(sweepId);
    expect(chunks.map((c) => [c.shape, c.window, c.chunk, c.results.map((r) => [r.run, r.status, r.bars_processed])])).toEqual([
      [1, 0, 0, [0, 1, 2, 3].map((run) => [run, "completed", 250])],
      [1, 1, 0, [4, 5, 6, 7].map((run) => [run, "completed", 250])],
    ]);
    // Progress: pushed once per chunk (sweep_progress), not per point; backtest_progress only from the stored runs (each window's best and out-of-sample run).
    const { updates } = await api.json("GET", `/api/v1/sessions/${sessionId}/updates`, 200, { token: user.token });
    const sweepPushes = updates.filter((u: { type: string }) => u.type === "sweep_progress");
    expect(sweepPushes).toHaveLength(2);
    expect(sweepPushes.map((u: { data: { sweep_id: string; stage: string } }) => [u.data.sweep_id, u.data.stage])).toEqual([
      [sweepId, "in_sample"],
      [sweepId, "in_sample"],
    ]);
    // The two chunks run side by side: each push counts its own chunk's points at least, the later one both.
    const counted = sweepPushes.map((u: { data: { runs_done: number } }) => u.data.runs_done);
    expect(Math.min(...counted)).toBeGreaterThanOrEqual(4);
    expect(Math.max(...counted)).toBe(8);
    const pushedRuns = new Set(
      updates.filter((u: { type: string }) => u.type === "backtest_progress").map((u: { data: { backtest_id: string } }) => u.data.backtest_id),
    );
    const storedRuns = wf.windows.flatMap((w: { best: { backtest_id: string }; out_of_sample_run: { backtest_id: string } }) => [
      w.best.backtest_id,
      w.out_of_sample_run.backtest_id,
    ]);
    expect([...pushedRuns].sort()).toEqual([...storedRuns].sort());
  });

  it("pauses and resumes to the same windows, passes the request's benchmark to its runs, and answers another user 403", async () => {
    const { sweepId } = await startWalkForward(user.token, { benchmark: "AAPL.US" });
    expect((await api.json("POST", `/api/v1/backtest/sweeps/${sweepId}/pause`, 200, { token: user.token })).status).toBe("pausing");
    expect(await settled(user.token, sweepId)).toMatchObject({ status: "paused", is_paused: true });
    // The runs read the flags from their own small item, written with every version of the sweep (not the sweep's item with every run's plan).
    const { db } = api.services;
    const flags = (await db.client.send(new GetCommand({ TableName: db.tableName, Key: Keys.sweepFlags(sweepId) }))).Item!;
    expect(flags).toMatchObject({ sweep_id: sweepId, pause_requested: true, stop_requested: false });
    expect(JSON.stringify(flags).length).toBeLessThan(200);
    await api.json("GET", `/api/v1/backtest/sweeps/${sweepId}/result`, 409, { token: user.token });
    const other = await api.createUser();
    expect((await api.json("GET", `/api/v1/backtest/sweeps/${sweepId}/result`, 403, { token: other.token })).error_code).toBe("ACCESS_DENIED");
    expect((await api.json("POST", `/api/v1/backtest/sweeps/${sweepId}/resume`, 403, { token: other.token })).error_code).toBe("ACCESS_DENIED");
    await api.json("POST", `/api/v1/backtest/sweeps/${sweepId}/resume`, 200, { token: user.token });
    expect(await settled(user.token, sweepId, 2)).toMatchObject({ status: "completed", runs_done: 8, out_of_sample_done: 2 });
    const resumed = await api.json("GET", `/api/v1/backtest/sweeps/${sweepId}/result`, 200, { token: user.token });
    expect(resumed.walk_forward.windows.map((w: { best: object }) => w.best)).toEqual(
      completed.walk_forward.windows.map((w) => ({ ...w.best, backtest_id: expect.any(String) })),
    );
    // Every run is measured against the benchmark, as the backtest alone with it would be.
    for (const window of resumed.walk_forward.windows) {
      for (const id of [window.best.backtest_id, window.out_of_sample_run.backtest_id]) {
        const run = await api.json("GET", `/api/v1/backtest/${id}/result`, 200, { token: user.token });
        expect(run.benchmark).toMatchObject({ symbol: "AAPL.US", total_return: expect.any(Number), beta: expect.any(Number) });
      }
    }
  });

  it("stopped after its in-sample runs, before the out-of-sample ones ran, finalises with each window's best and no stitched curve", async () => {
    // Its tasks driven by hand on an instance of its own, in the machine's order, to stop it between the phases.
    const manual = await createTestApi({}, { workflows: { start: async () => undefined } });
    await manual.services.candles.upsert("AAPL.US", "1d", CandleBatches.fromCandles(candles));
    const owner = await manual.createUser();
    const session = await backtestSession(manual, owner.token);
    const { sweep_id } = await manual.json("POST", "/api/v1/backtest/sweeps", 200, { token: owner.token, body: request(session.id) });
    const deps = manual.services.trading.backtests;
    const inSample = await Sweeps.plan(deps, { sweep_id });
    // The in-sample grid: a chunk per window, run in process.
    expect(inSample).toMatchObject({ status: "grid", runs: [], grid: [0, 1].map((window) => ({ sweep_id, window, chunk: 0 })) });
    // A chunk whose deadline has come yields before any point, storing nothing; a raised pause ends it before its points too.
    expect(await runGrid(deps, inSample.grid[0]!, Date.now() - 1)).toMatchObject({ status: "yielded", points_done: 0, points: 4 });
    expect(await deps.grids.get(sweep_id, 0, 0)).toBeUndefined();
    expect((await Sweeps.plan(deps, { sweep_id })).grid).toEqual(inSample.grid);
    await manual.json("POST", `/api/v1/backtest/sweeps/${sweep_id}/pause`, 200, { token: owner.token });
    expect(await runGrid(deps, inSample.grid[0]!, Date.now() + 60_000)).toMatchObject({ status: "paused", points_done: 0 });
    await manual.json("POST", `/api/v1/backtest/sweeps/${sweep_id}/resume`, 200, { token: owner.token });
    for (const chunk of inSample.grid) expect(await runGrid(deps, chunk, Date.now() + 60_000)).toMatchObject({ status: "done", points_done: 4, points: 4 });
    // Run again (a retried task), a chunk runs nothing more.
    expect(await runGrid(deps, inSample.grid[1]!, Date.now() + 60_000)).toMatchObject({ status: "done", points_done: 4 });
    const next = await Sweeps.plan(deps, { sweep_id });
    // Each window's out-of-sample run, then its best stored over the in-sample part.
    expect(next).toMatchObject({ status: "running", runs: Array(4).fill(expect.any(String)) });
    const outOfSample = { runs: next.runs.slice(0, 2) };
    expect(await manual.json("GET", `/api/v1/backtest/sweeps/${sweep_id}`, 200, { token: owner.token })).toMatchObject({
      stage: "out_of_sample",
      runs_done: 8,
      out_of_sample_total: 2,
      out_of_sample_done: 0,
    });
    expect((await manual.json("POST", `/api/v1/backtest/sweeps/${sweep_id}/stop`, 200, { token: owner.token })).status).toBe("stopping");
    expect((await Sweeps.plan(deps, { sweep_id })).status).toBe("stopped");
    expect((await Sweeps.finalize(deps, { sweep_id })).status).toBe("stopped");
    const result = await manual.json("GET", `/api/v1/backtest/sweeps/${sweep_id}/result`, 200, { token: owner.token });
    expect(result.status).toBe("stopped");
    expect(result.walk_forward.windows.map((w: { best: { parameters: object } }) => w.best.parameters)).toEqual(
      completed.walk_forward.windows.map((w) => w.best.parameters),
    );
    expect(result.walk_forward.windows.map((w: { out_of_sample_run: { status: string; performance_metrics: null } }) => w.out_of_sample_run)).toEqual([
      { backtest_id: outOfSample.runs[0], status: "stopped", value: null, performance_metrics: null },
      { backtest_id: outOfSample.runs[1], status: "stopped", value: null, performance_metrics: null },
    ]);
    expect(result.walk_forward).toMatchObject({ stitched: null, out_of_sample_annualized_return: null, efficiency: null });
  });

  it("answers 422 listing every problem of a plan, before anything is stored", async () => {
    const session = await backtestSession(api, user.token);
    const many = await api.json("POST", "/api/v1/backtest/sweeps", 422, {
      token: user.token,
      body: request(session.id, {
        walk_forward: { windows: 3, mode: "rolling", in_sample_days: 900, out_of_sample_days: 60 },
        out_of_sample: { start_date: "2024-01-02", end_date: "2024-06-28" },
        max_runs: 10,
      }),
    });
    expect(many.detail.map((d: { loc: (string | number)[]; msg: string }) => [d.loc.join("."), d.msg])).toEqual([
      ["body.parameters", "the walk-forward has 3 windows × 4 points = 12 in-sample runs, more than max_runs (10; at most 1000)"],
      ["body.out_of_sample", "out_of_sample and walk_forward exclude each other: a walk-forward runs each window's best out of sample itself"],
      ["body.walk_forward.windows", "the plan needs 1080 trading days (in_sample_days 900 + 3 windows × out_of_sample_days 60), the range has 1006"],
    ]);
    const sizes = await api.json("POST", "/api/v1/backtest/sweeps", 422, {
      token: user.token,
      body: request(session.id, { walk_forward: { windows: 2, mode: "anchored", ratio: 0.7, in_sample_days: 100 } }),
    });
    expect(sizes.detail.map((d: { loc: string[] }) => d.loc.join("."))).toEqual(["body.walk_forward.ratio"]);
    const malformed = await api.json("POST", "/api/v1/backtest/sweeps", 422, {
      token: user.token,
      body: request(session.id, { walk_forward: { windows: 0, mode: "sideways", ratio: 1.5 } }),
    });
    expect(malformed.detail.map((d: { loc: string[] }) => d.loc.join("."))).toEqual([
      "body.walk_forward.windows",
      "body.walk_forward.mode",
      "body.walk_forward.ratio",
    ]);
  });
});
