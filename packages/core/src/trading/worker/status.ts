import { z } from "zod";
import { iso } from "../../util/time";

/** What the session worker last wrote about itself (its heartbeat item, `adapters/stores/worker-store.ts`). */
export interface WorkerBeat {
  /** Epoch ms of the beat. */
  at: number;
  started_at: number;
  /**
   * How many sessions it drives and the (symbol, period) feeds it is subscribed to: nothing per
   * session (a heartbeat stays small whatever the sessions; a session's last bar is its run's
   * `progress.cursor_ms`).
   */
  sessions: number;
  feeds: string[];
  /** Bars fed since it started. */
  bars: number;
  /** How many times faster than the wall clock the market's clock runs (the embedded runtime's accelerated clock); 1 when absent. */
  speed?: number;
}

/**
 * Which worker task feeds a live session (docs/session-worker.md "More than one worker"). The
 * lease holds while its owner's heartbeat has not run out (one write per task renews all of its
 * leases); `owner` is `""` once given up.
 */
export interface WorkerLease {
  session_id: string;
  owner: string;
  /** When (wall clock, epoch ms) the owner took it. */
  since: number;
}

/** The beats of several worker tasks as one: the latest beat, the earliest start, their sessions, feeds and bars together. */
export function combineBeats(beats: readonly WorkerBeat[]): WorkerBeat | undefined {
  if (beats.length <= 1) return beats[0];
  return {
    at: Math.max(...beats.map((beat) => beat.at)),
    started_at: Math.min(...beats.map((beat) => beat.started_at)),
    sessions: beats.reduce((sum, beat) => sum + beat.sessions, 0),
    feeds: [...new Set(beats.flatMap((beat) => beat.feeds))].sort(),
    bars: beats.reduce((sum, beat) => sum + beat.bars, 0),
    ...(beats[0]!.speed !== undefined ? { speed: beats[0]!.speed } : {}),
  };
}

/** A worker that has not beaten for this long is reported down. */
export const WORKER_STALE_MS = 30_000;

/** The schema of `workerStatus`. */
export const WorkerStatusView = z
  .object({
    alive: z.boolean().describe("It wrote a heartbeat within the last 30 s"),
    last_heartbeat: z.string().nullable(),
    sessions: z.int(),
    feeds: z.array(z.string()),
    last_bar_at: z.string().nullable().describe("Close time of the last bar fed to this session's run, as saved (null before its first)"),
  })
  .meta({ id: "WorkerStatus" });

/**
 * The worker as the status endpoints show it: alive, when it last beat, and what it drives, with
 * `lastBarMs` (a session's run's last bar, its `progress.cursor_ms`) when asked for a session.
 * Times are the market's clock, so staleness scales with its speed.
 */
export function workerStatus(beat: WorkerBeat | undefined, now: number, lastBarMs?: number) {
  const lastBar = lastBarMs !== undefined && lastBarMs > 0 ? lastBarMs : undefined;
  if (!beat) return { alive: false, last_heartbeat: null, sessions: 0, feeds: [] as string[], last_bar_at: lastBar !== undefined ? iso(lastBar) : null };
  return {
    alive: now - beat.at <= WORKER_STALE_MS * (beat.speed ?? 1),
    last_heartbeat: iso(beat.at),
    sessions: beat.sessions,
    feeds: beat.feeds,
    last_bar_at: lastBar !== undefined ? iso(lastBar) : null,
  };
}
