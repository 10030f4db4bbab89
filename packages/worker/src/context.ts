import type { Services } from "@tp/adapters/services";
import type { DynamoLeaseStore } from "@tp/adapters/stores/lease-store";
import type { TradingEngine } from "@tp/core/engine/engine";
import type { EngineEvent } from "@tp/core/engine/events";
import type { MarketData } from "@tp/core/provider/market-data";
import type { StoredSession } from "@tp/core/trading/session/sessions";
import type { RunCache } from "./run-cache";

export interface SessionWorkerOptions {
  /**
   * A market whose pushes drive the sessions, fixed (a test's or a bench's); absent, the selected
   * provider's market data, followed at every refresh (a provider switch, a token refresh).
   */
  marketData?: MarketData;
  /** How often pending bars are fed and saved, and the simulated market is advanced (ms). */
  tickMs?: number;
  /** How often the list of running sessions is read again (ms). */
  refreshMs?: number;
  /** How often (at most) each running session's `channel_metrics` are pushed, when its run changed (ms of the service clock). */
  metricsMs?: number;
  /** How many times faster than the wall clock the market's clock runs (`SIMULATED_CLOCK_SPEED`), written in the heartbeat. */
  clockSpeed?: number;
  /** This task's name in the leases and heartbeats (a fresh id by default). */
  taskId?: string;
  /** The wall clock, which leases and heartbeats run on (the market's clock may be accelerated or pinned). */
  wall?: () => number;
  /** How long this task's heartbeat keeps its leases (`LEASE_MS` by default; shorter in the two-worker test). */
  leaseMs?: number;
  /**
   * How often at most the step writes the heartbeats (ms of the wall clock, `BEAT_MS` by default,
   * and at most a third of `leaseMs`): a step a second beats every fifth step; steps that come
   * faster (a worker catching up, the benches) do not each write them.
   */
  beatMs?: number;
  /** Told after every step how it went (the Fargate task publishes it as CloudWatch metrics: docs/session-worker.md "Scaling"). */
  onStep?: (step: WorkerStep) => void;
  /** Told when this task lost the quote lease while it ran: it keeps a quote connection it cannot close (the Fargate task exits). */
  onQuoteLeaseLost?: () => void;
}

/** What one step did, for the worker's metrics. */
export interface WorkerStep {
  /** Sessions this task feeds. */
  sessions: number;
  /** Session bars fed (a bar fed to N sessions counts N). */
  sessionBars: number;
  /** Wall ms from the arrival of the step's oldest bar to the end of its feeding (0 without bars). */
  lagMs: number;
  /** Wall ms the step took. */
  stepMs: number;
}

/** A session this task drives: the session as last read, the feeds it reads, where its orders fill. */
export interface Driven {
  session: StoredSession;
  feeds: string[];
  /** Where its run's orders fill (fixed when the run is made): only `broker` sessions are routed. */
  venue: "broker" | "bars";
}

/**
 * What the worker's phases share (session-worker.ts composes them; docs/session-worker.md "The
 * code, by phase"): the services and options, the task's name and wall clock, the sessions it
 * drives, the runs it keeps, its leases, the channels' batched deps, and how events reach a
 * session's socket. Each phase keeps its own state; what one needs of another is handed to it as
 * a function when the worker composes them.
 */
export interface WorkerContext {
  readonly services: Services;
  readonly options: SessionWorkerOptions;
  /** This task's name in the leases and heartbeats. */
  readonly taskId: string;
  /** The wall clock, which leases, heartbeats, polls and backoffs run on. */
  readonly wall: () => number;
  /** The sessions this task drives, by id (ownership fills it at every refresh). */
  readonly driven: Map<string, Driven>;
  /** The runs this task fed, as it saved them (docs/session-worker.md "Each step"). */
  readonly runCache: RunCache;
  /** The leases and the tasks' heartbeats. */
  readonly leases: DynamoLeaseStore;
  /** The channels' deps with a step's update-feed appends and connection look-ups batched (`batchedChannels`). */
  readonly channels: Services["trading"]["channels"];
  /**
   * Each event to the session's socket, with a `channel_update` after every fill and channel
   * status change, through the session's update feed; a daily loss breach may trip the owner's
   * kill switch first.
   */
  publish(session: StoredSession, events: EngineEvent[], engine?: TradingEngine): Promise<void>;
}
