import { conflict } from "../../errors";
import { PERIOD_MS, TradingEngine } from "../../engine/engine";
import type { EngineEvent } from "../../engine/events";
import type { Timeframe } from "../../strategies/definition";
import type { Bar } from "../../strategies/strategy";
import { firstRun, type StoredRun } from "../run/runs";
import { engineOf, updateRun } from "../run/update";
import { feedsOf } from "./config";
import { venueOf, type StoredSession } from "./sessions";
import type { ViewDeps } from "./deps";
import { iso } from "../../util/time";
import { emitSessionStatus } from "../run/status";

/**
 * The run of a simulation or live session (ENGINE.md §5): the session's own run (its id is the
 * session's), fed closed bars by the session worker as they form. Each feed restores the
 * engine from the run's snapshot, feeds the bars, and saves snapshot and events together,
 * conditionally on the run's version: a worker killed between two feeds loses nothing, and a
 * bar fed twice (a redelivery after a crash) is skipped by its close time.
 */

export interface ClosedBar {
  bar: Bar;
  timeframe: Timeframe;
  /** When the bar closed (epoch ms): bars are fed in this order, and never twice. */
  close_ms: number;
}

/** The (symbol, timeframe) feeds a session's strategies read. */
export const liveFeedsOf = (session: StoredSession) => feedsOf(session.config);

/**
 * Warms a fresh run's strategies up on the history each of their feeds wants (docs/session-worker.md
 * "Warm-up"); history that cannot be had is logged and the strategies start cold. The engine, and
 * the close time of the latest bar of history (0 without any).
 */
async function warmedUp(deps: ViewDeps, engine: TradingEngine): Promise<{ engine: TradingEngine; cursor: number }> {
  const now = deps.now();
  let cursor = 0;
  for (const need of engine.warmupNeeds()) {
    if (need.bars <= 0) continue;
    let bars: Bar[] = [];
    let problem: string | undefined;
    try {
      bars = await deps.history(need.symbol, need.timeframe, need.bars, now);
    } catch (error) {
      problem = `history unavailable: ${error instanceof Error ? error.message : String(error)}`;
    }
    engine.warmUp(need, bars, problem);
    if (bars.length > 0) cursor = Math.max(cursor, bars[bars.length - 1]!.timestamp + PERIOD_MS[need.timeframe]);
  }
  return { engine, cursor };
}

export const LiveRuns = {
  /** The session's own run, created at its configuration's starting capital on first use, and made the session's current run. */
  async ensure(deps: ViewDeps, session: StoredSession): Promise<StoredRun> {
    return (await LiveRuns.attach(deps, session)).run;
  },

  /**
   * `ensure`, also telling whether this call created the run: then the events it wrote (the
   * warm-up's log lines) and the engine that wrote them, for the caller to push.
   */
  async attach(deps: ViewDeps, session: StoredSession): Promise<{ run: StoredRun; created: { events: EngineEvent[]; engine: TradingEngine } | null }> {
    const runId = session.id;
    let run = await deps.runs.get(runId);
    let created: { events: EngineEvent[]; engine: TradingEngine } | null = null;
    if (!run) {
      const setup = { ...(await deps.setupFor(session, runId)), venue: venueOf(session) };
      const { engine, cursor } = await warmedUp(deps, new TradingEngine(setup));
      // The session's start is each channel's: recorded with the run it makes (docs/channels.md "Channel status events").
      emitSessionStatus(engine, { action: "start", previous: "created", status: session.status }, deps.now());
      // Live bars closing by the last bar of history were part of it.
      const fresh = firstRun(session, runId, engine, { cursor_ms: cursor, bars: 0, bars_total: 0, done: false }, deps.now());
      const events = engine.drainEvents();
      // Another caller may have created it meanwhile: only the one whose run was stored reports it.
      if (await deps.runs.save(fresh, 0, events)) created = { events, engine };
      run = (await deps.runs.get(runId))!;
    }
    for (let attempt = 0; attempt < 5; attempt++) {
      const current = await deps.sessions.get(session.id);
      if (!current || current.run_id === runId) return { run, created };
      if (await deps.sessions.replace({ ...current, run_id: runId, version: current.version + 1, updated_at: iso(deps.now()) }, current))
        return { run, created };
    }
    throw conflict("SESSION_CHANGED", `Trading session ${session.id} changed while its run was being attached`);
  },

  /**
   * Feeds closed bars (in close order) into the run and saves it with the events they caused;
   * bars closing at or before the run's cursor were fed already and are skipped. Returns the
   * events written, the engine that wrote them and how many bars were fed (null when every bar
   * had been fed).
   */
  async feed(
    deps: ViewDeps,
    runId: string,
    bars: readonly ClosedBar[],
    /** The run's engine (the worker's is the one it kept with the run, when it has it). */
    engineFor: (run: StoredRun) => TradingEngine = engineOf,
  ): Promise<{ events: EngineEvent[]; engine: TradingEngine; bars: number } | null> {
    let count = 0;
    const fed = await updateRun(
      deps,
      runId,
      (run) => {
        const cursor = run.progress?.cursor_ms ?? 0;
        const fresh = bars.filter((b) => b.close_ms > cursor);
        if (fresh.length === 0) return null;
        count = fresh.length;
        const engine = engineFor(run);
        for (const { bar, timeframe, close_ms } of fresh) engine.onBar(bar, timeframe, close_ms);
        const progress = { cursor_ms: fresh[fresh.length - 1]!.close_ms, bars: (run.progress?.bars ?? 0) + fresh.length, bars_total: 0, done: false };
        return { engine, value: null, progress };
      },
      () => conflict("RUN_MISSING", `Run ${runId} does not exist`),
    );
    return fed && { events: fed.events, engine: fed.engine, bars: count };
  },
};
