import { DomainError } from "../errors";
import { feedsOf } from "../trading/session/config";
import type { StoredSession } from "../trading/session/sessions";
import { iso } from "../util/time";
import type { SweepFailureInput, SweepGridInput, SweepTaskInput, SweepTaskOutput } from "../workflows";
import { TERMINAL } from "./control";
import type { StoredBacktest } from "./backtest-model";
import { endWithSweep, runIdOf, updateBacktest } from "./backtest-control";
import { plan as planBacktest } from "./backtest-request";
import { importMissing, importsDone } from "./candle-coverage";
import { chunksOf, GRID_CHUNK_SHAPE, type GridChunkPlan } from "./sweep-grid";
import { SWEEP_KEPT_RUNS, type Point, type StoredSweep, type SweepDeps } from "./sweep-model";
import { sweepNotFound, updateSweep } from "./sweep-control";
import { requestOf } from "./sweep-request";
import { bestOfWindows, ended, ranked, runsOf } from "./sweep-result";

/**
 * The sweep state machine's tasks: plan (imports once per symbol, creates the runs, answers the
 * runs left for the Map), finalize and fail. Each run is a backtest run by backtest-tasks.ts; a
 * walk-forward's in-sample points are chunks of the grid run by sweep-grid-tasks.ts.
 */

const out = (
  sweep: StoredSweep,
  status: SweepTaskOutput["status"],
  runs: string[] = [],
  deps?: Pick<SweepDeps, "sweepConcurrency">,
  grid: SweepGridInput[] = [],
): SweepTaskOutput => ({
  sweep_id: sweep.id,
  status,
  runs,
  grid,
  max_concurrency: Math.max(1, deps?.sweepConcurrency ?? 1),
});

/**
 * The stored backtests of one phase's runs: planned again exactly as at the start, with their ids,
 * the sweep's id, the counted bars and, for runs that may expire, when (`expires_at`).
 */
function backtestsOf(
  deps: SweepDeps,
  sweep: StoredSweep,
  session: StoredSession,
  runs: { backtest_id: string; parameters: Point }[],
  barsTotal: number,
  window?: { start_date: string; end_date: string },
  expiresAt?: number,
): StoredBacktest[] {
  return runs.map((run) =>
    planBacktest(deps, session, requestOf(sweep.base, run.parameters, window), {
      id: run.backtest_id,
      sweep_id: sweep.id,
      candles_ready: true,
      bars_total: barsTotal,
      ...(expiresAt === undefined ? {} : { expires_at: expiresAt }),
    }),
  );
}

/** When a sweep's runs created now expire (epoch seconds): `sweepRunTtlDays` from now; undefined when they are kept for ever (0). */
/**
 * When the grid's runs expire: on the wall clock, which DynamoDB's TTL and every read's expiry
 * check go by, not the market's (`deps.now`: npm start's simulated clock, a test's 2024).
 */
const runsExpireAt = (deps: SweepDeps) => (deps.sweepRunTtlDays > 0 ? Math.floor(Date.now() / 1000) + Math.round(deps.sweepRunTtlDays * 86_400) : undefined);

/**
 * The out-of-sample phase begun: `backtests` created (the out-of-sample runs, and a walk-forward's
 * stored bests), the sweep marked with its out-of-sample runs (what each ran `of`, in which window),
 * and every one of them answered for the Map.
 */
async function beginOutOfSample(
  deps: SweepDeps,
  sweep: StoredSweep,
  backtests: StoredBacktest[],
  oosRuns: { backtest_id: string; of: string; window?: number }[],
  message: string,
): Promise<SweepTaskOutput> {
  await deps.backtests.createMany(backtests);
  const begun = (await updateSweep(deps, sweep.id, (s) => ({
    ...s,
    oos_created: true,
    oos_runs: oosRuns.map(({ backtest_id, of, window }) => ({ backtest_id, of, ...(window === undefined ? {} : { window }) })),
    message,
  })))!;
  return out(
    begun,
    "running",
    backtests.map((b) => b.id),
    deps,
  );
}

