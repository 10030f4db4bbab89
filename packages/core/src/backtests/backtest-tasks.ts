import { CorporateActions, PriceAdjuster } from "../candles/corporate-actions";
import { DomainError } from "../errors";
import { barCloseIn, TradingEngine } from "../engine/engine";
import type { EngineEvent } from "../engine/events";
import type { EngineSetup } from "../engine/setup";
import type { Timeframe } from "../strategies/definition";
import type { Bar, BarColumns } from "../strategies/strategy";
import { marketOf, Markets } from "../market/market";
import { iso } from "../util/time";
import { feedsOf } from "../trading/session/config";
import { warmupWindows, warmUpFromStore } from "../trading/drivers/warm-up";
import type { StoredRun } from "../trading/run/runs";
import { engineOf, updateRun } from "../trading/run/update";
import { runSetup } from "../trading/session/run-setup";
import { capitalOf } from "../trading/session/sessions";
import type { BacktestTaskInput, BacktestTaskOutput } from "../workflows";
import { TERMINAL } from "./control";
import type { BacktestDeps, BacktestSummary, PriceAdjustment, StoredBacktest } from "./backtest-model";
import { backtestNotFound, runIdOf, syncSession, updateBacktest } from "./backtest-control";
import { summaryOf } from "./backtest-result";
import { benchmarkOf } from "./benchmark";
import { BarFeed, type BarSink } from "../candles/bar-feed";
import { importMissing, importsDone } from "./candle-coverage";

/**
 * The backtest state machine's tasks (prepare → run chunk → … → finalize, and fail): each reads
 * the backtest and its run and writes them back version-checked, so any of them may be retried.
 */

const out = (backtest: StoredBacktest, status: BacktestTaskOutput["status"]): BacktestTaskOutput => ({ backtest_id: backtest.id, status });

/** A flag raised since the last task: the machine's Choice acts on it. */
async function flagged(deps: BacktestDeps, backtest: StoredBacktest): Promise<BacktestTaskOutput | null> {
  if (backtest.stop_requested || backtest.status === "stopping") return out(backtest, "stopped");
  const sweep = backtest.sweep_id ? await deps.sweeps.flags(backtest.sweep_id) : undefined;
  if (sweep?.stop_requested) return out(backtest, "stopped");
  if (backtest.pause_requested || sweep?.pause_requested) {
    const paused = await updateBacktest(deps, backtest.id, (b) =>
      b.pause_requested || sweep?.pause_requested ? { ...b, status: "paused", message: "Paused at a checkpoint" } : undefined,
    );
    if (paused) return out(paused, "paused");
  }
  return null;
}

/** Whether a pause or stop was asked of the backtest or of its sweep (read again while a chunk runs). */
async function flagRaised(deps: BacktestDeps, id: string): Promise<boolean> {
  const latest = await deps.backtests.get(id);
  if (!latest) return false;
  if (latest.pause_requested || latest.stop_requested) return true;
  const sweep = latest.sweep_id ? await deps.sweeps.flags(latest.sweep_id) : undefined;
  return sweep !== undefined && (sweep.pause_requested || sweep.stop_requested);
}

/**
 * Prepare: on the first pass, finds the trading days without candles and imports them through
 * the import worker (keeping stored candles); answers `importing` until those imports end, then
 * creates the run and answers `running`. A resumed backtest answers `running` at once.
 */
