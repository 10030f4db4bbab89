import { conflict } from "@tp/core/errors";
import { combineBeats, type WorkerBeat, type WorkerLease } from "@tp/core/trading/worker-status";
import type { Db } from "../dynamo/db";
import { Keys } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";

/** A task's heartbeat item: its beat, and until when (wall clock) it counts as alive. */
type StoredBeat = WorkerBeat & { task_id: string; alive_until: number };

/** Dead tasks' beats are kept an hour (the status endpoints show the last one), then DynamoDB's TTL removes them. */
const BEAT_KEPT_S = 3_600;

/**
 * The session workers' items (docs/session-worker.md "More than one worker"): one heartbeat per
 * task, overwritten every step, read by the status endpoints; one lease per live session naming
 * the task that feeds it, taken and given up only by conditional writes.
 */
export class DynamoWorkerStore {
  private readonly beats: Repository<StoredBeat>;
  private readonly leaseItems: Repository<WorkerLease>;

  constructor(
    db: Db,
    /** The wall clock: liveness is the tasks' own time, not the market's. */
    private readonly wall: () => number = Date.now,
  ) {
    this.beats = new Repository<StoredBeat>(db, {
      type: "WorkerHeartbeat",
      key: (beat) => Keys.workerHeartbeat(beat.task_id),
      expiresAt: (beat) => Math.ceil(beat.alive_until / 1000) + BEAT_KEPT_S,
    });
    this.leaseItems = new Repository<WorkerLease>(db, { type: "WorkerLease", key: (lease) => Keys.workerLease(lease.session_id) });
  }

  /** Writes the task's heartbeat; it is alive until `aliveUntil` (wall ms) unless it beats again. */
  async beat(taskId: string, heartbeat: WorkerBeat, aliveUntil: number): Promise<void> {
    await this.beats.put({ ...heartbeat, task_id: taskId, alive_until: aliveUntil });
  }

  /** The tasks whose heartbeat has not run out. */
  async liveTasks(): Promise<Set<string>> {
    const now = this.wall();
    const beats = await this.beats.queryAll(Keys.workerHeartbeatsPartition, { prefix: Keys.workerHeartbeatPrefix });
    return new Set(beats.filter((beat) => beat.alive_until >= now).map((beat) => beat.task_id));
  }

  /** What the workers together last wrote about themselves: the live tasks' beats combined, else the last task's. */
  async last(): Promise<WorkerBeat | undefined> {
    const now = this.wall();
    const beats = await this.beats.queryAll(Keys.workerHeartbeatsPartition, { prefix: Keys.workerHeartbeatPrefix });
    const live = beats.filter((beat) => beat.alive_until >= now);
    const chosen = live.length > 0 ? live : beats.sort((a, b) => b.at - a.at).slice(0, 1);
    return combineBeats(chosen.map(({ task_id: _task, alive_until: _until, ...beat }) => beat));
  }

  /** Every lease (one per live session that some task took). */
  leases(): Promise<WorkerLease[]> {
    return this.leaseItems.queryAll(Keys.workerLeasesPartition);
  }

  /** Takes a session's lease from `from` (its owner as read; undefined when there was no lease); false when another task changed it first. */
  async take(sessionId: string, taskId: string, from: string | undefined): Promise<boolean> {
    const lease: WorkerLease = { session_id: sessionId, owner: taskId, since: this.wall() };
    const lost = () => conflict("LEASE_TAKEN", `The lease of session ${sessionId} changed`);
    try {
      if (from === undefined) await this.leaseItems.put(lease, { ifAbsent: true, conflict: lost });
      else await this.leaseItems.replaceIf(lease, "owner", from, lost);
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === "LEASE_TAKEN") return false;
      throw error;
    }
  }

  /** Gives a session's lease up (owner `""`: any task may take it at once), unless another task holds it by now. */
  release(sessionId: string, taskId: string): Promise<boolean> {
    return this.take(sessionId, "", taskId);
  }

  /** Removes the leases of sessions that are no longer live. */
  async forget(sessionIds: string[]): Promise<void> {
    if (sessionIds.length > 0) await this.leaseItems.deleteMany(sessionIds.map((id) => Keys.workerLease(id)));
  }
}