/**
 * Plan: on the first pass imports what is missing of each symbol's candles (for the window and
 * the out-of-sample window: once per symbol, not once per run), then creates the runs; every pass
 * answers the runs not yet ended for the Map, then (with `out_of_sample`) creates and answers the
 * out-of-sample runs of the best, then `done`. Pause and stop flags end the execution here.
 */
export async function plan(deps: SweepDeps, input: SweepTaskInput): Promise<SweepTaskOutput> {
  let sweep = await deps.sweeps.get(input.sweep_id);
  if (!sweep) throw sweepNotFound(input.sweep_id);
  if (TERMINAL.includes(sweep.status)) return out(sweep, sweep.status === "completed" ? "done" : "stopped");
  if (sweep.stop_requested) return out(sweep, "stopped");
  if (sweep.pause_requested) {
    const paused = await updateSweep(deps, sweep.id, (s) =>
      s.pause_requested ? { ...s, status: "paused", message: "Paused: every run at a checkpoint" } : undefined,
    );
    if (paused) return out(paused, "paused");
  }
  const session = await deps.sessions.get(sweep.session_id);
  if (!session) throw new DomainError(409, "SESSION_NOT_FOUND", `The session of sweep ${sweep.id} was deleted`);
  if (!sweep.runs_created) {
    const first = planBacktest(deps, session, requestOf(sweep.base, sweep.runs[0]!.parameters));
    const feeds = feedsOf(first.config);
    const windows: [number, number][] = [first.window];
    if (sweep.out_of_sample) windows.push(planBacktest(deps, session, requestOf(sweep.base, sweep.runs[0]!.parameters, sweep.out_of_sample)).window);
    if (sweep.import_task_ids.length === 0 && sweep.status === "queued") {
      const started: string[] = [];
      for (const window of windows) {
        const imported = await importMissing(
          deps,
          sweep.user_id,
          [
            ...feeds.map((feed) => ({ ...feed, from: window[0] })),
            // The request's benchmark (every run measures its result against it): its daily candles imported with the runs', never fed.
            ...(first.benchmark ? [{ symbol: first.benchmark, timeframe: "1d" as const, from: window[0], fed: false as const }] : []),
          ],
          window,
        );
        if (imported.busy) return out(sweep, "importing");
        started.push(...imported.started);
      }
      if (started.length > 0) {
        sweep = (await updateSweep(deps, sweep.id, (s) => ({
          ...s,
          status: "importing",
          import_task_ids: started,
          message: `Importing missing candles (${started.length} import task${started.length > 1 ? "s" : ""}), once for every run`,
        })))!;
        return out(sweep, "importing");
      }
    }
    if (!(await importsDone(deps, sweep.import_task_ids))) return out(sweep, "importing");
    // The grid's runs expire (unless the result keeps them, at Finalize); the out-of-sample runs are kept.
    const walkForward = sweep.walk_forward;
    const expiresAt = walkForward ? undefined : runsExpireAt(deps);
    let grid: StoredSweep["grid"] = null;
    if (walkForward) {
      // Each window's points run in process, chunk by chunk (sweep-grid.ts), its bars counted once for all of them: no backtest is stored per point.
      const chunks: GridChunkPlan[] = [];
      for (const [k, window] of walkForward.windows.entries()) {
        const part = { start_date: window.in_sample.start_date, end_date: window.in_sample.end_date };
        const bars = (
          await importMissing(deps, sweep.user_id, [], planBacktest(deps, session, requestOf(sweep.base, sweep.runs[0]!.parameters, part)).window, feeds)
        ).bars;
        // A window's runs are consecutive in the plan (start lists them window after window).
        const from = sweep.runs.findIndex((run) => run.window === k);
        const to = from + sweep.runs.filter((run) => run.window === k).length;
        chunks.push(...chunksOf(k, from, to, bars));
      }
      grid = { shape: GRID_CHUNK_SHAPE, chunks };
    } else {
      const bars = (await importMissing(deps, sweep.user_id, [], first.window, feeds)).bars;
      await deps.backtests.createMany(backtestsOf(deps, sweep, session, sweep.runs, bars, undefined, expiresAt));
    }
    sweep = (await updateSweep(deps, sweep.id, (s) => ({
      ...s,
      runs_created: true,
      grid,
      runs_expire_at: expiresAt ?? null,
      status: s.status === "queued" || s.status === "importing" ? "running" : s.status,
      message: "Running",
    })))!;
  } else if (sweep.status === "queued") {
    sweep = (await updateSweep(deps, sweep.id, (s) => ({ ...s, status: s.status === "queued" ? "running" : s.status, message: "Running" })))!;
  }
  const { inSample, outOfSample, stored } = await runsOf(deps, sweep);
  const pending = (runs: (StoredBacktest | undefined)[]) => runs.filter((b): b is StoredBacktest => b !== undefined && !ended(b)).map((b) => b.id);
  if (sweep.grid) {
    // The chunks with a point not run yet: one RunGrid round for them all.
    const left = sweep.grid.chunks.filter((c) => inSample.slice(c.from, c.to).includes(undefined));
    if (left.length > 0)
      return out(
        sweep,
        "grid",
        [],
        deps,
        left.map((c) => ({ sweep_id: sweep!.id, window: c.window, chunk: c.chunk })),
      );
  } else {
    const left = pending(inSample as (StoredBacktest | undefined)[]);
    if (left.length > 0) return out(sweep, "running", left, deps);
  }
  if (sweep.walk_forward && !sweep.oos_created) {
    // Each window's best point over the window's out-of-sample part: one round for every window;
    // with the grid, the best point over the in-sample part too, stored as a backtest (with its
    // id in the plan), so each window's best has a full result (fills, trades, curve) to look into.
    const best = bestOfWindows(sweep, inSample);
    const oosRuns: { backtest_id: string; of: string; window: number; parameters: Point }[] = [];
    const created: StoredBacktest[] = [];
    const bests: StoredBacktest[] = [];
    for (const [k, window] of sweep.walk_forward.windows.entries()) {
      const top = best.get(k);
      if (!top) continue;
      const part = { start_date: window.out_of_sample.start_date, end_date: window.out_of_sample.end_date };
      const run = { backtest_id: deps.newId(), of: top.run.backtest_id, window: k, parameters: top.run.parameters };
      const planned = planBacktest(deps, session, requestOf(sweep.base, top.run.parameters, part));
      const bars = (await importMissing(deps, sweep.user_id, [], planned.window, feedsOf(planned.config))).bars;
      created.push(...backtestsOf(deps, sweep, session, [run], bars, part));
      oosRuns.push(run);
      const chunk = sweep.grid?.chunks.find((c) => c.window === k);
      if (chunk) {
        const inPart = { start_date: window.in_sample.start_date, end_date: window.in_sample.end_date };
        bests.push(...backtestsOf(deps, sweep, session, [top.run], chunk.bars, inPart));
      }
    }
    return beginOutOfSample(deps, sweep, [...created, ...bests], oosRuns, "Running each window's best point out of sample");
  }
  if (sweep.out_of_sample && !sweep.oos_created) {
    const best = ranked(sweep, inSample).slice(0, sweep.out_of_sample.top);
    const oosRuns = best.map((entry) => ({ backtest_id: deps.newId(), of: entry.run.backtest_id, parameters: entry.run.parameters }));
    const window = planBacktest(deps, session, requestOf(sweep.base, sweep.runs[0]!.parameters, sweep.out_of_sample));
    const bars = (await importMissing(deps, sweep.user_id, [], window.window, feedsOf(window.config))).bars;
    return beginOutOfSample(deps, sweep, backtestsOf(deps, sweep, session, oosRuns, bars, sweep.out_of_sample), oosRuns, "Running the best runs out of sample");
  }
  const oosLeft = [...pending(outOfSample), ...pending(stored)];
  if (oosLeft.length > 0) return out(sweep, "running", oosLeft, deps);
  return out(sweep, "done");
}

