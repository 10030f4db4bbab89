import { z } from "zod";
import { BarFeed, type Feed } from "../../candles/bar-feed";
import type { CandleStore } from "../../candles/index";
import { conflict, notFound, ValidationError, parseOrThrow } from "../../errors";
import { PERIOD_MS, TradingEngine } from "../../engine/engine";
import type { EngineEvent } from "../../engine/events";
import { IsoDate } from "../../money/decimal";
import { marketOf, Markets } from "../../market/market";
import { dayNumberOf, zonedTimeToUtc } from "../../market/zoned-time";
import { Realtime, type RealtimeDeps } from "../../realtime";
import type { Timeframe } from "../../strategies/definition";
import { TimeZone, iso } from "../../util/time";
import type { Actor } from "../../users";
import { firstRun, type RunProgress, type StoredRun } from "../run/runs";
import { engineOf, updateRun } from "../run/update";
import { feedsOf } from "../session/config";
import { warmUpFromStore } from "./warm-up";
import { ReplayStatus, type DriverState } from "../run/driver-state";
import { barCloseOf, closeDayAtEnd, closeDayBefore } from "./rollover";
import { owned, type StoredSession } from "../session/sessions";
import type { ViewDeps } from "../session/deps";

/**
 * Runs driven over stored candles one step at a time (docs/mtf-and-replay.md): a session's
 * **replay** (its configuration over a date range, at a speed, on its own run
 * `<session_id>-replay`, never the live one) and a **historical MTF session** (stepped by its
 * executor bars on the session's own run). The driver's state (range, cursor, speed, play
 * state) is part of the run's progress, saved with the snapshot and the events in one
 * conditional write, so a restart continues where it was and a control serialises with the
 * worker's playing loop. Every step restores the engine from the snapshot and feeds the next
 * bars from the candle store: stepping, seeking and playing give the events of one straight
 * run (seeking backwards replays from the start).
 */

export interface ReplayMarkers {
  /** Marks a driven run as playing (the worker's list). */
  mark(runId: string): Promise<void>;
  unmark(runId: string): Promise<void>;
  /** Ids of the runs that may be playing. */
  list(): Promise<string[]>;
}

export interface DriverDeps extends ViewDeps {
  candles: CandleStore;
  replays: ReplayMarkers;
  /**
   * The wall clock (epoch ms) a playing run's `speed` counts seconds of: steps per second of real
   * time, whatever the market's clock (`now`) does; the embedded runtime's accelerated market
   * clock runs many times faster (docs/mtf-and-replay.md, "The playing loop").
   */
  wallNow: () => number;
}

/** The run a session's replays use: separate from the session's own (live) run. */
export const replayRunId = (sessionId: string) => `${sessionId}-replay`;

/** Longest date range a driver reads (its steps are counted, and seeks read it, from the start). */
export const MAX_RANGE_DAYS = 1830;

/** A problem with a driver's date range, if any (order, and at most `MAX_RANGE_DAYS` days). */
export function rangeIssue(startDate: string, endDate: string): { loc: (string | number)[]; msg: string; type: string } | null {
  if (startDate > endDate) return { loc: ["body", "end_date"], msg: `end_date ${endDate} is before start_date ${startDate}`, type: "date_order" };
  const days = (Date.parse(`${endDate}T00:00:00Z`) - Date.parse(`${startDate}T00:00:00Z`)) / 86_400_000 + 1;
  if (days > MAX_RANGE_DAYS)
    return { loc: ["body", "end_date"], msg: `the range holds ${days} days; at most ${MAX_RANGE_DAYS} are replayed at once`, type: "range_too_long" };
  return null;
}

/** Most steps one playing tick feeds (a high speed catches up over several ticks). */
const MAX_STEPS_PER_TICK = 5_000;

/** How fast a driven run plays: steps per second of wall time (a replay's, a historical MTF session's). */
export const PlaySpeed = z.number().gt(0).max(10_000);

export const ReplayStartRequest = z
  .object({
    start_date: IsoDate,
    end_date: IsoDate,
    speed: PlaySpeed.default(1).describe("Steps (bars of the finest period) per second of wall time while playing, however fast the market's clock runs"),
    timezone: TimeZone.optional().describe("Zone the dates are read in; the first symbol's market by default"),
    paused: z.boolean().default(false).describe("Create it paused at the start of the range instead of playing"),
  })
  .meta({ id: "ReplayStartRequest" });

