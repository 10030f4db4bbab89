import type { TaskBeat } from "@tp/adapters/stores/lease-store";
import { serveQuoteRelay } from "@tp/adapters/provider/relay/relayed-market-data";
import { inParallel } from "@tp/core/util/in-parallel";
import { log } from "@tp/core/log";
import type { MarketData } from "@tp/core/provider/market-data";
import { LiveRuns, liveFeedsOf } from "@tp/core/trading/session/live-run";
import { isActiveOnWorker } from "@tp/core/trading/session/sessions";
import type { WorkerContext } from "./context";
import { FEED_CONCURRENCY, feedKey } from "./feeding";
import { planLeases } from "./leases";

/**
 * The longest a task goes without reading the live list and the leases whole (ms of the wall
 * clock): between full reads, a periodic refresh reads them only when the live list's stamp or the
 * set of live tasks changed (`refreshIfChanged`); this bounds a change whose stamp was lost.
 */
export const FULL_REFRESH_MS = 30_000;

/** How often the quote lease's holder answers the relay between steps (ms). */
export const RELAY_SERVE_MS = 100;

/** The live tasks of some beats, as one string to compare. */
const tasksOf = (beats: readonly TaskBeat[]) =>
  beats
    .map((beat) => beat.task_id)
    .sort()
    .join(" ");

/** What ownership asks of the other phases. */
export interface OwnershipSeams {
  /** Writes this task's heartbeat (when due). */
  beat(): Promise<void>;
  /** The live tasks' beats as just read. */
  heard(beats: readonly TaskBeat[]): void;
  /** Stops driving a session (it ended, or another task takes it). */
  letGo(id: string): void;
  /** A session taken up whose run existed catches up on the bars it missed. */
  catchUp(id: string): void;
  /** Subscribes the feeds the sessions need now, and only those. */
  resubscribe(): Promise<void>;
  /** The market data the worker is subscribed on, if any yet. */
  market(): MarketData | null;
}

/**
 * Which sessions this task drives (docs/session-worker.md "More than one worker"): the live
 * sessions and the leases read at every refresh, its share taken and the rest given up; whether it
 * plays the replays; and the quote lease with the relay its holder serves
 * (docs/live-trading.md "One quote connection").
 */
export class Ownership {
  /** Whether this task holds the quote lease (`holdQuoteLease`). */
  private holdsQuotes = false;
  /** Whether this task plays the replays (set at every refresh). */
  private playing = true;
  /** What the last full refresh read: the live list's stamp, the live tasks, when (wall ms). */
  private lastFull?: { stamp: string | undefined; tasks: string; at: number };

  constructor(
    private readonly context: WorkerContext,
    private readonly seams: OwnershipSeams,
  ) {}

  /** Whether this task plays the replays: the live task of the smallest id (a replay's steps are owed by the clock, so two players would both advance it). */
  get playsReplays(): boolean {
    return this.playing;
  }

  /**
   * Reads the running sessions and the leases again (docs/session-worker.md "More than one
   * worker"): this task keeps its share of the sessions, gives up what is above it, and takes
   * sessions without a live owner; a session taken is attached (its run created or restored, and
   * caught up on the bars it missed), one given up or ended is let go.
   */
  refresh(): Promise<void> {
    return this.refreshWhen(true);
  }

  /**
   * The periodic refresh: the live list's stamp and the live tasks' beats, and the whole of
   * `refresh` only when one of them changed since the last, or `FULL_REFRESH_MS` passed (a quiet
   * refresh reads two small things, not every session's marker and lease).
   */
  refreshIfChanged(): Promise<void> {
    return this.refreshWhen(false);
  }

