import { z } from "zod";
import { iso } from "../time";

/** What the session worker last wrote about itself (its heartbeat item, `adapters/stores/worker-store.ts`). */
export interface WorkerBeat {
  /** Epoch ms of the beat. */
  at: number;
  started_at: number;
  /** Sessions it drives and the (symbol, period) feeds it is subscribed to. */
  sessions: number;
  feeds: string[];
  /** Close time (epoch ms) of the last bar it fed, per session. */
  last_bar: Record<string, number>;
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

/** The beats of several worker tasks as one: the latest beat, the earliest start, their sessions, feeds, bars and last bars together. */
export function combineBeats(beats: readonly WorkerBeat[]): WorkerBeat | undefined {
  if (beats.length <= 1) return beats[0];
  return {
    at: Math.max(...beats.map((beat) => beat.at)),
    started_at: Math.min(...beats.map((beat) => beat.started_at)),
    sessions: beats.reduce((sum, beat) => sum + beat.sessions, 0),
    feeds: [...new Set(beats.flatMap((beat) => beat.feeds))].sort(),
    last_bar: Object.assign({}, ...beats.map((beat) => beat.last_bar)),
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
    last_bar_at: z.string().nullable().describe("Close time of the last bar it fed this session"),
  })
  .meta({ id: "WorkerStatus" });

/** The worker as the status endpoints show it: alive, when it last beat, and what it drives. Times are the market's clock, so staleness scales with its speed. */
export function workerStatus(beat: WorkerBeat | undefined, now: number, sessionId?: string) {
  if (!beat) return { alive: false, last_heartbeat: null, sessions: 0, feeds: [] as string[], last_bar_at: null };
  const lastBar = sessionId !== undefined ? beat.last_bar[sessionId] : undefined;
  return {
    alive: now - beat.at <= WORKER_STALE_MS * (beat.speed ?? 1),
    last_heartbeat: iso(beat.at),
    sessions: beat.sessions,
    feeds: beat.feeds,
    last_bar_at: lastBar !== undefined ? iso(lastBar) : null,
  };
}