export const ReplayControlRequest = z
  .discriminatedUnion("action", [
    z.object({ action: z.literal("play") }),
    z.object({ action: z.literal("pause") }),
    z.object({ action: z.literal("step"), bars: z.int().min(1).max(10_000).default(1).describe("Steps to advance") }),
    z.object({
      action: z.literal("seek"),
      to: z.string().min(10).max(40).describe("ISO date or date-time: the replay moves to just after the bars closing at or before it"),
    }),
    z.object({ action: z.literal("speed"), speed: PlaySpeed }),
  ])
  .meta({ id: "ReplayControlRequest" });

export const ReplayStatusView = z
  .object({
    session_id: z.string(),
    run_id: z.string(),
    state: ReplayStatus,
    speed: z.number(),
    start_date: z.string(),
    end_date: z.string(),
    timezone: z.string(),
    step_timeframe: z.string(),
    cursor: z.string().nullable().describe("Close time of the last bar fed (null at the start)"),
    progress: z.number().describe("steps / steps_total (1 once finished)"),
    steps: z.int().describe("Bars of the step period fed since the start of the range"),
    steps_total: z.int().describe("Bars of the step period stored in the range"),
    bars: z.int().describe("Bars of every feed fed so far"),
    last_sequence: z.int(),
    equity: z.string(),
    orders: z.int().describe("Orders the replay's strategies placed (denied ones included)"),
    denied_orders: z
      .int()
      .describe("Of them, those a pre-trade check denied (their reasons: the replay's run's order_denied events, streamed on the session's socket)"),
    closed_trades: z.int().describe("Round trips closed"),
    updated_at: z.string(),
  })
  .meta({ id: "ReplayStatus" });
export type ReplayStatusView = z.infer<typeof ReplayStatusView>;

/** The finest period of `feeds` (a step is one bar of it). */
export const finestTimeframe = (timeframes: Timeframe[]): Timeframe => timeframes.reduce((a, b) => (PERIOD_MS[b] < PERIOD_MS[a] ? b : a));

/** The range of a date pair in a zone, in epoch ms (bars opening inside it are fed). */
export function rangeOf(startDate: string, endDate: string, timezone: string): { start_ms: number; end_ms: number } {
  return {
    start_ms: zonedTimeToUtc(timezone, dayNumberOf(startDate), 0),
    end_ms: zonedTimeToUtc(timezone, dayNumberOf(endDate) + 1, 0) - 1000,
  };
}

/** Bars of the step period stored in the driver's range (regular session only, as the feed reads them). */
export async function countSteps(candles: CandleStore, driver: Pick<DriverState, "feeds" | "step_timeframe" | "start_ms" | "end_ms">): Promise<number> {
  let count = 0;
  const feeds = driver.feeds.filter((feed) => feed.timeframe === driver.step_timeframe);
  await new BarFeed(candles, feeds, Math.floor(driver.start_ms / 1000), Math.floor(driver.end_ms / 1000), 0).run(Number.MAX_SAFE_INTEGER, () => count++);
  return count;
}

/**
 * A fresh run for a driver at the start of its range, its strategies warmed up on the stored bars
 * before the range as a simulation session's are on the market's history (docs/mtf-and-replay.md
 * "Warm-up"), with the warm-up's log lines to save with it.
 */
export async function freshRun(
  deps: DriverDeps,
  session: StoredSession,
  runId: string,
  driver: DriverState,
): Promise<{ run: StoredRun; events: EngineEvent[] }> {
  const setup = await deps.setupFor(session, runId);
  const engine = new TradingEngine(setup);
  await warmUpFromStore(deps.candles, engine, Math.floor(driver.start_ms / 1000));
  const run = firstRun(session, runId, engine, { cursor_ms: 0, bars: 0, bars_total: 0, done: false, driver }, deps.now());
  return { run, events: engine.drainEvents() };
}

/**
 * Feeds the run's next bars: `steps` bars of the step period (with every bar closing at the same
 * instant as the last of them), or every bar closing at or before `toMs`. Saved with its events
 * conditionally on the run's version; `change` edits the driver state in the same write.
 */
export async function advance(
  deps: DriverDeps,
  runId: string,
  until: { steps?: number; toMs?: number },
  change: (driver: DriverState, run: StoredRun) => DriverState = (d) => d,
): Promise<{ run: StoredRun; events: EngineEvent[] }> {
  const missing = () => notFound("REPLAY_NOT_FOUND", `Run ${runId} is not driven over stored candles`);
  const done = await updateRun(
    deps,
    runId,
    async (run) => {
      const driver = run.progress?.driver;
      if (!driver) throw missing();
      return { value: null, ...(await feedRun(deps, run, change(driver, run), until)) };
    },
    missing,
  );
  return { run: done!.run, events: done!.events };
}