export async function prepare(deps: BacktestDeps, input: BacktestTaskInput): Promise<BacktestTaskOutput> {
  let backtest = await deps.backtests.get(input.backtest_id);
  if (!backtest) throw backtestNotFound(input.backtest_id);
  if (TERMINAL.includes(backtest.status)) return out(backtest, backtest.status === "completed" ? "done" : "stopped");
  // Whether a run exists (a retried task), asked beside the flags and without reading the run's state.
  const [raised, existing] = await Promise.all([flagged(deps, backtest), deps.runs.progress(runIdOf(backtest))]);
  if (raised) return raised;
  // A run of a sweep paused with its sweep continues when the sweep's next execution reaches it.
  const continues = (b: StoredBacktest) => b.status === "queued" || b.status === "importing" || (b.sweep_id !== undefined && b.status === "paused");
  if (existing !== undefined) {
    const running = await updateBacktest(deps, backtest.id, (b) => (continues(b) ? { ...b, status: "running", message: "Running" } : b));
    return out(running!, "running");
  }
  const feeds = feedsOf(backtest.config);
  // The engine's setup (lot sizes, rates, fees) is looked up while the coverage is checked.
  const setup = setupOf(deps, backtest);
  setup.catch(() => undefined);
  // Bars of the window, counted from the same read that finds the missing days (when nothing is imported).
  let barsTotal: number | null = backtest.candles_ready ? backtest.bars_total : null;
  if (!backtest.candles_ready && backtest.import_task_ids.length === 0 && backtest.status === "queued") {
    const history = backtest.config.execution.warm_up ? warmupWindows(new TradingEngine(await setup), backtest.window[0]) : [];
    const from = (feed: { symbol: string; timeframe: string }) =>
      history.find(({ need }) => need.symbol === feed.symbol && need.timeframe === feed.timeframe)?.from ?? backtest!.window[0];
    const { started, busy, bars } = await importMissing(
      deps,
      backtest.user_id,
      [
        ...feeds.map((feed) => ({ ...feed, from: from(feed) })),
        // The benchmark's daily candles, read when the result is recorded: imported like the run's, never fed.
        ...(backtest.benchmark ? [{ symbol: backtest.benchmark, timeframe: "1d" as const, from: backtest.window[0], fed: false as const }] : []),
      ],
      backtest.window,
    );
    if (busy) return out(backtest, "importing");
    if (started.length > 0) {
      // A pause asked for meanwhile stays what progress shows (`pausing`), until the next task takes it.
      const importing = (b: StoredBacktest) => b.status === "queued";
      backtest = (await updateBacktest(deps, backtest.id, (b) => ({
        ...b,
        status: importing(b) ? "importing" : b.status,
        import_task_ids: started,
        message: importing(b) ? `Importing missing candles (${started.length} import task${started.length > 1 ? "s" : ""})` : b.message,
      })))!;
      return out(backtest, "importing");
    }
    barsTotal = bars;
  }
  if (!(await importsDone(deps, backtest.import_task_ids))) return out(backtest, "importing");
  if (barsTotal === null) barsTotal = (await importMissing(deps, backtest.user_id, [], backtest.window, feeds)).bars;
  const engineSetup = await setup;
  const priceAdjustment = await priceAdjustmentOf(deps, backtest, engineSetup);
  const { run, events } = await createRun(deps, { ...backtest, price_adjustment: priceAdjustment }, barsTotal, engineSetup);
  await deps.runs.save(run, 0, events);
  const running = await updateBacktest(deps, backtest.id, (b) => ({
    ...b,
    status: continues(b) ? "running" : b.status,
    bars_total: barsTotal,
    price_adjustment: priceAdjustment,
    message: continues(b) ? "Running" : b.message,
  }));
  return out(running!, "running");
}

/**
 * Which prices the run is fed at (`execution.adjust`, forward unless "none") and the stored
 * corporate actions of its symbols with an ex-date inside the bars it reads: after the first day
 * (of its warm-up, with `execution.warm_up`, else of its window) through its last. Recorded on the
 * backtest, so every chunk adjusts by the same actions whatever an import learns meanwhile.
 */
export async function priceAdjustmentOf(deps: BacktestDeps, backtest: StoredBacktest, setup: EngineSetup): Promise<PriceAdjustment> {
  const history = backtest.config.execution.warm_up ? warmupWindows(new TradingEngine(setup), backtest.window[0]) : [];
  const from = Math.min(backtest.window[0], ...history.map(({ from }) => from));
  const actions = await CorporateActions.within(deps.imports.corporateActions, backtest.symbols, [from, backtest.window[1]]);
  return { mode: backtest.config.execution.adjust ?? "forward", actions };
}

