import { conflict } from "@tp/core/errors";
import type { WorkerBeat, WorkerLease } from "@tp/core/trading/worker/status";
import type { Db } from "../dynamo/db";
import { Keys } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";

/** A task's heartbeat item: its beat, and until when (wall clock) it counts as alive. */
export type TaskBeat = WorkerBeat & { task_id: string; alive_until: number };

/** Dead tasks' beats are kept an hour, then DynamoDB's TTL removes them. */
const BEAT_KEPT_S = 3_600;

/**
 * The session worker tasks' own heartbeats and their leases (docs/session-worker.md "More than
 * one worker"): one heartbeat per task, which keeps its leases while it has not run out; one
 * lease per live session, naming the task that feeds it, taken and given up only by conditional
 * writes. Only the worker uses it (the status endpoints read the combined beat, `worker-store.ts`).
 */
export class DynamoLeaseStore {
  private readonly leaseItems: Repository<WorkerLease>;
  private readonly beats: Repository<TaskBeat>;
  private readonly quote: Repository<WorkerLease>;

  constructor(
    db: Db,
    /** The wall clock, which a lease's `since` is written in. */
    private readonly wall: () => number = Date.now,
  ) {
    this.leaseItems = new Repository<WorkerLease>(db, { type: "WorkerLease", key: (lease) => Keys.workerLease(lease.session_id) });
    this.quote = new Repository<WorkerLease>(db, { type: "QuoteLease", key: () => Keys.quoteLease() });
    this.beats = new Repository<TaskBeat>(db, {
      type: "WorkerTaskHeartbeat",
      key: (beat) => Keys.workerTask(beat.task_id),
      expiresAt: (beat) => Math.ceil(beat.alive_until / 1000) + BEAT_KEPT_S,
    });
  }

  /** Writes a task's heartbeat; it is alive (and keeps its leases) until `aliveUntil` (wall ms) unless it beats again. */
  async beat(taskId: string, heartbeat: WorkerBeat, aliveUntil: number): Promise<void> {
    await this.beats.put({ ...heartbeat, task_id: taskId, alive_until: aliveUntil });
  }

  /** The beats of the tasks whose heartbeat has not run out. */
  async liveBeats(): Promise<TaskBeat[]> {
    const now = this.wall();
    const beats = await this.beats.queryAll(Keys.workerTasksPartition, { prefix: Keys.workerTaskPrefix });
    return beats.filter((beat) => beat.alive_until >= now);
  }

  /** Every lease (one per live session that some task took), over the shards in one statement. */
  leases(): Promise<WorkerLease[]> {
    return this.leaseItems.queryPartitions(Keys.workerLeasesPartitions);
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

  /**
   * The quote lease (docs/live-trading.md "One quote connection"): kept by this task while it holds
   * it, taken when nobody does or its holder is no longer among the live `tasks`; whether this task
   * holds it now.
   */
  async holdQuoteLease(taskId: string, tasks: ReadonlySet<string>): Promise<boolean> {
    const current = await this.quote.get(Keys.quoteLease(), { consistent: true });
    if (current?.owner === taskId) return true;
    if (current && current.owner !== "" && tasks.has(current.owner)) return false;
    const lease: WorkerLease = { session_id: "quote", owner: taskId, since: this.wall() };
    try {
      if (current === undefined) await this.quote.put(lease, { ifAbsent: true, conflict: () => conflict("LEASE_TAKEN", "The quote lease changed") });
      else await this.quote.replaceIf(lease, "owner", current.owner, () => conflict("LEASE_TAKEN", "The quote lease changed"));
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === "LEASE_TAKEN") return false;
      throw error;
    }
  }

  /** Gives the quote lease up, if this task holds it. */
  async releaseQuoteLease(taskId: string): Promise<void> {
    try {
      await this.quote.replaceIf({ session_id: "quote", owner: "", since: this.wall() }, "owner", taskId, () =>
        conflict("LEASE_TAKEN", "The quote lease changed"),
      );
    } catch (error) {
      if ((error as { code?: string }).code !== "LEASE_TAKEN") throw error;
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