/**
 * Finalize: the sweep ends completed, or stopped (its runs not ended are marked stopped: they will
 * not run), as the freshest sweep's flags say: a pause the service accepted since the plan last
 * looked leaves it `paused` (a resume finalises it), never `completed`.
 */
export async function finalize(deps: SweepDeps, input: SweepTaskInput): Promise<SweepTaskOutput> {
  const sweep = await deps.sweeps.get(input.sweep_id);
  if (!sweep) throw sweepNotFound(input.sweep_id);
  if (TERMINAL.includes(sweep.status)) return out(sweep, sweep.status === "completed" ? "done" : "stopped");
  const stopped = sweep.stop_requested;
  const now = iso(deps.now());
  if (stopped) {
    const { inSample, outOfSample, stored } = await runsOf(deps, sweep);
    // A grid's points are no backtests: a point not run is stopped by the sweep's own status.
    for (const run of sweep.grid ? [...outOfSample, ...stored] : [...inSample, ...outOfSample]) {
      if (!run || ended(run)) continue;
      await endWithSweep(deps, run.id, now);
    }
  }
  const done = await updateSweep(deps, sweep.id, (s) => {
    if (TERMINAL.includes(s.status)) return undefined;
    if (!s.stop_requested && s.pause_requested)
      return s.status === "paused" ? undefined : { ...s, status: "paused", message: "Paused: every run at a checkpoint" };
    // A stop asked after the plan answered `done` finds every run ended: nothing is left to mark.
    const status = s.stop_requested ? "stopped" : "completed";
    return { ...s, status, finished_at: now, message: status === "stopped" ? "Stopped" : "Completed" };
  });
  const latest = done ?? (await deps.sweeps.get(sweep.id))!;
  if (latest.status === "completed" || latest.status === "stopped") await keepBest(deps, latest);
  return out(latest, latest.status === "completed" ? "done" : latest.status === "paused" ? "paused" : "stopped");
}