async function feedRun(deps: DriverDeps, run: StoredRun, driver: DriverState, until: { steps?: number; toMs?: number }) {
  const progress = run.progress!;
  const engine = engineOf(run);
  let steps = 0;
  let fed = { fed: 0, lastCloseMs: null as number | null, done: progress.done };
  const wanted = until.steps ?? Infinity;
  if (!progress.done && (wanted > 0 || until.toMs !== undefined)) {
    const feed = new BarFeed(deps.candles, driver.feeds, Math.floor(driver.start_ms / 1000), Math.floor(driver.end_ms / 1000), progress.cursor_ms);
    const closes = { day: -1, close: 0 };
    fed = await feed.run(
      Number.MAX_SAFE_INTEGER,
      (bar, timeframe) => {
        if (timeframe === driver.step_timeframe) steps++;
        closeDayBefore(run, engine, bar.timestamp);
        engine.onBar(bar, timeframe, barCloseOf(run, bar, timeframe, closes));
      },
      () => false,
      (close) => steps >= wanted || (until.toMs !== undefined && close > until.toMs),
    );
    if (fed.done) closeDayAtEnd(run, engine);
  }
  const done = fed.done;
  const nextDriver: DriverState = { ...driver, steps: driver.steps + steps, ...(done ? { state: "finished" as const, played_at: null, carry: 0 } : {}) };
  const nextProgress: RunProgress = {
    cursor_ms: fed.lastCloseMs ?? progress.cursor_ms,
    bars: progress.bars + fed.fed,
    bars_total: 0,
    done,
    driver: nextDriver,
  };
  return { engine, progress: nextProgress };
}

/** The replay's status as the API shows it. */
export function statusOf(run: StoredRun): ReplayStatusView {
  const progress = run.progress!;
  const driver = progress.driver!;
  const engine = engineOf(run);
  const share = progress.done ? 1 : driver.steps_total > 0 ? Math.min(1, driver.steps / driver.steps_total) : 0;
  return {
    session_id: run.session_id,
    run_id: run.run_id,
    state: driver.state,
    speed: driver.speed,
    start_date: driver.start_date,
    end_date: driver.end_date,
    timezone: driver.timezone,
    step_timeframe: driver.step_timeframe,
    cursor: progress.cursor_ms > 0 ? iso(progress.cursor_ms) : null,
    progress: Math.round(share * 1e6) / 1e6,
    steps: driver.steps,
    steps_total: driver.steps_total,
    bars: progress.bars,
    last_sequence: run.snapshot?.sequence ?? 0,
    equity: engine.totalEquity().toFixed(2),
    ...whatItDid(engine),
    updated_at: run.updated_at,
  };
}

/** What a run's strategies did so far: orders placed, denied, and round trips closed. */
function whatItDid(engine: TradingEngine): { orders: number; denied_orders: number; closed_trades: number } {
  const { stats } = engine.view(null);
  return { orders: Number(stats.orders), denied_orders: Number(stats.denied), closed_trades: Number(stats.closed_trades) };
}

/** 409 `INVALID_STATE_TRANSITION` naming the replay's state. */
const invalidReplayTransition = (sessionId: string, state: ReplayStatus, action: string, hint: string) =>
  conflict("INVALID_STATE_TRANSITION", `Cannot ${action} the replay of session ${sessionId}: it is ${state}; ${hint}`, { current_status: state, action });

/** The driver of a session's replay, or 404 `REPLAY_NOT_FOUND`. */
async function replayOf(deps: DriverDeps, session: StoredSession): Promise<StoredRun> {
  const run = await deps.runs.get(replayRunId(session.id));
  if (!run?.progress?.driver) throw notFound("REPLAY_NOT_FOUND", `Session ${session.id} has no replay; start one with POST .../replay/start`);
  return run;
}

