import { randomUUID } from "node:crypto";
import type { Services } from "@tp/adapters/services";
import { DynamoLeaseStore } from "@tp/adapters/stores/lease-store";
import type { TradingEngine } from "@tp/core/engine/engine";
import type { EngineEvent } from "@tp/core/engine/events";
import { log } from "@tp/core/log";
import * as Channels from "@tp/core/trading/channels/stream";
import { engineOf } from "@tp/core/trading/run/update";
import type { StoredSession } from "@tp/core/trading/session/sessions";
import { Bars } from "./bars";
import type { Driven, SessionWorkerOptions, WorkerContext } from "./context";
import { batchedChannels } from "./feeding";
import { Heartbeat } from "./heartbeat";
import { Intake } from "./intake";
import { KillSwitches } from "./kill-switches";
import { Ownership, RELAY_SERVE_MS } from "./ownership";
import { RunCache } from "./run-cache";
import { Feeder } from "./step";
import { Venue } from "./venue";

export type { SessionWorkerOptions, WorkerStep } from "./context";
export { CATCH_UP_BARS, CLOSE_GRACE_MS } from "./bars";
export { CANCEL_REPORT_AFTER } from "./cancel-failures";
export { BEAT_MS } from "./heartbeat";
export { RELAY_SERVE_MS } from "./ownership";
export { RECONCILE_MS } from "./reconciliation";
export { SEND_BACKOFF_MAX_MS, sendBackoffMs } from "./send-backoff";
export { LIVE_POLL_MS, VENUE_RECHECK_MS } from "./venue";

/**
 * The session worker (ENGINE.md §5): holds the provider's candlestick subscriptions of every
 * running simulation and live session, turns confirmed pushes into closed bars, stores them in
 * the candle store, feeds them to each session's run (snapshot and events saved together) and
 * pushes the events to the session's WebSocket topic. Crash-only: it keeps nothing that is not
 * in the table, and on start it picks up every running session from its run's snapshot.
 * Paused sessions stay subscribed but are not fed.
 *
 * It composes the phases of a step, each a module owning its state (docs/session-worker.md "The
 * code, by phase"): the commands' intake, the bars, the feeding, the broker exchange, ownership
 * and the heartbeat; they share a `WorkerContext`, and what one needs of another is wired here.
 */
export class SessionWorker {
  /** The sessions this task drives (the context's: ownership fills it, every phase reads it). */
  private readonly driven = new Map<string, Driven>();
  private readonly context: WorkerContext;
  private readonly killSwitches: KillSwitches;
  private readonly heartbeat: Heartbeat;
  private readonly bars: Bars;
  private readonly ownership: Ownership;
  private readonly venue: Venue;
  private readonly feeder: Feeder;
  private readonly intake: Intake;
  private timers: NodeJS.Timeout[] = [];
  private busy: Promise<void> | null = null;
  private stopped = false;

  constructor(services: Services, options: SessionWorkerOptions) {
    const wall = options.wall ?? Date.now;
    this.context = {
      services,
      options,
      taskId: options.taskId ?? randomUUID(),
      wall,
      driven: this.driven,
      runCache: new RunCache(services.trading.sessions.runs),
      leases: new DynamoLeaseStore(services.db, wall),
      channels: batchedChannels(services.trading.channels),
      publish: (session, events, engine) => this.publish(session, events, engine),
    };
    const context = this.context;
    this.killSwitches = new KillSwitches(context);
    this.heartbeat = new Heartbeat(context);
    const halted = () => this.killSwitches.halted();
    this.bars = new Bars(context, {
      relaying: () => this.ownership.relaying(),
      otherFeeds: () => this.heartbeat.otherFeeds(),
      subscribed: (feeds) => this.heartbeat.subscribed(feeds),
    });
    this.ownership = new Ownership(context, {
      beat: () => this.heartbeat.beat(),
      heard: (beats) => this.heartbeat.heard(beats),
      letGo: (id) => this.letGo(id),
      catchUp: (id) => this.bars.catchUp(id),
      resubscribe: () => this.bars.resubscribe(),
      market: () => this.bars.current,
    });
    this.venue = new Venue(context, { halted });
    this.feeder = new Feeder(context, {
      bars: this.bars,
      halted,
      fed: (bars) => this.heartbeat.fed(bars),
      playsReplays: () => this.ownership.playsReplays,
    });
    this.intake = new Intake(context, { commanded: (id) => this.venue.command(id), refresh: () => this.refresh() });
  }

