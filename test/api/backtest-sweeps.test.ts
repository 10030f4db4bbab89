import { GetCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configFromEnv } from "../../packages/adapters/src/config";
import { Keys } from "../../packages/adapters/src/dynamo/keys";
import { Backtests, Sweeps } from "../../packages/core/src/backtests/index";
import { CandleBatches } from "../../packages/core/src/candles/candle-batch";
import { referenceCase, REFERENCE_RISK } from "../../packages/core/src/engine/testing/reference";
import { backtestHandlers } from "../../packages/functions/src/workflow/backtest";
import { sweepHandlers } from "../../packages/functions/src/workflow/sweep";
import { LocalWorkflowRunner, type WorkflowUsage } from "../../packages/local/src/workflow-runner";
import { createTestApi, type TestApi } from "../support/harness";
import { expectSameResults } from "../support/backtest-results";

/**
 * Parameter sweeps end to end: the API starts the sweep machine, the local runner runs its ASL
 * file (the Map over the runs, each run the backtest's own tasks) with the Lambda task handlers,
 * over the reference fixtures' daily bars stored in the candle store.
 */
let api: TestApi;
let runner: LocalWorkflowRunner;
/** What the runner metered (Step Functions' billed steps). */
const usage: WorkflowUsage[] = [];
const ref = referenceCase("AAPL.US");
const day = (ms: number) => new Date(ms + 43_200_000).toISOString().slice(0, 10);
const WINDOW = { start_date: day(ref.bars[0]!.timestamp), end_date: day(ref.bars[Math.floor(ref.bars.length * 0.7)]!.timestamp) };
const OUT_OF_SAMPLE = { start_date: day(ref.bars[Math.floor(ref.bars.length * 0.7) + 1]!.timestamp), end_date: day(ref.bars.at(-1)!.timestamp) };
const EXECUTION = {
  commission: { model: "percent", rate: ref.rules.commission_rate },
  sizing: { model: "cash_fraction", fraction: ref.rules.allocation },
  fill: "next_open",
};
const GRID = { fast_period: [5, 10], slow_period: { min: 20, max: 30, step: 10 } };

beforeAll(async () => {
  const handlers = { backtest: () => backtestHandlers(() => Promise.resolve(api.services)), sweep: () => sweepHandlers(() => Promise.resolve(api.services)) };
  runner = new LocalWorkflowRunner(handlers, { meter: (step) => usage.push(step) });
  api = await createTestApi({ SWEEP_MAX_CONCURRENCY: "3" }, { workflows: runner });
  const candles = ref.bars.map((b) => ({ ...b, timestamp: b.timestamp / 1000, turnover: 0, trade_session: "Intraday" as const }));
  await api.services.candles.upsert("AAPL.US", "1d", CandleBatches.fromCandles(candles));
});
afterAll(() => runner.stop());

async function backtestSession(token: string) {
  return api.json("POST", "/api/v1/trading/sessions", 201, {
    token,
    body: { session_name: "sweep", trading_mode: "backtest", asset_mode: "simulated", initial_capital: ref.rules.initial_cash, config: {} },
  });
}

async function startSweep(token: string, body: Record<string, unknown> = {}) {
  const session = await backtestSession(token);
  const started = await api.json("POST", "/api/v1/backtest/sweeps", 200, {
    token,
    body: {
      session_id: session.id,
      strategy_name: "ma_crossover",
      strategy_config: { execution: EXECUTION, risk_config: REFERENCE_RISK },
      parameters: GRID,
      symbols: ["AAPL.US"],
      ...WINDOW,
      initial_capital: ref.rules.initial_cash,
      ...body,
    },
  });
  return { session, sweepId: started.sweep_id as string, started };
}

/** Waits for the sweep's `n`th execution to end, then answers its progress. */
async function settled(token: string, sweepId: string, execution = 1) {
  expect((await runner.outcome("sweep", `${sweepId}-${execution}`))?.status).toBe("SUCCEEDED");
  return api.json("GET", `/api/v1/backtest/sweeps/${sweepId}`, 200, { token });
}