/**
 * The runs the result keeps past the retention: the best of the ranking (as many as the
 * out-of-sample phase runs again, or SWEEP_KEPT_RUNS) lose their expiry, their run's items first
 * (`RunStore.keepForever`), then their backtest. Idempotent: a retried Finalize finds them kept.
 */
async function keepBest(deps: SweepDeps, sweep: StoredSweep): Promise<void> {
  // A walk-forward's grid run in process stores no run that expires.
  if (!sweep.runs_expire_at || sweep.grid) return;
  const { inSample } = await runsOf(deps, sweep);
  // A walk-forward's result points at each window's best.
  const best = sweep.walk_forward
    ? [...bestOfWindows(sweep, inSample).values()]
    : ranked(sweep, inSample).slice(0, sweep.out_of_sample?.top ?? SWEEP_KEPT_RUNS);
  for (const entry of best) {
    // Without a grid, every in-sample run is a stored backtest.
    const backtest = entry.backtest as StoredBacktest;
    if (backtest.expires_at === undefined) continue;
    await deps.runs.keepForever?.(runIdOf(backtest));
    await updateBacktest(deps, backtest.id, (b) => {
      if (b.expires_at === undefined) return undefined;
      const { expires_at: _kept, ...kept } = b;
      return kept;
    });
  }
}

/** Failure: records why the sweep's workflow failed. */
export async function fail(deps: SweepDeps, input: SweepFailureInput): Promise<SweepTaskOutput> {
  const reason = [input.error?.Error, input.error?.Cause].filter(Boolean).join(": ").slice(0, 2000) || "the workflow failed";
  const failed = await updateSweep(deps, input.sweep_id, (s) =>
    TERMINAL.includes(s.status) ? undefined : { ...s, status: "failed", error: reason, message: `Failed: ${reason}`, finished_at: iso(deps.now()) },
  );
  return out(failed ?? (await deps.sweeps.get(input.sweep_id))!, "stopped");
}