  /** Recovers running sessions, subscribes their feeds, and starts the timers. */
  async start(): Promise<void> {
    await this.refresh();
    await this.heartbeat.beat();
    const every = (ms: number, work: () => Promise<void>) => {
      const timer = setInterval(() => void this.exclusive(work), ms);
      timer.unref();
      this.timers.push(timer);
    };
    every(this.context.options.tickMs ?? 1_000, () => this.tick());
    every(this.context.options.refreshMs ?? 2_000, () => this.refreshIfChanged());
    // The relay's answers do not wait for a step: they touch nothing of the steps' state.
    if (this.context.services.config.quoteConnection === "lease") {
      const serving = setInterval(() => void this.ownership.serveQuotes(), RELAY_SERVE_MS);
      serving.unref();
      this.timers.push(serving);
    }
  }

  /** Stops after the current step, giving up its leases and its heartbeat so that another task takes its sessions at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    await this.busy;
    this.bars.detach();
    this.venue.detach();
    await this.ownership.release();
    await this.heartbeat.stop();
  }

  /** One step: take the API's commands, let the simulated market push what the clock passed, then feed and save. */
  async tick(): Promise<void> {
    const started = this.context.wall();
    await this.takeCommands();
    await this.bars.advance();
    await this.ownership.serveQuotes();
    const fed = await this.flush();
    await this.routeOrders();
    // The replays' look-up, the metrics and the heartbeat do not depend on each other: their round trips overlap.
    await Promise.all([this.playReplays(), this.heartbeat.pushMetrics(), this.heartbeat.beat()]);
    this.context.options.onStep?.({ sessions: this.driven.size, ...fed, stepMs: this.context.wall() - started });
  }

  /** The API's session commands (`Intake`): an input's events pushed to the session's socket, one refresh for the lifecycle changes. */
  takeCommands(): Promise<void> {
    return this.intake.takeCommands();
  }

  /** The broker-venue sessions' orders exchanged with their brokers (`Venue`). */
  routeOrders(): Promise<void> {
    return this.venue.routeOrders();
  }

  /** Reads the running sessions and the leases again, keeping this task's share (`Ownership`). */
  refresh(): Promise<void> {
    return this.ownership.refresh();
  }

  /** The periodic refresh: in full only when the live list or the live tasks changed, or `FULL_REFRESH_MS` passed (ownership.ts). */
  refreshIfChanged(): Promise<void> {
    return this.ownership.refreshIfChanged();
  }

  /** Stores the closed candles and feeds every running session the bars of its feeds (`Feeder`). */
  flush(): Promise<{ sessionBars: number; lagMs: number }> {
    return this.feeder.flush();
  }

  /** Advances the playing replays and running historical MTF sessions, where this task plays them (`Feeder`). */
  playReplays(): Promise<void> {
    return this.feeder.playReplays();
  }

  /** Stops driving a session (it ended, or another task takes it): every phase forgets it. */
  private letGo(id: string): void {
    this.driven.delete(id);
    this.venue.letGo(id);
    this.bars.caughtUp(id);
    this.heartbeat.letGo(id);
    this.context.runCache.forget(id);
  }

  /**
   * Each event to the session's socket as `{type, data, timestamp}`, with a `channel_update` after
   * every fill and channel status change, through the session's update feed (docs/channels.md).
   */
  private async publish(session: StoredSession, events: EngineEvent[], engine?: TradingEngine): Promise<void> {
    if (events.length === 0) return;
    await this.killSwitches.tripOnDailyLoss(session, events);
    const deps = this.context.channels;
    // The engine that wrote the events when the caller has it; otherwise (the API's inputs) the run as saved.
    const run = engine ? undefined : await deps.runs.get(session.id);
    const current = engine ?? (run && engineOf(run));
    if (!current) return;
    await Channels.publish(deps, session.id, Channels.streamMessagesOf(current, session, events));
  }

  /** Timer work never overlaps: a slow step makes the next one wait. */
  private async exclusive(work: () => Promise<void>): Promise<void> {
    if (this.stopped) return;
    while (this.busy) await this.busy;
    this.busy = work()
      .catch((error) => log.error("Worker step failed", { source: "session-worker", error: String(error) }))
      .finally(() => {
        this.busy = null;
      });
    await this.busy;
  }
}
