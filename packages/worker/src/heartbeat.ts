import type { TaskBeat } from "@tp/adapters/stores/lease-store";
import { DynamoWorkerStore } from "@tp/adapters/stores/worker-store";
import { inParallel } from "@tp/core/util/in-parallel";
import * as Channels from "@tp/core/trading/channels/stream";
import { engineOf } from "@tp/core/trading/run/update";
import { combineBeats, type WorkerBeat } from "@tp/core/trading/worker/status";
import type { WorkerContext } from "./context";
import { LEASE_MS } from "./leases";

/**
 * The heartbeats' cadence at most (wall ms): a third of the leases' `LEASE_MS`, which a beat keeps,
 * so a task misses two beats before its leases run out; the status endpoints call a worker alive
 * for 30 s after its beat. Two small items every 5 s, not every step a second (docs/aws-costs.md).
 */
export const BEAT_MS = 5_000;

/**
 * What the task tells about itself (docs/session-worker.md "Each step", 7 and 9): its heartbeat,
 * which keeps its leases and, combined with the other live tasks' beats, is what the status
 * endpoints read; and each running session's `channel_metrics`, pushed when they moved and a
 * socket listens.
 */
export class Heartbeat {
  /** This task's beat. */
  private readonly mine: WorkerBeat;
  /** The other live tasks' beats as last read (this task's heartbeat item shows them all combined with its own). */
  private others: WorkerBeat[] = [];
  private readonly store: DynamoWorkerStore;
  /** When channel metrics were last pushed, and the run version they showed per session (only saves pushes; nothing here is state). */
  private metricsAt = 0;
  /** When (wall ms) the step last wrote the heartbeats, and what they said of the task's sessions and feeds. */
  private beatAt = Number.NEGATIVE_INFINITY;
  private beatShown = "";
  private readonly metricsVersion = new Map<string, number>();
  /** The figures of each session's last `channel_metrics` push (without their instant). */
  private readonly metricsFigures = new Map<string, string>();

  constructor(private readonly context: WorkerContext) {
    const { services, options } = context;
    this.store = new DynamoWorkerStore(services.db);
    // The heartbeat is on the market's clock, as the status endpoints that read it are.
    const now = services.trading.sessions.now();
    this.mine = {
      at: now,
      started_at: now,
      sessions: 0,
      feeds: [],
      bars: 0,
      ...(options.clockSpeed && options.clockSpeed !== 1 ? { speed: options.clockSpeed } : {}),
    };
  }

  /** The live tasks' beats as just read (this task's own among them is left out). */
  heard(beats: readonly TaskBeat[]): void {
    this.others = beats.filter((beat) => beat.task_id !== this.context.taskId).map(({ task_id: _task, alive_until: _until, ...beat }) => beat);
  }

  /** The feeds the other live tasks read, as their beats last said. */
  otherFeeds(): string[] {
    return this.others.flatMap((beat) => beat.feeds);
  }

  /** The feeds this task is subscribed to now. */
  subscribed(feeds: string[]): void {
    this.mine.feeds = feeds;
  }

  /** Session bars fed (counted in the heartbeat). */
  fed(bars: number): void {
    this.mine.bars += bars;
  }

  /** Forgets a session the worker let go. */
  letGo(id: string): void {
    this.metricsFigures.delete(id);
  }

  /**
   * Every `metricsMs`, `channel_metrics` of each running session whose run changed since its last
   * push, whose figures moved, and that a socket listens to (a snapshot nobody receives, or the
   * same figures again, is not journalled: it would be a feed write per session and bar,
   * docs/aws-costs.md; a client that connects when nobody listened gets them at the next push, and
   * `GET …/channels/{id}/metrics` any time): from the engine this task kept with the run it saved,
   * else the run as its run cache holds it (read once, not at every push).
   */
  async pushMetrics(): Promise<void> {
    const now = this.context.services.now();
    if (now - this.metricsAt < (this.context.options.metricsMs ?? 15_000)) return;
    this.metricsAt = now;
    const deps = this.context.channels;
    const due = [...this.context.driven].filter(([, driven]) => driven.session.status === "running" && driven.session.config.channels.length > 0);
    await inParallel(due, due.length, async ([id]) => {
      const kept = this.context.runCache.kept(id);
      if (kept && this.metricsVersion.get(id) === kept.run.version) return;
      // Whether anyone listens, asked before the run is read (the cheaper of the two reads).
      if ((await deps.realtime.connections.byTopic(`session:${id}`)).length === 0) {
        // The next client to listen gets the figures at the next push, moved or not.
        this.metricsFigures.delete(id);
        return;
      }
      const run = kept?.run ?? (await this.context.runCache.get(id));
      if (!run || this.metricsVersion.get(id) === run.version) return;
      this.metricsVersion.set(id, run.version);
      const engine = kept?.engine ?? engineOf(run);
      // Stamped with the market's clock, as every other event is (the accelerated clock's, in npm start).
      const messages = Channels.metricsMessagesOf(engine, this.context.services.trading.sessions.now());
      // Figures that did not move since the last push (a flat channel's quiet bars) are not journalled again.
      const figures = JSON.stringify(messages.map(({ data: { timestamp: _at, ...figures } }) => figures));
      if (this.metricsFigures.get(id) === figures) return;
      this.metricsFigures.set(id, figures);
      await Channels.publish(deps, id, messages);
    });
  }

  /**
   * Writes this task's heartbeat, which keeps its leases for `LEASE_MS` more, when `beatMs` has
   * passed since the last, or at once when the sessions it drives or the feeds it reads changed
   * (what the status endpoints show of it).
   */
  async beat(): Promise<void> {
    const leaseMs = this.context.options.leaseMs ?? LEASE_MS;
    const shown = `${this.context.driven.size} ${this.mine.feeds.join(",")}`;
    if (shown === this.beatShown && this.context.wall() - this.beatAt < Math.min(this.context.options.beatMs ?? BEAT_MS, leaseMs / 3)) return;
    this.beatAt = this.context.wall();
    this.beatShown = shown;
    this.mine.at = this.context.services.trading.sessions.now();
    this.mine.sessions = this.context.driven.size;
    await Promise.all([
      this.context.leases.beat(this.context.taskId, this.mine, this.context.wall() + leaseMs),
      this.store.beat(combineBeats([this.mine, ...this.others])!),
    ]);
  }

  /** The heartbeat as run out (the worker stops): its leases are free at once; the workers' item shows the others alone. */
  async stop(): Promise<void> {
    this.mine.sessions = 0;
    await this.context.leases.beat(this.context.taskId, this.mine, this.context.wall() - 1);
    if (this.others.length > 0) await this.store.beat(combineBeats(this.others)!);
  }
}