  /** `refresh`, or (`always` false) only its beats and quote lease while nothing changed since the last full one. */
  private async refreshWhen(always: boolean): Promise<void> {
    const deps = this.context.services.trading.sessions;
    await this.seams.beat();
    const [stamp, beats] = await Promise.all([deps.sessions.liveStamp(), this.context.leases.liveBeats()]);
    const last = this.lastFull;
    const tasks = new Set(beats.map((beat) => beat.task_id));
    this.seams.heard(beats);
    await this.holdQuoteLease(tasks);
    if (!always && last && last.stamp === stamp && last.tasks === tasksOf(beats) && this.context.wall() - last.at < FULL_REFRESH_MS) return;
    this.lastFull = { stamp, tasks: tasksOf(beats), at: this.context.wall() };
    const [live, leases] = await Promise.all([deps.sessions.listLive(), this.context.leases.leases()]);
    const plan = planLeases(
      this.context.taskId,
      live.map((session) => session.id),
      leases,
      tasks,
    );
    for (const id of plan.release) {
      this.seams.letGo(id);
      await this.context.leases.release(id, this.context.taskId);
    }
    const held = new Set(plan.keep);
    await inParallel(plan.take, FEED_CONCURRENCY, async ({ session_id, from }) => {
      if (await this.context.leases.take(session_id, this.context.taskId, from)) held.add(session_id);
    });
    await this.context.leases.forget(plan.forget);
    this.playing = [...tasks].every((task) => task >= this.context.taskId);
    for (const session of live) {
      if (!held.has(session.id)) continue;
      let venue = this.context.driven.get(session.id)?.venue;
      if (venue === undefined) {
        const { run, created } = await LiveRuns.attach(deps, session);
        venue = run.setup.venue ?? "bars";
        // A run made here starts with its warm-up's log lines: the session's socket sees them first.
        if (created) await this.context.publish(session, created.events, created.engine);
        // A run another task (or this one before a restart) fed catches up on the bars closed since.
        else if (session.status === "running") this.seams.catchUp(session.id);
      }
      // A stopped session listed while its orders at the broker are cancelled reads no feed.
      const feeds = isActiveOnWorker(session) ? liveFeedsOf(session).map((f) => feedKey(f.symbol, f.timeframe)) : [];
      this.context.driven.set(session.id, { session, feeds, venue });
    }
    for (const id of [...this.context.driven.keys()]) if (!held.has(id)) this.seams.letGo(id);
    await this.seams.resubscribe();
  }

  /** Gives up the quote lease and every session's lease (the worker stops), so that another task takes them at once. */
  async release(): Promise<void> {
    if (this.holdsQuotes) await this.context.leases.releaseQuoteLease(this.context.taskId);
    const held = [...this.context.driven.keys()];
    this.context.driven.clear();
    await inParallel(held, FEED_CONCURRENCY, async (id) => void (await this.context.leases.release(id, this.context.taskId)));
  }

  /**
   * The quote lease (docs/live-trading.md "One quote connection"), for worker tasks whose provider
   * allows one quote connection per account (`quoteConnection: "lease"`): the task that holds it
   * opens the connection, answers the other processes' quote requests (`serveQuotes`), subscribes
   * every task's feeds and publishes the bars it closes (`publishBars`); the others ask it. A task
   * that loses it while it runs (its heartbeat ran out) cannot close the SDK's connection: it tells
   * the runtime (`onQuoteLeaseLost`: the Fargate task exits and starts again).
   */
  private async holdQuoteLease(tasks: ReadonlySet<string>): Promise<void> {
    if (this.context.services.config.quoteConnection !== "lease") return;
    const held = await this.context.leases.holdQuoteLease(this.context.taskId, tasks);
    if (this.holdsQuotes && !held) {
      log.error("The session worker lost the quote lease it held", { source: "session-worker", task_id: this.context.taskId });
      this.context.options.onQuoteLeaseLost?.();
    }
    this.holdsQuotes = held;
    this.context.services.providers.setQuoteLease(held);
  }

  /** Whether this task serves the quote relay: it holds the quote lease and the selected provider is LongPort. */
  async relaying(): Promise<boolean> {
    return this.holdsQuotes && (await this.context.services.providers.active()).type === "longport";
  }

  /** The quote lease's holder answers what other processes asked of the quote connection (every step, and every `RELAY_SERVE_MS`). */
  async serveQuotes(): Promise<void> {
    if (!this.seams.market() || !(await this.relaying())) return;
    await serveQuoteRelay(this.context.services.providers.quoteRelay, this.seams.market()!).catch((error) =>
      log.error("Serving the quote relay failed", { source: "session-worker", error: String(error) }),
    );
  }
}