/** The adjuster of a run's bars: its recorded actions when it adjusts them forward, else none. */
export function adjusterOf(backtest: StoredBacktest): PriceAdjuster | undefined {
  const adjustment = backtest.price_adjustment;
  return adjustment?.mode === "forward" && adjustment.actions.length > 0 ? new PriceAdjuster(adjustment.actions) : undefined;
}

/** The engine's setup of a backtest: its configuration with lot sizes, rates, fees and capital looked up (as a session's, `runSetup`). */
export async function setupOf(deps: BacktestDeps, backtest: StoredBacktest) {
  const session = await deps.sessions.get(backtest.session_id);
  const base = Markets[marketOf(backtest.symbols[0])].currency;
  return runSetup(deps, {
    run_id: runIdOf(backtest),
    config: backtest.config,
    symbols: backtest.symbols,
    base_currency: base,
    capital: session
      ? capitalOf({ initial_capital: backtest.initial_capital, initial_capital_by_currency: session.initial_capital_by_currency }, base)
      : { [base]: backtest.initial_capital },
    enforce_risk: backtest.enforce_risk,
  });
}

/**
 * A backtest's run: its setup, and with `execution.warm_up` the engine warmed up on the stored
 * bars before the window (the prepare stage imported them), with the warm-up's log events.
 */
async function createRun(
  deps: BacktestDeps,
  backtest: StoredBacktest,
  barsTotal: number,
  setup?: EngineSetup,
): Promise<{ run: StoredRun; events: EngineEvent[] }> {
  setup ??= await setupOf(deps, backtest);
  const engine = new TradingEngine(setup);
  const warm = backtest.config.execution.warm_up === true;
  if (warm) await warmUpFromStore(deps.candles, engine, backtest.window[0], adjusterOf(backtest));
  const run: StoredRun = {
    run_id: runIdOf(backtest),
    session_id: backtest.session_id,
    user_id: backtest.user_id,
    setup,
    snapshot: warm ? engine.snapshot() : null,
    progress: { cursor_ms: 0, bars: 0, bars_total: barsTotal, done: false },
    version: 1,
    updated_at: iso(deps.now()),
    // A sweep's run expires with its backtest: the run store writes the instant on every item of the run.
    ...(backtest.expires_at === undefined ? {} : { expires_at: backtest.expires_at }),
  };
  return { run, events: engine.drainEvents() };
}

/**
 * Run chunk: restores the engine, feeds the next bars until the chunk budget or the deadline, and
 * checkpoints through `updateRun` (the run saved with the chunk's events, conditionally on its
 * version: a chunk retried after a crash feeds the same bars from the same checkpoint again).
 */
