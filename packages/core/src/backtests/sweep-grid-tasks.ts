import type { CorporateActionStore } from "../candles/corporate-actions";
import type { CandleStore } from "../candles/index";
import { TradingEngine } from "../engine/engine";
import type { EngineSetup } from "../engine/setup";
import { performance as metricsOf } from "../engine/metrics";
import type { BarColumns } from "../strategies/strategy";
import { feedsOf } from "../trading/session/config";
import type { StoredSession } from "../trading/session/sessions";
import { warmUpFromStore } from "../trading/drivers/warm-up";
import { iso } from "../util/time";
import type { SweepGridInput, SweepGridOutput } from "../workflows";
import { TERMINAL } from "./control";
import type { BacktestDeps, StoredBacktest } from "./backtest-model";
import { plan as planBacktest } from "./backtest-request";
import { adjusterOf, closingAtTheClose, priceAdjustmentOf, setupOf } from "./backtest-tasks";
import { BarFeed } from "../candles/bar-feed";
import { GRID_CHUNK_SHAPE, type GridChunk, type GridPointResult } from "./sweep-grid";
import type { SweepDeps } from "./sweep-model";
import { sweepNotFound } from "./sweep-control";
import { requestOf } from "./sweep-request";

/**
 * The `RunGrid` task: one chunk of a walk-forward window's in-sample points run in process. Every
 * point is planned as `POST /backtest/start` plans it and run as its workflow runs it (the same
 * setup, warm-up, price adjustment, bar feed, day ends and figures: `prepare`, `runChunk` and the
 * result's summary), over the window's candles read once for the whole chunk; nothing is stored
 * per point but its figures, one item for the chunk at the task's end.
 */

/** The sweep's flags are read at most this often between points (as a backtest chunk's feed reads them). */
const LOOK_EVERY_MS = 100;

/** A memo of `load` by key: a chunk's points read the same candles, lot sizes, session and corporate actions. */
function memo<A extends unknown[], R>(load: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  const kept = new Map<string, Promise<R>>();
  return (...args: A) => {
    const key = JSON.stringify(args);
    let found = kept.get(key);
    if (found === undefined) {
      found = load(...args);
      kept.set(key, found);
      // A failed read is not kept: the next point reads again.
      found.catch(() => kept.delete(key));
    }
    return found;
  };
}

/** `deps` whose reads of the window's inputs are made once for the chunk's points (the stores themselves unchanged beside them). */
function readingOnce(deps: SweepDeps, session: StoredSession): BacktestDeps {
  const candles: CandleStore = Object.assign(Object.create(deps.candles) as CandleStore, {
    loadBetween: memo(deps.candles.loadBetween.bind(deps.candles)),
  });
  const corporateActions: CorporateActionStore = Object.assign(Object.create(deps.imports.corporateActions) as CorporateActionStore, {
    get: memo(deps.imports.corporateActions.get.bind(deps.imports.corporateActions)),
  });
  const sessions = Object.assign(Object.create(deps.sessions) as typeof deps.sessions, {
    get: async (id: string) => (id === session.id ? session : deps.sessions.get(id)),
  });
  return { ...deps, candles, sessions, lots: memo(deps.lots), imports: { ...deps.imports, corporateActions } };
}

/**
 * One point's run, as the backtest alone runs it: its setup as its run stores it (JSON), the
 * warm-up, the bars fed until the deadline, the intrabar report and the last day's end, and the
 * figures its result records. Null when the deadline came before its last bar.
 */
async function runPoint(deps: BacktestDeps, planned: StoredBacktest, deadlineMs: number): Promise<Omit<GridPointResult, "run"> | null> {
  const setup = JSON.parse(JSON.stringify(await setupOf(deps, planned))) as EngineSetup;
  const backtest = { ...planned, price_adjustment: await priceAdjustmentOf(deps, planned, setup) };
  const engine = new TradingEngine(setup);
  const adjust = adjusterOf(backtest);
  if (backtest.config.execution.warm_up === true) await warmUpFromStore(deps.candles, engine, backtest.window[0], adjust);
  const minutes = engine.intrabar ? (symbol: string, columns: BarColumns) => engine.useMinutes(symbol, columns) : undefined;
  const feed = new BarFeed(deps.candles, feedsOf(backtest.config), backtest.window[0], backtest.window[1], 0, undefined, minutes, adjust);
  const fed = await feed.run(Number.MAX_SAFE_INTEGER, closingAtTheClose(engine, 0), () => deps.now() >= deadlineMs);
  if (!fed.done) return null;
  if (engine.intrabar) engine.reportIntrabar();
  engine.endDay();
  return {
    status: "completed",
    performance_metrics: metricsOf(engine.view(null), setup.trading_days_per_year),
    bars_processed: fed.fed,
    error: null,
  };
}

