import type { Services } from "@tp/adapters/services";
import { inParallel } from "@tp/core/util/in-parallel";
import { LiveRuns } from "@tp/core/trading/session/live-run";
import * as Replay from "@tp/core/trading/drivers/replay";
import type { Bars } from "./bars";
import type { WorkerContext } from "./context";

/** What the step's feeding asks of the other phases. */
export interface FeederSeams {
  /** The step's bars, as the bars' intake closed them. */
  bars: Pick<Bars, "take" | "barsOf" | "caughtUp" | "storeCandles">;
  /** Who a kill switch halts now. */
  halted(): Promise<(userId: string) => boolean>;
  /** Session bars fed (counted in the heartbeat). */
  fed(bars: number): void;
  /** Whether this task plays the replays. */
  playsReplays(): boolean;
}

/**
 * The step's feeding (docs/session-worker.md "Each step", 4, 5 and 8): the closed bars fed to the
 * running sessions and saved (through the run cache), their candles stored, and the replays played.
 */
export class Feeder {
  /** The sessions' deps whose runs are the run cache (`feed` reads and saves them through it). */
  private readonly feedDeps: Services["trading"]["sessions"];

  constructor(
    private readonly context: WorkerContext,
    private readonly seams: FeederSeams,
  ) {
    this.feedDeps = { ...context.services.trading.sessions, runs: context.runCache };
  }

  /**
   * Stores the closed candles and feeds every running session the bars of its feeds, in close
   * order (a session catching up: every recent bar of its feeds, the run's cursor skipping what
   * it had). Returns the session bars fed and how long the oldest bar waited.
   */
  async flush(): Promise<{ sessionBars: number; lagMs: number }> {
    const { bars: intake } = this.seams;
    const { runCache } = this.context;
    const { bars, candles, since } = await intake.take();
    if (bars.length === 0) {
      // Candles to store without a bar to feed: a provider's correction of a bar closed by the calendar.
      await intake.storeCandles(candles);
      return { sessionBars: 0, lagMs: 0 };
    }
    // A session whose owner a kill switch halts is not fed (its strategies place nothing), as if paused.
    const halted = await this.seams.halted();
    const due = [...this.context.driven].filter(([, driven]) => driven.session.status === "running" && !halted(driven.session.user_id));
    let sessionBars = 0;
    // Sessions are independent (each its own run and topic): all are fed at once, each one's events in order; their saves meet in one `saveMany` (run-cache.ts).
    const feeding = inParallel(due, due.length, async ([id, driven]) => {
      const mine = intake.barsOf(id, driven.feeds, bars);
      if (mine.length === 0) return;
      const fed = await LiveRuns.feed(this.feedDeps, id, mine, (run) => runCache.engineOf(run)).catch((error) => {
        // A feed that failed may have left its engine half fed: the run is read from the table next time.
        runCache.forget(id);
        throw error;
      });
      intake.caughtUp(id);
      if (!fed) return;
      sessionBars += fed.bars;
      this.seams.fed(fed.bars);
      await this.context.publish(driven.session, fed.events, fed.engine);
    });
    // The candles are stored while the sessions are fed: no feed reads them (a run taken up catches up from the bars kept).
    await Promise.all([intake.storeCandles(candles), feeding]);
    return { sessionBars, lagMs: since === null ? 0 : this.context.wall() - since };
  }

  /** The playing loop (docs/mtf-and-replay.md): each playing replay or running historical MTF session advances by the steps its speed owes, its events streamed. */
  async playReplays(): Promise<void> {
    // One task plays them all (the live task of the smallest id): a replay's steps are owed by the clock, so two players would both advance it.
    if (!this.seams.playsReplays()) return;
    const { services } = this.context;
    for (const { session_id, run_id, events } of await Replay.tick(services.trading.drivers)) {
      await Replay.publish(services.realtime, session_id, run_id, events);
    }
  }
}