describe("parameter sweeps", () => {
  let user: { id: string; token: string };
  let ranking: { parameters: Record<string, number>; value: number | null; backtest_id: string }[];
  beforeAll(async () => {
    user = await api.createUser();
  });

  it("runs every point of the grid as the backtest started alone would, and ranks them by the metric", async () => {
    const { sweepId, started } = await startSweep(user.token);
    expect(started).toMatchObject({ success: true, runs: 4, skipped: 0 });
    const progress = await settled(user.token, sweepId);
    expect(progress).toMatchObject({
      status: "completed",
      stage: "done",
      runs_total: 4,
      runs_done: 4,
      runs_failed: 0,
      progress: 100,
      is_running: false,
      is_paused: false,
      metric: "sharpe_ratio",
    });
    const result = await api.json("GET", `/api/v1/backtest/sweeps/${sweepId}/result`, 200, { token: user.token });
    expect(result).toMatchObject({
      status: "completed",
      metric: "sharpe_ratio",
      order: "descending",
      runs_total: 4,
      not_ranked: [],
      skipped: [],
      out_of_sample: null,
    });
    ranking = result.ranking;
    expect(result.ranking.map((r: { rank: number }) => r.rank)).toEqual([1, 2, 3, 4]);
    expect(ranking.map((r) => r.parameters).sort((a, b) => a.fast_period - b.fast_period || a.slow_period - b.slow_period)).toEqual([
      { fast_period: 5, slow_period: 20 },
      { fast_period: 5, slow_period: 30 },
      { fast_period: 10, slow_period: 20 },
      { fast_period: 10, slow_period: 30 },
    ]);
    const values = ranking.map((r) => r.value ?? -Infinity);
    expect(values).toEqual([...values].sort((a, b) => b - a));
    for (const run of result.ranking) expect(run.value).toBe(run.performance_metrics.sharpe_ratio);

    // Each run is the backtest started alone with the same parameters: the same fills and metrics.
    for (const run of ranking) {
      const session = await backtestSession(user.token);
      const { backtest_id } = await api.json("POST", "/api/v1/backtest/start", 200, {
        token: user.token,
        body: {
          session_id: session.id,
          strategy_name: "ma_crossover",
          strategy_config: { ...run.parameters, execution: EXECUTION, risk_config: REFERENCE_RISK },
          symbols: ["AAPL.US"],
          ...WINDOW,
          initial_capital: ref.rules.initial_cash,
        },
      });
      expect((await runner.outcome("backtest", `${backtest_id}-1`))?.status).toBe("SUCCEEDED");
      await expectSameResults(api, user.token, [run.backtest_id, backtest_id]);
    }
    // The reference rules' point reproduces the reference engine's fills inside the window.
    const reference = ranking.find((r) => r.parameters.fast_period === ref.rules.fast && r.parameters.slow_period === ref.rules.slow)!;
    const fills = (await api.json("GET", `/api/v1/backtest/${reference.backtest_id}/result`, 200, { token: user.token })).fills;
    const windowEnd = Date.parse(`${WINDOW.end_date}T23:59:59Z`) / 1000;
    const expected = ref.fills.filter((fill) => fill.timestamp <= windowEnd);
    expect(fills.slice(0, expected.length - 1).map((f: { side: string; quantity: string }) => [f.side, Number(f.quantity)])).toEqual(
      expected.slice(0, -1).map((f) => [f.side, f.quantity]),
    );
    // A run of a sweep is controlled through its sweep; the session does not follow a sweep's runs.
    expect((await api.json("POST", `/api/v1/backtest/${reference.backtest_id}/pause`, 409, { token: user.token })).error_code).toBe("INVALID_STATE_TRANSITION");
  });

  it("runs the best runs again out of sample, beside their in-sample metrics, and ranks by the metric asked", async () => {
    const { sweepId } = await startSweep(user.token, { metric: "max_drawdown", out_of_sample: { ...OUT_OF_SAMPLE, top: 2 } });
    const progress = await settled(user.token, sweepId);
    expect(progress).toMatchObject({ status: "completed", runs_done: 4, out_of_sample_total: 2, out_of_sample_done: 2 });
    const result = await api.json("GET", `/api/v1/backtest/sweeps/${sweepId}/result`, 200, { token: user.token });
    expect(result).toMatchObject({ metric: "max_drawdown", order: "ascending", out_of_sample: { ...OUT_OF_SAMPLE, top: 2 } });
    const drawdowns = result.ranking.map((r: { value: number }) => r.value);
    expect(drawdowns).toEqual([...drawdowns].sort((a, b) => a - b));
    const [first, second, ...rest] = result.ranking;
    for (const best of [first, second]) {
      expect(best.out_of_sample).toMatchObject({ status: "completed", value: best.out_of_sample.performance_metrics.max_drawdown });
      const oos = await api.json("GET", `/api/v1/backtest/${best.out_of_sample.backtest_id}/result`, 200, { token: user.token });
      expect(oos).toMatchObject({ start_date: OUT_OF_SAMPLE.start_date, end_date: OUT_OF_SAMPLE.end_date, strategy_name: "ma_crossover" });
      expect(oos.bars_processed).toBeGreaterThan(0);
    }
    for (const other of rest) expect(other.out_of_sample).toBeNull();
  });

  it("stores the grid's runs to expire 30 days after the plan created them, keeps the best and the out-of-sample runs, and reads a run past its ttl as gone", async () => {
    const before = Math.floor(Date.now() / 1000);
    const { sweepId } = await startSweep(user.token, { out_of_sample: { ...OUT_OF_SAMPLE, top: 1 } });
    expect(await settled(user.token, sweepId)).toMatchObject({ status: "completed", runs_done: 4, out_of_sample_done: 1 });
    const result = await api.json("GET", `/api/v1/backtest/sweeps/${sweepId}/result`, 200, { token: user.token });
    // SWEEP_RUN_TTL_DAYS unset: 30 days from the plan.
    const expiresAt = Date.parse(result.runs_expire_at) / 1000;
    expect(expiresAt).toBeGreaterThanOrEqual(before + 30 * 86_400);
    expect(expiresAt).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 30 * 86_400);
    const { db } = api.services;
    const stored = async (id: string) => (await db.client.send(new GetCommand({ TableName: db.tableName, Key: Keys.backtest(id) }))).Item;
    const [best, ...others] = result.ranking;
    expect(others).toHaveLength(3);
    // The best run (out_of_sample.top of them) and its out-of-sample run carry no ttl; the other runs carry the sweep's instant.
    expect((await stored(best.backtest_id))!.ttl).toBeUndefined();
    expect((await stored(best.out_of_sample.backtest_id))!.ttl).toBeUndefined();
    for (const other of others) expect((await stored(other.backtest_id))!.ttl).toBe(expiresAt);
    // So do their runs' own items (state, event and order blocks, order items), the kept runs' none (Finalize's keepForever).
    const runTtls = async (id: string) => {
      const state = (await db.client.send(new GetCommand({ TableName: db.tableName, Key: Keys.runState(id) }))).Item!;
      const blocks = await db.client.send(
        new QueryCommand({ TableName: db.tableName, KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": Keys.runBlocks(id) } }),
      );
      expect(blocks.Items!.length).toBeGreaterThan(0);
      return [...new Set([state.ttl, ...blocks.Items!.map((item) => item.ttl)])];
    };
    expect(await runTtls(best.backtest_id)).toEqual([undefined]);
    expect(await runTtls(best.out_of_sample.backtest_id)).toEqual([undefined]);
    for (const other of others) expect(await runTtls(other.backtest_id)).toEqual([expiresAt]);

    // Past its ttl (DynamoDB deletes within days: reads must not wait for it), a run is gone: 404, and the result leaves it out.
    const gone = others[0].backtest_id;
    await db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: Keys.backtest(gone),
        UpdateExpression: "SET #ttl = :past",
        ExpressionAttributeNames: { "#ttl": "ttl" },
        ExpressionAttributeValues: { ":past": Math.floor(Date.now() / 1000) - 1 },
      }),
    );
    expect(await stored(gone)).toBeDefined();
    const missing = await api.json("GET", `/api/v1/backtest/${gone}/progress`, 404, { token: user.token });
    expect(missing.error_code).toBe("BACKTEST_NOT_FOUND");
    const after = await api.json("GET", `/api/v1/backtest/sweeps/${sweepId}/result`, 200, { token: user.token });
    expect(after.runs_total).toBe(4);
    expect(after.ranking.map((r: { backtest_id: string }) => r.backtest_id)).toEqual(
      result.ranking.map((r: { backtest_id: string }) => r.backtest_id).filter((id: string) => id !== gone),
    );
    expect(after.not_ranked.map((r: { backtest_id: string }) => r.backtest_id)).not.toContain(gone);
  });

  it("keeps a sweep's runs SWEEP_RUN_TTL_DAYS days, 30 unless configured", () => {
    const secret = new Uint8Array(32);
    expect(configFromEnv({}, secret).sweepRunTtlDays).toBe(30);
    expect(configFromEnv({ SWEEP_RUN_TTL_DAYS: "7" }, secret).sweepRunTtlDays).toBe(7);
    expect(configFromEnv({ SWEEP_RUN_TTL_DAYS: "0" }, secret).sweepRunTtlDays).toBe(0);
    expect(api.services.trading.backtests.sweepRunTtlDays).toBe(30);
  });

  it("runs each run as one Express child of the Standard sweep: Prepare, its one chunk, Finalize", async () => {
    usage.length = 0;
    const { sweepId } = await startSweep(user.token);
    expect(await settled(user.token, sweepId)).toMatchObject({ status: "completed", runs_done: 4 });
    const children = usage.filter((step) => step.kind === "child");
    expect(children.map((child) => [child.workflow, child.map, child.execution])).toEqual(Array(4).fill(["sweep", "RunBacktests", "EXPRESS"]));
    const states = usage.filter((step): step is Extract<WorkflowUsage, { kind: "state" }> => step.kind === "state");
    const inChildren = states.filter((step) => step.execution === "EXPRESS").map((step) => step.state);
    // Each child: RunPrepare, RunRoute, RunChunk, RunAfterChunk, RunFinalize, RunDone (the daily bars fit in one chunk).
    expect(inChildren.filter((state) => state === "RunPrepare")).toHaveLength(4);
    expect(inChildren).toHaveLength(4 * 6);
    expect(inChildren).not.toContain("RunYield");
    // The sweep's own: Plan, RouteByStatus, RunBacktests, Plan, RouteByStatus, Finalize, Done.
    expect(states.filter((step) => step.execution === "STANDARD").map((step) => step.state)).toEqual([
      "Plan",
      "RouteByStatus",
      "RunBacktests",
      "Plan",
      "RouteByStatus",
      "Finalize",
      "Done",
    ]);
  });

  it("cuts a run longer than a chunk into children: it yields after each chunk and goes on in the next round, to the same ranking", async () => {
    const deps = api.services.trading.backtests;
    const chunkBars = deps.chunkBars;
    // About a third of the window's bars per chunk: every run takes three children.
    deps.chunkBars = 120;
    usage.length = 0;
    try {
      const { sweepId } = await startSweep(user.token);
      expect(await settled(user.token, sweepId)).toMatchObject({ status: "completed", runs_done: 4 });
      const result = await api.json("GET", `/api/v1/backtest/sweeps/${sweepId}/result`, 200, { token: user.token });
      const rounds = usage.filter((step) => step.kind === "state" && step.state === "RunBacktests").length;
      const yields = usage.filter((step) => step.kind === "state" && step.state === "RunYield").length;
      const children = usage.filter((step) => step.kind === "child").length;
      expect(rounds).toBeGreaterThanOrEqual(3);
      expect(children).toBe(4 + yields);
      expect(yields).toBeGreaterThanOrEqual(2 * 4);
      // The same runs as uncut: each chunk goes on from the checkpoint the last one wrote.
      if (ranking)
        expect(result.ranking.map((r: { parameters: object; value: number }) => [r.parameters, r.value])).toEqual(ranking.map((r) => [r.parameters, r.value]));
    } finally {
      deps.chunkBars = chunkBars;
    }
  });

  it("pauses every run at a checkpoint, resumes to the unpaused ranking, and stops with what completed", async () => {
    const { sweepId } = await startSweep(user.token);
    expect((await api.json("POST", `/api/v1/backtest/sweeps/${sweepId}/pause`, 200, { token: user.token })).status).toBe("pausing");
    const paused = await settled(user.token, sweepId);
    expect(paused).toMatchObject({ status: "paused", is_paused: true, is_running: false });
    expect(paused.runs_done).toBeLessThan(4);
    await api.json("GET", `/api/v1/backtest/sweeps/${sweepId}/result`, 409, { token: user.token });
    expect((await api.json("POST", `/api/v1/backtest/sweeps/${sweepId}/resume`, 200, { token: user.token })).status).toBe("queued");
    expect(await settled(user.token, sweepId, 2)).toMatchObject({ status: "completed", runs_done: 4 });
    const resumed = await api.json("GET", `/api/v1/backtest/sweeps/${sweepId}/result`, 200, { token: user.token });
    expect(resumed.ranking.map((r: { parameters: object; value: number }) => [r.parameters, r.value])).toEqual(ranking.map((r) => [r.parameters, r.value]));
    await api.json("POST", `/api/v1/backtest/sweeps/${sweepId}/resume`, 409, { token: user.token });

    const stopping = await startSweep(user.token);
    expect((await api.json("POST", `/api/v1/backtest/sweeps/${stopping.sweepId}/stop`, 200, { token: user.token })).status).toBe("stopping");
    expect(await settled(user.token, stopping.sweepId)).toMatchObject({ status: "stopped", is_running: false });
    const stopped = await api.json("GET", `/api/v1/backtest/sweeps/${stopping.sweepId}/result`, 200, { token: user.token });
    expect(stopped.status).toBe("stopped");
    expect(stopped.ranking.length + stopped.not_ranked.length).toBe(4);
    await api.json("POST", `/api/v1/backtest/sweeps/${stopping.sweepId}/pause`, 409, { token: user.token });
  });

  it("ends paused, never completed, when a pause is accepted after its last run ended and before it is finalised; a resume finalises it", async () => {
    // Its tasks driven by hand on an instance of its own, in the machine's order.
    const manual = await createTestApi({}, { workflows: { start: async () => undefined } });
    const candles = ref.bars.map((b) => ({ ...b, timestamp: b.timestamp / 1000, turnover: 0, trade_session: "Intraday" as const }));
    await manual.services.candles.upsert("AAPL.US", "1d", CandleBatches.fromCandles(candles));
    const owner = await manual.createUser();
    const session = await manual.json("POST", "/api/v1/trading/sessions", 201, {
      token: owner.token,
      body: { session_name: "sweep", trading_mode: "backtest", asset_mode: "simulated", initial_capital: ref.rules.initial_cash, config: {} },
    });
    const { sweep_id } = await manual.json("POST", "/api/v1/backtest/sweeps", 200, {
      token: owner.token,
      body: {
        session_id: session.id,
        strategy_name: "ma_crossover",
        strategy_config: { execution: EXECUTION, risk_config: REFERENCE_RISK },
        parameters: { fast_period: [10], slow_period: [30] },
        symbols: ["AAPL.US"],
        ...WINDOW,
        initial_capital: ref.rules.initial_cash,
      },
    });
    const deps = manual.services.trading.backtests;
    const planned = await Sweeps.plan(deps, { sweep_id });
    expect(planned).toMatchObject({ status: "running", runs: [expect.any(String)] });
    for (const backtest_id of planned.runs) {
      let step = await Backtests.prepare(deps, { backtest_id });
      while (step.status === "running") step = await Backtests.runChunk(deps, { backtest_id }, Date.now() + 60_000);
      await Backtests.finalize(deps, { backtest_id });
    }
    expect((await Sweeps.plan(deps, { sweep_id })).status).toBe("done");
    // The pause arrives now, between the plan's last look and Finalize.
    expect((await manual.json("POST", `/api/v1/backtest/sweeps/${sweep_id}/pause`, 200, { token: owner.token })).status).toBe("pausing");
    expect((await Sweeps.finalize(deps, { sweep_id })).status).toBe("paused");
    expect(await manual.json("GET", `/api/v1/backtest/sweeps/${sweep_id}`, 200, { token: owner.token })).toMatchObject({ status: "paused", runs_done: 1 });
    await manual.json("GET", `/api/v1/backtest/sweeps/${sweep_id}/result`, 409, { token: owner.token });
    expect((await manual.json("POST", `/api/v1/backtest/sweeps/${sweep_id}/resume`, 200, { token: owner.token })).status).toBe("queued");
    expect((await Sweeps.plan(deps, { sweep_id })).status).toBe("done");
    expect((await Sweeps.finalize(deps, { sweep_id })).status).toBe("done");
    expect((await manual.json("GET", `/api/v1/backtest/sweeps/${sweep_id}/result`, 200, { token: owner.token })).ranking).toHaveLength(1);
  });

  it("answers 422 naming out-of-range values and stating an oversized grid's size, 404 and 403 as for backtests", async () => {
    const session = await backtestSession(user.token);
    const body = { session_id: session.id, strategy_name: "ma_crossover", strategy_config: {}, symbols: ["AAPL.US"], ...WINDOW, initial_capital: 100_000 };
    const outOfRange = await api.json("POST", "/api/v1/backtest/sweeps", 422, {
      token: user.token,
      body: { ...body, parameters: { fast_period: [5, 0, -3], slow_period: { min: 20, max: 100_000, step: 10 }, colour: ["red"] } },
    });
    const problems = outOfRange.detail.map((d: { loc: (string | number)[]; msg: string }) => [d.loc.join("."), d.msg]);
    expect(problems.map(([loc]: string[]) => loc)).toEqual([
      "body.parameters.fast_period.1",
      "body.parameters.fast_period.2",
      "body.parameters.slow_period.max",
      "body.parameters.colour",
    ]);
    expect(problems[0][1]).toContain("fast_period = 0");
    const tooLarge = await api.json("POST", "/api/v1/backtest/sweeps", 422, {
      token: user.token,
      body: { ...body, parameters: { fast_period: { min: 2, max: 40, step: 1 }, slow_period: { min: 50, max: 200, step: 5 } } },
    });
    expect(tooLarge.detail[0].msg).toContain("the grid has 1209 runs");
    const overMax = await api.json("POST", "/api/v1/backtest/sweeps", 422, { token: user.token, body: { ...body, parameters: GRID, max_runs: 3 } });
    expect(overMax.detail[0].msg).toContain("the grid has 4 runs, more than max_runs (3");
    await api.json("POST", "/api/v1/backtest/sweeps", 422, { token: user.token, body: { ...body, parameters: GRID, max_runs: 1001 } });
    await api.json("POST", "/api/v1/backtest/sweeps", 422, { token: user.token, body: { ...body, parameters: GRID, metric: "luck" } });
    // The benchmark is asked of the provider as the symbols are (with the request's other problems, and alone).
    const unknownBenchmark = await api.json("POST", "/api/v1/backtest/sweeps", 422, {
      token: user.token,
      body: { ...body, parameters: GRID, benchmark: "FOOBAR.US", metric: "luck" },
    });
    expect(unknownBenchmark.detail.map((d: { loc: string[] }) => d.loc.join("."))).toEqual(expect.arrayContaining(["body.benchmark", "body.metric"]));
    const benchmarkAlone = await api.json("POST", "/api/v1/backtest/sweeps", 422, {
      token: user.token,
      body: { ...body, parameters: GRID, benchmark: "FOOBAR.US" },
    });
    expect(benchmarkAlone.detail.map((d: { loc: string[]; type: string }) => [d.loc.join("."), d.type])).toEqual([["body.benchmark", "invalid_symbol"]]);

    const { sweepId } = await startSweep(user.token, { parameters: { fast_period: [10], slow_period: [30] } });
    expect((await api.json("GET", "/api/v1/backtest/sweeps/nope", 404, { token: user.token })).error_code).toBe("SWEEP_NOT_FOUND");
    const other = await api.createUser();
    expect((await api.json("GET", `/api/v1/backtest/sweeps/${sweepId}`, 403, { token: other.token })).error_code).toBe("ACCESS_DENIED");
    expect((await api.json("POST", `/api/v1/backtest/sweeps/${sweepId}/stop`, 403, { token: other.token })).error_code).toBe("ACCESS_DENIED");
    await api.json("POST", "/api/v1/backtest/sweeps", 403, { token: other.token, body: { ...body, parameters: GRID } });
    await settled(user.token, sweepId);
  });
});