/**
 * Runs the chunk's points without an outcome, one after the other, until they are all done, the
 * deadline comes (`yielded`: the chunk is answered again, its outcomes kept) or the sweep's pause
 * or stop flag is raised (read between points); then writes the chunk's outcomes. A point the
 * strategy or the engine fails on is recorded failed with why; a point longer than a whole task
 * (its deadline reached before it ended, started first in its task) fails too.
 */
export async function runGrid(deps: SweepDeps, input: SweepGridInput, deadlineMs: number): Promise<SweepGridOutput> {
  const sweep = await deps.sweeps.get(input.sweep_id);
  if (!sweep) throw sweepNotFound(input.sweep_id);
  const plan = sweep.grid?.chunks.find((c) => c.window === input.window && c.chunk === input.chunk);
  const window = sweep.walk_forward?.windows[input.window];
  if (!plan || !window) throw new Error(`Sweep ${sweep.id} has no grid chunk ${input.window}/${input.chunk}`);
  const stored = await deps.grids.get(sweep.id, input.window, input.chunk);
  const results: GridPointResult[] = [...(stored?.results ?? [])];
  const answer = (status: SweepGridOutput["status"]): SweepGridOutput => ({
    ...input,
    status,
    points_done: results.length,
    points: plan.to - plan.from,
  });
  if (TERMINAL.includes(sweep.status) || sweep.stop_requested) return answer("stopped");
  if (sweep.pause_requested) return answer("paused");
  const session = await deps.sessions.get(sweep.session_id);
  if (!session) throw new Error(`The session of sweep ${sweep.id} was deleted`);
  const once = readingOnce(deps, session);
  const part = { start_date: window.in_sample.start_date, end_date: window.in_sample.end_date };
  const done = new Set(results.map((r) => r.run));
  let status: SweepGridOutput["status"] = "done";
  let ranHere = 0;
  let lookedAt = Date.now();
  for (let index = plan.from; index < plan.to; index++) {
    if (done.has(index)) continue;
    if (deps.now() >= deadlineMs) {
      status = "yielded";
      break;
    }
    if (Date.now() - lookedAt >= LOOK_EVERY_MS) {
      lookedAt = Date.now();
      const flags = await deps.sweeps.flags(sweep.id);
      if (flags?.stop_requested || flags?.pause_requested) {
        status = flags.stop_requested ? "stopped" : "paused";
        break;
      }
    }
    const run = sweep.runs[index]!;
    let outcome: Omit<GridPointResult, "run"> | null;
    try {
      const planned = planBacktest(once, session, requestOf(sweep.base, run.parameters, part), {
        id: run.backtest_id,
        sweep_id: sweep.id,
        candles_ready: true,
        bars_total: plan.bars,
      });
      outcome = await runPoint(once, planned, deadlineMs);
      if (outcome === null && ranHere > 0) {
        // Cut by the deadline after other points: it runs whole in the next task.
        status = "yielded";
        break;
      }
      outcome ??= {
        status: "failed",
        performance_metrics: null,
        bars_processed: 0,
        error: "The point's in-sample part has more bars than one task runs before its deadline",
      };
    } catch (error) {
      outcome = {
        status: "failed",
        performance_metrics: null,
        bars_processed: 0,
        error: (error instanceof Error ? error.message : String(error)).slice(0, 2000),
      };
    }
    results.push({ run: index, ...outcome });
    ranHere++;
  }
  if (ranHere > 0) {
    const chunk: GridChunk = {
      shape: GRID_CHUNK_SHAPE,
      sweep_id: sweep.id,
      window: input.window,
      chunk: input.chunk,
      results: results.sort((a, b) => a.run - b.run),
      updated_at: iso(deps.now()),
    };
    await deps.grids.put(chunk);
  }
  return answer(status);
}