/** Starts (or restarts from scratch) a replay of the session's configuration over a date range. */
export async function start(deps: DriverDeps, actor: Actor, sessionId: string, input: unknown): Promise<ReplayStatusView> {
  const body = parseOrThrow(ReplayStartRequest, input, ["body"]);
  const session = await owned(deps, actor, sessionId);
  const issues = [];
  const range = rangeIssue(body.start_date, body.end_date);
  if (range) issues.push(range);
  const feeds = orderedFeeds(session);
  if (feeds.length === 0)
    issues.push({ loc: ["path", "session_id"], msg: `session ${session.id} has no strategy with symbols to replay`, type: "nothing_to_replay" });
  if (issues.length > 0) throw new ValidationError(issues);
  const timezone = body.timezone ?? Markets[marketOf(feeds[0]!.symbol)].timeZone;
  const runId = replayRunId(session.id);
  const base = { feeds, step_timeframe: finestTimeframe(feeds.map((f) => f.timeframe)), ...rangeOf(body.start_date, body.end_date, timezone) };
  const driver: DriverState = {
    kind: "replay",
    start_date: body.start_date,
    end_date: body.end_date,
    timezone,
    ...base,
    state: body.paused ? "paused" : "playing",
    speed: body.speed,
    steps: 0,
    steps_total: await countSteps(deps.candles, base),
    played_at: body.paused ? null : deps.wallNow(),
    carry: 0,
  };
  const write = async () => {
    await deps.runs.delete(runId);
    const { run, events } = await freshRun(deps, session, runId, driver);
    if (!(await deps.runs.save(run, 0, events))) throw conflict("RUN_CHANGED", `The replay of session ${session.id} was started concurrently; try again`);
    return run;
  };
  return statusOf(body.paused ? await write() : await playingAfter(deps, runId, write));
}

/** The feeds of a session, a director's first (bars closing together reach the director before its executors). */
export function orderedFeeds(session: StoredSession): Feed[] {
  return feedsOf(session.config);
}

/**
 * Runs `write` (which makes the run playing) between two markings of the run for the worker's
 * playing loop. The marker first: a crash after it leaves a marker the loop drops, never a playing
 * run nobody plays. The marker again after: the loop may have read the run between the first
 * marking and the write, still not playing, and dropped the first marker.
 */
export async function playingAfter<T>(deps: Pick<DriverDeps, "replays">, runId: string, write: () => Promise<T>): Promise<T> {
  await deps.replays.mark(runId);
  const result = await write();
  await deps.replays.mark(runId);
  return result;
}

/** Play, pause, step, seek or change speed; answers the status after it. */
export async function control(deps: DriverDeps, actor: Actor, sessionId: string, input: unknown): Promise<{ status: ReplayStatusView; events: EngineEvent[] }> {
  const body = parseOrThrow(ReplayControlRequest, input, ["body"]);
  const session = await owned(deps, actor, sessionId);
  const run = await replayOf(deps, session);
  const driver = run.progress!.driver!;
  const runId = run.run_id;
  const guard = (allowed: ReplayStatus[], hint: string) => (current: DriverState) => {
    if (!allowed.includes(current.state)) throw invalidReplayTransition(session.id, current.state, body.action, hint);
  };
  switch (body.action) {
    case "play": {
      guard(["paused"], driver.state === "playing" ? "it is already playing" : "seek back or start a new replay")(driver);
      const result = await playingAfter(deps, runId, () =>
        advance(
          deps,
          runId,
          { steps: 0 },
          (d) => (guard(["paused"], "play is allowed when paused")(d), { ...d, state: "playing", played_at: deps.wallNow(), carry: 0 }),
        ),
      );
      return { status: statusOf(result.run), events: result.events };
    }
    case "pause": {
      const result = await advance(
        deps,
        runId,
        { steps: 0 },
        (d) => (guard(["playing"], "pause is allowed while playing")(d), { ...d, state: "paused", played_at: null, carry: 0 }),
      );
      await deps.replays.unmark(runId);
      return { status: statusOf(result.run), events: result.events };
    }
    case "step": {
      const result = await advance(
        deps,
        runId,
        { steps: body.bars },
        (d) => (guard(["paused"], d.state === "playing" ? "pause it first" : "seek back or start a new replay")(d), d),
      );
      return { status: statusOf(result.run), events: result.events };
    }
    case "speed": {
      const result = await advance(deps, runId, { steps: 0 }, (d) => ({ ...d, speed: body.speed }));
      return { status: statusOf(result.run), events: result.events };
    }
    case "seek":
      return seek(deps, session, run, body.to);
  }
}

/**
 * Moves the replay to just after the bars closing at or before `to` (clamped to the range).
 * Forwards it feeds the bars in between; backwards it starts again from the beginning of the
 * range and feeds up to `to` (the run's events after it are removed), so the state after a seek
 * is exactly that of a straight run to the same point. A finished replay sought back is paused.
 */
