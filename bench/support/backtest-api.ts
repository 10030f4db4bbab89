import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import WebSocket from "ws";
import type { DynamoCandleStore } from "../../packages/adapters/src/stores/candle-store";
import { ApiClient } from "../../test/support/api-client";
import { startLocalRuntime, type LocalRuntime } from "../../packages/local/src/runtime";
import type { WorkflowUsage } from "../../packages/local/src/workflow-runner";
import { profiled } from "./profile";

type Row = Record<string, string | number>;

/** A task of the workflow runner, as it ended. */
interface TaskTime {
  state: string;
  ms: number;
  input: unknown;
}

/** The embedded runtime (`npm start`'s, in this process so its workflow tasks can be timed), logged in as the administrator. */
export async function embeddedRuntime(): Promise<{
  runtime: LocalRuntime;
  client: ApiClient;
  tasks: TaskTime[];
  /** What Step Functions would bill, as the local runner metered it (bench/support/step-functions.ts prices it). */
  workflowUsage: WorkflowUsage[];
  stop: () => Promise<void>;
}> {
  const dataDir = mkdtempSync(join(tmpdir(), "tp-bench-backtest-"));
  const tasks: TaskTime[] = [];
  const workflowUsage: WorkflowUsage[] = [];
  const runtime = await startLocalRuntime({
    env: { ...process.env, DATA_DIR: dataDir, PORT: "0", CAPTCHA_TEST_CODE: "bench", SESSION_WORKER: "off" },
    log: () => undefined,
    observeTasks: (task) => tasks.push(task),
    meterWorkflows: (step) => workflowUsage.push(step),
  });
  const client = new ApiClient(runtime.urls.base);
  await client.loginAdmin(dataDir, "bench");
  return {
    runtime,
    client,
    tasks,
    workflowUsage,
    stop: async () => {
      await runtime.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const YEAR_OF_MINUTES = {
  strategy_name: "ma_crossover",
  strategy_config: { fast_period: 50, slow_period: 200, execution: { timeframe: "1m", commission: { model: "broker", broker_type: "longport" } } },
  symbols: ["AAPL.US"],
  start_date: "2024-01-01",
  end_date: "2024-12-31",
};

/** What the backtest tasks' storage calls took, by what they do: wraps the stores' methods of the runtime's backtest services. */
function storageTimes(runtime: LocalRuntime) {
  const deps = runtime.services.trading.backtests;
  const spent = new Map<string, number>();
  const time = (store: object, method: string, label: string) => {
    const target = store as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const original = target[method]!.bind(store);
    target[method] = async (...args: unknown[]) => {
      const started = performance.now();
      try {
        return await original(...args);
      } finally {
        spent.set(label, (spent.get(label) ?? 0) + performance.now() - started);
      }
    };
  };
  time(deps.candles, "summaries", "coverage");
  time(deps.candles, "loadBetween", "candles");
  time(deps.runs, "save", "run saves");
  time(deps.runs, "get", "run reads");
  time(deps.runs, "events", "log reads");
  time(deps.backtests, "replace", "backtest writes");
  time(deps.sessions, "replace", "backtest writes");
  return {
    take(): Record<string, number> {
      const taken = Object.fromEntries(spent);
      spent.clear();
      return taken;
    },
  };
}

/** How the bench learns that a backtest ended: as the console does (its session's socket), or by polling progress every `BENCH_POLL_MS` (5 ms). */
type Waiting = "socket" | "polling";

/**
 * One backtest of the year from the POST of `/backtest/start` to its result, with the times
 * between: its session is made first (untimed), and the end is learnt from the session's socket
 * (the `done` progress push, as the console's page waits) or by polling progress.
 */
async function oneBacktest(client: ApiClient, wsBase: string, waiting: Waiting) {
  const session = await client.expect("POST", "/api/v1/trading/sessions", 201, {
    session_name: "backtest",
    trading_mode: "backtest",
    asset_mode: "simulated",
    initial_capital: 100_000,
    config: {},
  });
  const socket = waiting === "socket" ? await pushes(`${wsBase}/ws/trading/${session.id}?token=${client.token}`) : undefined;
  try {
    const started = performance.now();
    const { backtest_id: backtestId } = await client.expect("POST", "/api/v1/backtest/start", 200, {
      session_id: session.id,
      initial_capital: 100_000,
      ...YEAR_OF_MINUTES,
    });
    const posted = performance.now();
    let progress: { status: string; bars_processed: number };
    if (socket) progress = await socket.ended;
    else
      for (;;) {
        progress = await client.expect("GET", `/api/v1/backtest/${backtestId}/progress`, 200);
        if (progress.status === "completed" || progress.status === "failed") break;
        await new Promise((resolve) => setTimeout(resolve, Number(process.env.BENCH_POLL_MS ?? 5)));
      }
    const completed = performance.now();
    const result = await client.expect("GET", `/api/v1/backtest/${backtestId}/result`, 200);
    return { started, posted, completed, ended: performance.now(), progress, result };
  } finally {
    socket?.ws.close(1000);
  }
}

/** A session's socket, and the data of the `backtest_progress` push that ends its backtest. */
async function pushes(url: string): Promise<{ ws: WebSocket; ended: Promise<{ status: string; bars_processed: number }> }> {
  const ws = new WebSocket(url);
  const ended = new Promise<{ status: string; bars_processed: number }>((resolve, reject) => {
    ws.on("message", (raw) => {
      const message = JSON.parse(raw.toString());
      if (message.type === "backtest_progress" && (message.data.stage === "done" || ["failed", "stopped"].includes(message.data.status))) resolve(message.data);
    });
    ws.once("close", () => reject(new Error("the socket closed before the backtest ended")));
  });
  ended.catch(() => undefined);
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  return { ws, ended };
}

/**
 * A year of 1-minute bars of AAPL.US through the embedded runtime's HTTP API: first with the
 * candles imported from the simulated provider; then three times with them stored, the end learnt
 * from the session's socket (as the console's page learns it); three times by polling progress
 * every `BENCH_POLL_MS`; twice with the process's candle cache emptied first. Each stage is timed
 * (the POST, every task of the state machine, the GET of the result; what is left of the wall
 * time is the runner's and the client's own waiting), and inside them the time of the storage
 * calls (the coverage check's read of the bucket summaries, the candles' reads, the run's saves
 * and reads, the log's reads for the result, the backtest's and session's writes; the progress
 * polls' reads are among them).
 */
export async function endToEndBacktest({
  client,
  tasks,
  runtime,
}: Pick<Awaited<ReturnType<typeof embeddedRuntime>>, "client" | "tasks" | "runtime">): Promise<{ runs: Row[]; stages: Row[]; storage: Row[] }> {
  {
    const runs: Row[] = [];
    const stages: Row[] = [];
    const storage: Row[] = [];
    const spent = storageTimes(runtime);
    const stored = "candles already stored";
    const uncached = "candles stored, the process's candle cache emptied";
    const cases: [string, Waiting][] = [
      ["candles imported first (simulated provider)", "socket"],
      ...Array.from({ length: 3 }, (): [string, Waiting] => [stored, "socket"]),
      ...Array.from({ length: 3 }, (): [string, Waiting] => [stored, "polling"]),
      ...Array.from({ length: 2 }, (): [string, Waiting] => [uncached, "socket"]),
    ];
    for (const [index, [candles, waiting]] of cases.entries()) {
      const label = `${candles}, ${waiting === "socket" ? "end from the socket" : `progress polled every ${process.env.BENCH_POLL_MS ?? 5} ms`}`;
      if (candles === uncached) (runtime.services.candles as DynamoCandleStore).cache.clear();
      // The previous run's workflow reports its last tasks after its result is out: they are not this run's.
      await new Promise((resolve) => setTimeout(resolve, 200));
      tasks.length = 0;
      spent.take();
      const timed = await profiled(`backtest-${index}`, () => oneBacktest(client, runtime.urls.websocket, waiting));
      const { started, posted, completed, ended, progress, result } = timed;
      const seconds = (ended - started) / 1000;
      runs.push({
        run: label,
        bars: progress.bars_processed.toLocaleString("en-US"),
        fills: result.fills.length,
        "POST → result s": seconds.toFixed(2),
        "bars/s": Math.round(progress.bars_processed / seconds).toLocaleString("en-US"),
        aim: "≤ 0.5 s, ≥ 200,000",
      });
      const ms = (state: string) => tasks.filter((task) => task.state === state).reduce((sum, task) => sum + task.ms, 0);
      const chunks = tasks.filter((task) => task.state === "RunChunk");
      const inTasks = tasks.reduce((sum, task) => sum + task.ms, 0);
      const http = posted - started + (ended - completed);
      stages.push({
        run: label,
        "POST ms": (posted - started).toFixed(0),
        "Prepare ms": `${ms("Prepare").toFixed(0)} (${tasks.filter((task) => task.state === "Prepare").length}×)`,
        "RunChunk ms": chunks.map((task) => task.ms.toFixed(0)).join(" + "),
        "Finalize ms": ms("Finalize").toFixed(0),
        "GET result ms": (ended - completed).toFixed(0),
        "waits ms": Math.max(0, ended - started - inTasks - http).toFixed(0),
        "total ms": (ended - started).toFixed(0),
      });
      const storageMs = spent.take();
      const of = (label: string) => (storageMs[label] ?? 0).toFixed(0);
      storage.push({
        run: label,
        "coverage ms": of("coverage"),
        "candle reads ms": of("candles"),
        "run saves ms": of("run saves"),
        "run reads ms": of("run reads"),
        "log reads ms": of("log reads"),
        "backtest/session writes ms": of("backtest writes"),
      });
    }
    return { runs, stages, storage };
  }
}

/** Polls a sweep every `everyMs` until it has ended. */
async function sweepEnded(client: ApiClient, sweepId: string, everyMs = 20) {
  for (;;) {
    const progress = await client.expect("GET", `/api/v1/backtest/sweeps/${sweepId}`, 200);
    if (!progress.is_running && !progress.is_paused) return progress;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/**
 * Parameter sweeps of the SMA crossover through the same runtime: 100 runs over five years of
 * daily bars of one symbol (imported from the simulated provider by a first, untimed sweep of
 * one run), and 25 runs over the year of 1-minute bars `endToEndBacktest` stored: wall time from
 * the POST to the ranked result, runs and bars per second, at the runtime's concurrency.
 */
export async function sweeps({ client }: Pick<Awaited<ReturnType<typeof embeddedRuntime>>, "client">, concurrency: number): Promise<Row[]> {
  const cases = [
    {
      name: "100 runs, 5 years of daily bars",
      request: {
        strategy_name: "ma_crossover",
        strategy_config: { execution: { timeframe: "1d", commission: { model: "broker", broker_type: "longport" } } },
        parameters: { fast_period: { min: 5, max: 50, step: 5 }, slow_period: { min: 60, max: 150, step: 10 } },
        symbols: ["MSFT.US"],
        start_date: "2020-01-01",
        end_date: "2024-12-31",
      },
    },
    {
      name: "25 runs, a year of 1-minute bars",
      request: {
        strategy_name: "ma_crossover",
        strategy_config: { execution: { timeframe: "1m", commission: { model: "broker", broker_type: "longport" } } },
        parameters: { fast_period: { min: 10, max: 50, step: 10 }, slow_period: { min: 100, max: 300, step: 50 } },
        symbols: ["AAPL.US"],
        start_date: "2024-01-01",
        end_date: "2024-12-31",
      },
    },
  ];
  const rows: Row[] = [];
  for (const { name, request } of cases) {
    const session = await client.expect("POST", "/api/v1/trading/sessions", 201, {
      session_name: "sweep",
      trading_mode: "backtest",
      asset_mode: "simulated",
      initial_capital: 100_000,
      config: {},
    });
    const body = { session_id: session.id, initial_capital: 100_000, ...request };
    // The candles first (imported once), so the timed sweep reads stored bars as a backtest's second run does.
    const warm = await client.expect("POST", "/api/v1/backtest/sweeps", 200, { ...body, parameters: { fast_period: [10], slow_period: [200] } });
    await sweepEnded(client, warm.sweep_id);
    const started = performance.now();
    const { sweep_id, runs } = await client.expect("POST", "/api/v1/backtest/sweeps", 200, body);
    const progress = await sweepEnded(client, sweep_id);
    const result = await client.expect("GET", `/api/v1/backtest/sweeps/${sweep_id}/result`, 200);
    const seconds = (performance.now() - started) / 1000;
    const best = result.ranking[0];
    const bars = (await client.expect("GET", `/api/v1/backtest/${best.backtest_id}/progress`, 200)).bars_total as number;
    rows.push({
      sweep: name,
      runs,
      completed: progress.runs_done,
      "bars per run": bars.toLocaleString("en-US"),
      concurrency,
      "wall s": seconds.toFixed(1),
      "runs/s": (runs / seconds).toFixed(2),
      "bars/s": Math.round((runs * bars) / seconds).toLocaleString("en-US"),
      best: `${JSON.stringify(best.parameters)} sharpe ${best.value?.toFixed(2) ?? "–"}`,
    });
  }
  return rows;
}

/**
 * A walk-forward of the SMA crossover through the same runtime (issue 39 item 6): 10 rolling
 * windows (ratio 0.8: 368 in-sample and 89 out-of-sample trading days each) over five years of
 * daily bars of MSFT.US, the 100-point grid of the daily sweep on every in-sample part: 1,000
 * in-sample runs and 10 out of sample, after an untimed one-run sweep that imported the candles.
 * Wall time from the POST to the result, and how the runs' time splits (the tasks the runner
 * observed: summed over the runs, so above the wall time at a concurrency above 1).
 */
export async function walkForward(
  { client, tasks, runtime }: Pick<Awaited<ReturnType<typeof embeddedRuntime>>, "client" | "tasks" | "runtime">,
  concurrency: number,
): Promise<{ rows: Row[]; stages: Row[]; storage: Row[] }> {
  const session = await client.expect("POST", "/api/v1/trading/sessions", 201, {
    session_name: "walk-forward",
    trading_mode: "backtest",
    asset_mode: "simulated",
    initial_capital: 100_000,
    config: {},
  });
  const body = {
    session_id: session.id,
    initial_capital: 100_000,
    strategy_name: "ma_crossover",
    strategy_config: { execution: { timeframe: "1d", commission: { model: "broker", broker_type: "longport" } } },
    parameters: { fast_period: { min: 5, max: 50, step: 5 }, slow_period: { min: 60, max: 150, step: 10 } },
    symbols: ["MSFT.US"],
    start_date: "2020-01-01",
    end_date: "2024-12-31",
  };
  const warm = await client.expect("POST", "/api/v1/backtest/sweeps", 200, { ...body, parameters: { fast_period: [10], slow_period: [200] } });
  await sweepEnded(client, warm.sweep_id);
  // Where the runs' time goes: the backtest tasks' storage calls, and the progress pushes' appends to the session's feed.
  const spent = storageTimes(runtime);
  const feed = runtime.services.trading.channels.feed as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const append = feed.append!.bind(feed);
  let pushes = { ms: 0, count: 0 };
  feed.append = async (...args: unknown[]) => {
    const started = performance.now();
    try {
      return await append(...args);
    } finally {
      pushes = { ms: pushes.ms + performance.now() - started, count: pushes.count + 1 };
    }
  };
  const from = tasks.length;
  const started = performance.now();
  const { sweep_id, runs } = await client.expect("POST", "/api/v1/backtest/sweeps", 200, {
    ...body,
    walk_forward: { windows: 10, mode: "rolling", ratio: 0.8 },
  });
  // Polled every 250 ms, as the rows before the grid were (each poll then read all 1,010 runs; now the grid's chunk items and the stored runs).
  const progress = await sweepEnded(client, sweep_id, 250);
  const result = await client.expect("GET", `/api/v1/backtest/sweeps/${sweep_id}/result`, 200);
  const seconds = (performance.now() - started) / 1000;
  const wf = result.walk_forward;
  const window = wf.windows[0];
  const ran = tasks.slice(from);
  const byState = new Map<string, { ms: number; count: number }>();
  for (const task of ran) {
    const entry = byState.get(task.state) ?? { ms: 0, count: 0 };
    byState.set(task.state, { ms: entry.ms + task.ms, count: entry.count + 1 });
  }
  const total = runs + progress.out_of_sample_total;
  feed.append = append;
  const storage = Object.entries({ ...spent.take(), [`progress pushes (${pushes.count})`]: pushes.ms }).map(([call, ms]) => ({
    "storage call": call,
    "s summed": (ms / 1000).toFixed(1),
    "ms per run": (ms / total).toFixed(1),
  }));
  return {
    storage,
    rows: [
      {
        "walk-forward": "10 windows × 100 points, 5 years of daily bars",
        "in-sample runs": runs,
        "out-of-sample runs": progress.out_of_sample_total,
        completed: progress.runs_done + progress.out_of_sample_done,
        "bars per run (in / out)": `${window.in_sample.trading_days} / ${window.out_of_sample.trading_days}`,
        concurrency,
        "wall s": seconds.toFixed(1),
        "runs/s": (total / seconds).toFixed(2),
        "aim s": 60,
        efficiency: wf.efficiency === null ? "–" : wf.efficiency.toFixed(2),
      },
    ],
    stages: [...byState].map(([state, { ms, count }]) => ({
      task: state,
      calls: count,
      "ms per call": (ms / count).toFixed(1),
      "s summed": (ms / 1000).toFixed(1),
      "ms per run": (ms / total).toFixed(1),
    })),
  };
}