export async function runChunk(deps: BacktestDeps, input: BacktestTaskInput, deadlineMs: number, maxBars = deps.chunkBars): Promise<BacktestTaskOutput> {
  const backtest = await deps.backtests.get(input.backtest_id);
  if (!backtest) throw backtestNotFound(input.backtest_id);
  if (TERMINAL.includes(backtest.status)) return out(backtest, backtest.status === "completed" ? "done" : "stopped");
  const raised = await flagged(deps, backtest);
  if (raised) return raised;
  // The flags are read again as the feed takes up windows of candles (at most every 100 ms, the
  // feed not waiting), so a pause or stop asked while a long chunk runs ends it at the next
  // checkpoint after a read sees it, not after its last bar.
  let asked = false;
  const look = async () => {
    if (await flagRaised(deps, backtest.id)) asked = true;
  };
  const chunk = await updateRun(
    deps,
    runIdOf(backtest),
    async (run) => {
      if (run.progress?.done) return null;
      const engine = engineOf(run);
      // `execution.intrabar`: the stored minutes inside the bars are read with them, for their fills.
      const minutes = engine.intrabar ? (symbol: string, columns: BarColumns) => engine.useMinutes(symbol, columns) : undefined;
      const feed = new BarFeed(
        deps.candles,
        feedsOf(backtest.config),
        backtest.window[0],
        backtest.window[1],
        run.progress?.cursor_ms ?? 0,
        look,
        minutes,
        adjusterOf(backtest),
      );
      const sink = closingAtTheClose(engine, run.progress?.close_ms ?? run.progress?.cursor_ms ?? 0);
      const fed = await feed.run(maxBars, sink, () => asked || deps.now() >= deadlineMs);
      if (engine.intrabar) engine.reportIntrabar();
      if (fed.done) engine.endDay();
      const progress = {
        cursor_ms: fed.lastCloseMs ?? run.progress?.cursor_ms ?? 0,
        close_ms: sink.lastClose,
        bars: (run.progress?.bars ?? 0) + fed.fed,
        bars_total: run.progress?.bars_total ?? 0,
        done: fed.done,
      };
      return { engine, value: fed.done, progress };
    },
    () => new DomainError(500, "BACKTEST_RUN_MISSING", `Backtest ${backtest.id} has no run; prepare it first`),
    // Its one writer: the workflow's chunks, one after the other.
    { soleWriter: true },
  );
  // Null: the run was done before this chunk (a retried task).
  if (!chunk) return out(backtest, "done");
  // Also after the last bar: a pause asked before the end is honoured (the run is kept, done, and
  // a resume finalises it), so a backtest that fits in one chunk can be paused like any other.
  const latest = await deps.backtests.get(backtest.id);
  if (latest) {
    const again = await flagged(deps, latest);
    if (again) return again;
  }
  if (!chunk.value) return out(backtest, "running");
  // The last chunk records the result from the engine it ran and the run it saved: finalize then
  // finds it recorded, instead of reading the run back and restoring its engine.
  if (latest && !latest.result) {
    const recorded = await recordResult(deps, latest, chunk.run, chunk.engine);
    if (recorded.status === "paused") return out(recorded, "paused");
  }
  return out(backtest, "done");
}

/**
 * The engine as the bar feed's sink, each bar stamped with when it closed at its market (an hourly
 * or daily bar at the day's regular close, `barCloseIn`, as a session's bars are): what a bar
 * causes is stamped no later than the day's close, where its `day_end` is, so a run's times never
 * go back. `lastClose` is the last bar's (what progress shows as `current_time`).
 */
export function closingAtTheClose(engine: TradingEngine, lastClose: number): BarSink & { lastClose: number } {
  const memos = new Map<string, { day: number; close: number }>();
  const closeOf = (symbol: string, openMs: number, timeframe: Timeframe) => {
    const key = `${symbol}|${timeframe}`;
    let memo = memos.get(key);
    if (memo === undefined) memos.set(key, (memo = { day: Number.NaN, close: 0 }));
    return barCloseIn(marketOf(symbol), openMs, timeframe, memo);
  };
  const sink = {
    lastClose,
    onBar(bar: Bar, timeframe: Timeframe) {
      const close = closeOf(bar.symbol, bar.timestamp, timeframe);
      if (close > sink.lastClose) sink.lastClose = close;
      engine.onBar(bar, timeframe, close);
    },
    onColumns(columns: BarColumns, from: number, to: number, timeframe: Timeframe) {
      // A minute bar always closes at its open plus a minute: the batch path is left its own arithmetic.
      engine.onColumns(columns, from, to, timeframe, timeframe === "1m" ? undefined : (openMs) => closeOf(columns.symbol, openMs, timeframe));
      if (to > from) {
        const close = closeOf(columns.symbol, columns.timestamp[to - 1]! * columns.msPerUnit, timeframe);
        if (close > sink.lastClose) sink.lastClose = close;
      }
    },
  };
  return sink;
}