async function seek(deps: DriverDeps, session: StoredSession, run: StoredRun, to: string): Promise<{ status: ReplayStatusView; events: EngineEvent[] }> {
  const driver = run.progress!.driver!;
  const parsed = IsoDate.safeParse(to).success ? zonedTimeToUtc(driver.timezone, dayNumberOf(to), 0) : Date.parse(to);
  if (!Number.isFinite(parsed)) throw new ValidationError([{ loc: ["body", "to"], msg: `'${to}' is not an ISO date or date-time`, type: "value_error" }]);
  const target = Math.max(driver.start_ms, Math.min(parsed, driver.end_ms + PERIOD_MS["1d"]));
  if (target >= run.progress!.cursor_ms) {
    const result = await advance(deps, run.run_id, { toMs: target });
    return { status: statusOf(result.run), events: result.events };
  }
  const state: ReplayStatus = driver.state === "playing" ? "playing" : "paused";
  await deps.runs.delete(run.run_id);
  const { run: fresh, events: warmUp } = await freshRun(deps, session, run.run_id, {
    ...driver,
    state,
    steps: 0,
    played_at: state === "playing" ? deps.wallNow() : null,
    carry: 0,
  });
  const fed = await feedRun(deps, fresh, fresh.progress!.driver!, { toMs: target });
  const next: StoredRun = { ...fresh, snapshot: fed.engine.snapshot(), progress: fed.progress, updated_at: iso(deps.now()) };
  const events = [...warmUp, ...fed.engine.drainEvents()];
  if (!(await deps.runs.save({ ...next, version: 1 }, 0, events)))
    throw conflict("RUN_CHANGED", `The replay of session ${session.id} changed during the seek; try again`);
  return { status: statusOf({ ...next, version: 1 }), events };
}

/** The status of the session's replay (404 `REPLAY_NOT_FOUND` before the first start). */
export async function status(deps: DriverDeps, actor: Actor, sessionId: string): Promise<ReplayStatusView> {
  const session = await owned(deps, actor, sessionId);
  return statusOf(await replayOf(deps, session));
}

/**
 * The playing loop's step (the session worker calls it every tick; the embedded runtime's
 * worker too): every playing run (replays, running historical MTF sessions) advances by the
 * steps its speed owes since it last played. A historical MTF session whose range ends is
 * `completed`. Returns the events each wrote, for streaming.
 */
export async function tick(deps: DriverDeps): Promise<{ session_id: string; run_id: string; kind: DriverState["kind"]; events: EngineEvent[] }[]> {
  const out: { session_id: string; run_id: string; kind: DriverState["kind"]; events: EngineEvent[] }[] = [];
  for (const runId of await deps.replays.list()) {
    const run = await deps.runs.get(runId);
    const driver = run?.progress?.driver;
    if (!run || !driver || driver.state !== "playing") {
      await deps.replays.unmark(runId);
      continue;
    }
    const now = deps.wallNow();
    const owed = driver.carry + (driver.speed * Math.max(0, now - (driver.played_at ?? now))) / 1000;
    const steps = Math.min(MAX_STEPS_PER_TICK, Math.floor(owed));
    if (steps < 1) continue;
    try {
      const result = await advance(deps, runId, { steps }, (d) => {
        if (d.state !== "playing") throw invalidReplayTransition(run.session_id, d.state, "play", "it was paused meanwhile");
        return { ...d, played_at: now, carry: Math.min(owed - steps, 1) };
      });
      if (result.run.progress!.driver!.state !== "playing") {
        await deps.replays.unmark(runId);
        if (driver.kind === "mtf") await complete(deps, run.session_id);
      }
      out.push({ session_id: run.session_id, run_id: runId, kind: driver.kind, events: result.events });
    } catch (error) {
      if ((error as { code?: string }).code !== "INVALID_STATE_TRANSITION") throw error;
    }
  }
  return out;
}

/** Marks a session whose driven range ended `completed` (when it is still running or paused). */
export async function complete(deps: DriverDeps, sessionId: string): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const session = await deps.sessions.get(sessionId);
    if (!session || (session.status !== "running" && session.status !== "paused")) return;
    const at = iso(deps.now());
    if (
      await deps.sessions.replace({ ...session, status: "completed", end_time: session.end_time ?? at, version: session.version + 1, updated_at: at }, session)
    )
      return;
  }
}

/** Publishes a driven run's events to the session's socket topic (one look-up of its connections), with the run id; a replay's marked `replay: true`. */
export async function publish(realtime: RealtimeDeps, sessionId: string, runId: string, events: EngineEvent[]): Promise<void> {
  await Realtime.publishMany(
    realtime,
    `session:${sessionId}`,
    events.map((event) => ({
      type: event.type,
      data: { ...event.data, channel_id: event.channel_id, sequence: event.sequence, run_id: runId, replay: runId !== sessionId },
      timestamp: iso(event.time),
    })),
  );
}
