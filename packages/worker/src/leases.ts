import { createHash } from "node:crypto";
import type { WorkerLease } from "@tp/core/trading/worker/status";

/**
 * How long a task's heartbeat keeps it alive (wall clock): a task that stops beating loses its
 * leases this long after its last beat, and another takes its sessions on its next refresh, so
 * a dead task's sessions are fed again within `LEASE_MS` + one refresh (docs/session-worker.md
 * "More than one worker").
 */
export const LEASE_MS = 15_000;

/** What one task does with the leases at a refresh. */
export interface LeasePlan {
  /** Sessions it holds and keeps. */
  keep: string[];
  /** Sessions it tries to take, each from its owner as read (undefined: no lease yet; `""`: given up; else a dead task). */
  take: { session_id: string; from: string | undefined }[];
  /** Sessions it holds above its share, given up for a task with fewer. */
  release: string[];
  /** Leases of sessions no longer live that it may delete (its own, or nobody's alive). */
  forget: string[];
}

/** The most sessions one task takes: an even share of the live sessions among the live tasks, rounded up. */
export const shareOf = (sessions: number, tasks: number) => Math.ceil(sessions / Math.max(1, tasks));

/**
 * The lease plan of task `me`: it keeps what it holds up to its share (`shareOf`), gives up the
 * rest, and tries to take sessions without a live owner until it has its share. Free sessions are
 * tried in an order of their own per task, so tasks starting together rarely reach for the same
 * one (a conditional write settles it when they do).
 */
export function planLeases(me: string, live: readonly string[], leases: readonly WorkerLease[], liveTasks: ReadonlySet<string>): LeasePlan {
  const byId = new Map(leases.map((lease) => [lease.session_id, lease]));
  const liveIds = new Set(live);
  const share = shareOf(live.length, new Set([...liveTasks, me]).size);
  const mine = live.filter((id) => byId.get(id)?.owner === me).sort();
  const keep = mine.slice(0, share);
  const release = mine.slice(share);
  const free = live
    .filter((id) => {
      const owner = byId.get(id)?.owner;
      return owner === undefined || owner === "" || (owner !== me && !liveTasks.has(owner));
    })
    .sort((a, b) => order(me, a).localeCompare(order(me, b)));
  const take = free.slice(0, Math.max(0, share - keep.length)).map((id) => ({ session_id: id, from: byId.get(id)?.owner }));
  const forget = leases
    .filter((lease) => !liveIds.has(lease.session_id) && (lease.owner === me || !liveTasks.has(lease.owner)))
    .map((lease) => lease.session_id);
  return { keep, take, release, forget };
}

const order = (task: string, session: string) => createHash("sha1").update(`${task}|${session}`).digest("hex");