/**
 * Records a backtest's result (from its run and that run's engine) on the backtest and its session,
 * as the freshest backtest's flags say: a pause the service accepted (`pausing`) since the caller
 * last looked is honoured instead (the run is kept, done, and a resume finalises it: the pause
 * answered 200, so the backtest ends `paused`, never `completed`); a stop asked meanwhile records it
 * `stopped`. Answers the backtest as it is now.
 */
async function recordResult(deps: BacktestDeps, backtest: StoredBacktest, run: StoredRun, engine: TradingEngine): Promise<StoredBacktest> {
  const now = iso(deps.now());
  const benchmark = backtest.benchmark
    ? await benchmarkOf(deps, { ...backtest, benchmark: backtest.benchmark }, run.run_id, engine, run.setup.trading_days_per_year)
    : null;
  // The summary of each outcome, computed once whatever the retries of the update.
  const summaries = new Map<"completed" | "stopped", BacktestSummary>();
  let recorded: { status: "completed" | "stopped"; summary: BacktestSummary } | undefined;
  const done = await updateBacktest(deps, backtest.id, (b) => {
    if (b.result) return undefined;
    if (b.pause_requested && !b.stop_requested) return b.status === "paused" ? undefined : { ...b, status: "paused", message: "Paused at a checkpoint" };
    const status = run.progress?.done === true && !b.stop_requested ? "completed" : "stopped";
    let summary = summaries.get(status);
    if (summary === undefined) summaries.set(status, (summary = summaryOf(backtest, run, engine, status, now, benchmark)));
    recorded = { status, summary };
    return { ...b, status, result: summary, finished_at: now, message: status === "completed" ? "Completed" : "Stopped" };
  });
  // A sweep's runs leave the session alone: it follows its own backtests, not a sweep's hundreds.
  if (done?.result && recorded && !backtest.sweep_id) {
    await syncSession(deps, backtest.session_id, recorded.status, {
      end_time: now,
      final_capital: recorded.summary.final_capital,
      final_capital_by_currency: recorded.summary.final_capital_by_currency,
      performance_metrics: recorded.summary.performance_metrics,
    });
    await deps.onEnded?.(done);
  }
  return done ?? (await deps.backtests.get(backtest.id))!;
}

/** Finalize: computes the result from the run, and records it on the backtest and its session. */
export async function finalize(deps: BacktestDeps, input: BacktestTaskInput): Promise<BacktestTaskOutput> {
  const backtest = await deps.backtests.get(input.backtest_id);
  if (!backtest) throw backtestNotFound(input.backtest_id);
  if (backtest.result) return out(backtest, backtest.status === "completed" ? "done" : "stopped");
  const run = (await deps.runs.get(runIdOf(backtest))) ?? (await createRun(deps, backtest, 0)).run;
  const done = await recordResult(deps, backtest, run, engineOf(run));
  return out(done, done.status === "completed" ? "done" : done.status === "paused" ? "paused" : "stopped");
}

/** Failure: records why the workflow failed on the backtest and its session. */
export async function fail(deps: BacktestDeps, input: BacktestTaskInput & { error?: { Error?: string; Cause?: string } }): Promise<BacktestTaskOutput> {
  const reason = [input.error?.Error, input.error?.Cause].filter(Boolean).join(": ").slice(0, 2000) || "the workflow failed";
  const failed = await updateBacktest(deps, input.backtest_id, (b) =>
    TERMINAL.includes(b.status) ? undefined : { ...b, status: "failed", error: reason, message: `Failed: ${reason}`, finished_at: iso(deps.now()) },
  );
  const backtest = failed ?? (await deps.backtests.get(input.backtest_id));
  if (failed && !failed.sweep_id) {
    await syncSession(deps, failed.session_id, "failed", { end_time: iso(deps.now()) });
    await deps.onEnded?.(failed);
  }
  return out(backtest!, "stopped");
}
