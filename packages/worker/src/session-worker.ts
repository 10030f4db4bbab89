import { randomUUID } from "node:crypto";
import type { Services } from "@tp/adapters/services";
import { DynamoLeaseStore } from "@tp/adapters/stores/lease-store";
import { DynamoWorkerStore } from "@tp/adapters/stores/worker-store";
import type { StoredPeriod } from "@tp/core/candles/buckets";
import type { EngineEvent } from "@tp/core/engine/events";
import { screenCandles } from "@tp/core/imports/index";
import { Calendar } from "@tp/core/market/calendar";
import { marketOf } from "@tp/core/market/market";
import type { MarketData } from "@tp/core/provider/market-data";
import type { Candlestick, PushCandlestickEvent } from "@tp/core/provider/quote-types";
import { engineOf, updateRun } from "@tp/core/trading/run-update";
import type { TradingEngine } from "@tp/core/engine/engine";
import { applyReports, exchange, VENUE_WAIT_MS, VenueReads, type VenueReport } from "@tp/core/trading/venue";
import { mismatchText, venueMismatches, type VenueMismatch } from "@tp/core/trading/venue-reconcile";
import { serveQuoteRelay } from "@tp/adapters/provider/relay/relayed-market-data";
import type { OrderGateway } from "@tp/core/provider/order-gateway";
import * as Channels from "@tp/core/trading/channel-stream";
import type { Timeframe } from "@tp/core/strategies/definition";
import { LiveRuns, liveFeedsOf, type ClosedBar } from "@tp/core/trading/live";
import { combineBeats, type WorkerBeat } from "@tp/core/trading/worker-status";
import { isActiveOnWorker, type StoredSession } from "@tp/core/trading/sessions";
import type { StoredRun } from "@tp/core/trading/runs";
import * as Replay from "@tp/core/trading/replay";
import { holdingsOf, sleeveDifferences } from "@tp/core/trading/accounts";
import { dayCloseOf, marketBarCloseOf } from "@tp/core/trading/rollover";
import { PaperAccounts } from "@tp/core/paper/accounts";
import { log } from "@tp/core/log";
import { AuditTrail } from "@tp/core/audit";
import type { KillSwitchTrip } from "@tp/core/kill-switch";
import { tripSwitch } from "@tp/core/trading/kill-switch-actions";
import { inParallel } from "@tp/core/in-parallel";
import { batchedChannels, FEED_CONCURRENCY, feedKey, inFeedOrder } from "./feeding";
import { LEASE_MS, planLeases } from "./leases";
import { RunCache } from "./run-cache";

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
   * and at most a third of `leaseMs`): a step a second beats every step; steps that come faster
   * (a worker catching up, the benches) do not each write them.
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

interface Driven {
  session: StoredSession;
  feeds: string[];
  /** Where its run's orders fill (fixed when the run is made): only `broker` sessions are routed. */
  venue: "broker" | "bars";
}

/** Batches of ten commands taken per step at most (the rest wait for the next step, so bars are never held up long). */
const COMMAND_ROUNDS = 10;

/**
 * The heartbeats' cadence at most (wall ms): half the production step's (`tickMs`, a second), so
 * that steps a second apart, give or take their timers' jitter, each beat.
 */
export const BEAT_MS = 500;

/**
 * How often a live session's orders at LongPort are read when no push said one changed (ms of the
 * wall clock): two trade calls for every session on the account, within LongPort's 30 per 30 s
 * (docs/live-trading.md "Trade calls").
 */
export const LIVE_POLL_MS = 10_000;

/** The longest a session's sends wait after failures in a row that decided nothing (ms of the wall clock). */
export const SEND_BACKOFF_MAX_MS = 30_000;

/** How long a session's sends wait after its `failures`-th failure in a row: 1 s, doubling, at most `SEND_BACKOFF_MAX_MS`, at least what the broker asked. */
export const sendBackoffMs = (failures: number, askedMs: number): number => Math.max(askedMs, Math.min(SEND_BACKOFF_MAX_MS, 1000 * 2 ** (failures - 1)));

/** Closed bars of each feed the quote lease's holder publishes each step (the other tasks take what they have not seen). */
const RELAYED_BARS = 3;

/** How often the quote lease's holder answers the relay between steps (ms). */
export const RELAY_SERVE_MS = 100;

/** A closed bar as the candlestick pushed for it. */
const candlestickOf = ({ bar }: ClosedBar): Candlestick => ({
  timestamp: new Date(bar.timestamp).toISOString(),
  open: String(bar.open),
  high: String(bar.high),
  low: String(bar.low),
  close: String(bar.close),
  volume: bar.volume,
  turnover: "0",
  trade_session: "Intraday",
});

/** The broker account a session trades (its orders share that account's reads and rate limit): the owner's at the provider, a simulated account, or the session's own paper account. */
const accountOf = (session: StoredSession): string =>
  session.trading_mode === "live" ? `live:${session.user_id}` : session.funded_by !== undefined ? `paper:${session.funded_by}` : `session:${session.id}`;

/**
 * How often a broker-venue session's run is read when nothing said it has orders out (ms of the
 * wall clock): the net under a change no command announced to this task.
 */
export const VENUE_RECHECK_MS = 30_000;

/** How often a live account is reconciled with its sessions' books (ms of the wall clock; also when the worker takes them up). */
export const RECONCILE_MS = 180_000;

/**
 * Failures in a row of one order's cancel at its broker after which it is reported: a critical
 * `CANCEL_FAILED` alert in the session's log and `cancel_failed` on the kill switch that asked for
 * it (docs/security.md "Kill switch"). The cancel is still retried, backing off to `SEND_BACKOFF_MAX_MS`.
 */
export const CANCEL_REPORT_AFTER = 3;

/** Closed bars kept per feed, for the sessions a task takes over to catch up on (docs/session-worker.md "More than one worker"). */
export const CATCH_UP_BARS = 120;

/**
 * How long after its close by the calendar a bar the provider has not confirmed is closed anyway:
 * LongPort confirms a candlestick only when a trade falls in a later one, so the day's last bar and
 * the daily bar would wait for the next open (docs/live-trading.md "Bars"). The margin lets the
 * last second's trades arrive.
 */
export const CLOSE_GRACE_MS = 2_000;

/** The simulated market pushes only when told the time has moved; LongPort pushes by itself. */
const advancing = (marketData: MarketData): marketData is MarketData & { advance(): void | Promise<void> } =>
  typeof (marketData as { advance?: unknown }).advance === "function";

/**
 * The session worker (ENGINE.md §5): holds the provider's candlestick subscriptions of every
 * running simulation and live session, turns confirmed pushes into closed bars, stores them in
 * the candle store, feeds them to each session's run (snapshot and events saved together) and
 * pushes the events to the session's WebSocket topic. Crash-only: it keeps nothing that is not
 * in the table, and on start it picks up every running session from its run's snapshot.
 * Paused sessions stay subscribed but are not fed.
 */
export class SessionWorker {
  private readonly driven = new Map<string, Driven>();
  /** The last sleeve difference alerted per session, so a lasting one is alerted once. */
  private readonly mismatches = new Map<string, string>();
  private readonly subscribed = new Set<string>();
  /** Close time of the last bar closed per feed: the provider may push a confirmed bar again. */
  private readonly lastClose = new Map<string, number>();
  /** The bar forming in each feed, as last pushed: closed by the calendar once its close has passed (`closeByCalendar`). */
  private readonly forming = new Map<string, { closed: ClosedBar; event: PushCandlestickEvent }>();
  /** The close of the day of each feed's latest bar (`marketBarCloseOf`'s memo). */
  private readonly dayCloses = new Map<string, { day: number; close: number }>();
  private pendingBars: ClosedBar[] = [];
  /** The last `CATCH_UP_BARS` closed bars of each subscribed feed, and when this task received the step's oldest pending one (wall ms). */
  private readonly recent = new Map<string, ClosedBar[]>();
  private pendingSince: number | null = null;
  /** Sessions taken up whose run existed: their first feed is every recent bar after the run's cursor. */
  private readonly catchingUp = new Set<string>();
  private readonly taskId: string;
  private readonly wall: () => number;
  /** The runs this task fed, as it saved them (docs/session-worker.md "Each step"); its feeds read them through `feedDeps`. */
  private readonly runCache: RunCache;
  private readonly feedDeps: Services["trading"]["sessions"];
  /** The channels' deps with a step's update-feed appends and connection look-ups batched (`batchedFeed`, `batchedConnections`). */
  private readonly channelDeps: Services["trading"]["channels"];
  /** The other live tasks' beats as last read (this task's heartbeat item shows them all combined with its own). */
  private others: WorkerBeat[] = [];
  /** Whether this task plays the replays (set at every refresh). */
  private playsReplays = true;
  private timers: NodeJS.Timeout[] = [];
  private busy: Promise<void> | null = null;
  private readonly heartbeat: WorkerBeat;
  private readonly store: DynamoWorkerStore;
  private readonly leases: DynamoLeaseStore;
  private stopped = false;
  /** When channel metrics were last pushed, and the run version they showed per session (only saves pushes; nothing here is state). */
  private metricsAt = 0;
  /** When (wall ms) the step last wrote the heartbeats. */
  private beatAt = Number.NEGATIVE_INFINITY;
  private readonly metricsVersion = new Map<string, number>();
  /** The figures of each session's last `channel_metrics` push (without their instant). */
  private readonly metricsFigures = new Map<string, string>();
  /** The market data the worker is subscribed on (`follow`). */
  private market: MarketData | null = null;
  /** Whether this task holds the quote lease (`holdQuoteLease`). */
  private holdsQuotes = false;
  /** Venue order ids a broker pushed as changed since their session's orders were last read. */
  private readonly orderPushes = new Set<string>();
  /** When (wall ms) each broker account's orders were last read. */
  private readonly polledAt = new Map<OrderGateway, number>();
  /** The gateways whose order-changed pushes this task takes. */
  private readonly listening = new Set<OrderGateway>();
  /** Wall ms before which a session's orders are not sent again (an unknown outcome, a throttled venue). */
  private readonly sendAfter = new Map<string, { until: number; failures: number }>();
  /** When (wall ms) each live account was last reconciled with its sessions' books; none: at the next step. */
  private readonly reconciledAt = new Map<OrderGateway, number>();
  /** The last account mismatch alerted per session, so a lasting one is alerted once. */
  private readonly venueMismatches = new Map<string, string>();
  /** Broker-venue sessions whose run had orders pending when last read; those an input command changed since the last step; when (wall ms) each run was last read for its venue. */
  private readonly ordersOut = new Set<string>();
  private commanded = new Set<string>();
  private readonly venueReadAt = new Map<string, number>();
  /** Orders whose cancel failed at their broker lately: failures in a row, when (wall ms) to send it again, whether it was reported. */
  private readonly cancelFailures = new Map<string, { failures: number; until: number; reported: boolean }>();
  /** The tripped kill switches as last read (kept when a read fails: a table hiccup does not lift a halt). */
  private trips: readonly KillSwitchTrip[] = [];

  constructor(
    private readonly services: Services,
    private readonly options: SessionWorkerOptions,
  ) {
    this.taskId = options.taskId ?? randomUUID();
    this.wall = options.wall ?? Date.now;
    this.store = new DynamoWorkerStore(services.db);
    this.leases = new DynamoLeaseStore(services.db, this.wall);
    this.runCache = new RunCache(services.trading.sessions.runs);
    this.feedDeps = { ...services.trading.sessions, runs: this.runCache };
    this.channelDeps = batchedChannels(services.trading.channels);
    // The heartbeat is on the market's clock, as the status endpoints that read it are.
    const now = services.trading.sessions.now();
    this.heartbeat = {
      at: now,
      started_at: now,
      sessions: 0,
      feeds: [],
      bars: 0,
      ...(options.clockSpeed && options.clockSpeed !== 1 ? { speed: options.clockSpeed } : {}),
    };
  }

  /** Recovers running sessions, subscribes their feeds, and starts the timers. */
  async start(): Promise<void> {
    await this.refresh();
    await this.beat();
    const every = (ms: number, work: () => Promise<void>) => {
      const timer = setInterval(() => void this.exclusive(work), ms);
      timer.unref();
      this.timers.push(timer);
    };
    every(this.options.tickMs ?? 1_000, () => this.tick());
    every(this.options.refreshMs ?? 2_000, () => this.refresh());
    // The relay's answers do not wait for a step: they touch nothing of the steps' state.
    if (this.services.config.quoteConnection === "lease") {
      const serving = setInterval(() => void this.serveQuotes(), RELAY_SERVE_MS);
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
    this.market?.setOnCandlestick(null);
    for (const gateway of this.listening) gateway.setOnOrderChanged?.(null);
    this.listening.clear();
    if (this.holdsQuotes) await this.leases.releaseQuoteLease(this.taskId);
    const held = [...this.driven.keys()];
    this.driven.clear();
    await inParallel(held, FEED_CONCURRENCY, async (id) => void (await this.leases.release(id, this.taskId)));
    this.heartbeat.sessions = 0;
    await this.leases.beat(this.taskId, this.heartbeat, this.wall() - 1);
    if (this.others.length > 0) await this.store.beat(combineBeats(this.others)!);
  }

  /** One step: take the API's commands, let the simulated market push what the clock passed, then feed and save. */
  async tick(): Promise<void> {
    const started = this.wall();
    await this.takeCommands();
    if (this.market && advancing(this.market)) await this.market.advance();
    await this.serveQuotes();
    const fed = await this.flush();
    await this.routeOrders();
    // The replays' look-up, the metrics and the heartbeat do not depend on each other: their round trips overlap.
    await Promise.all([this.playReplays(), this.pushMetrics(), this.beat()]);
    this.options.onStep?.({ sessions: this.driven.size, ...fed, stepMs: this.wall() - started });
  }

  /**
   * The API's session commands, in the order each session's were sent (docs/session-worker.md):
   * a lifecycle change reads the live sessions at once; an input's events (a manual order, a
   * cancel, a replacement, a reset, a risk change, already on the run) are pushed to the
   * session's socket. Deleted once handled; one that fails is received again later.
   */
  async takeCommands(): Promise<void> {
    const source = this.services.sessionCommands;
    let lifecycle = false;
    for (let round = 0; round < COMMAND_ROUNDS; round++) {
      const received = await source.receive(10);
      if (received.length === 0) break;
      for (const { receipt, command } of received) {
        if (command.kind === "lifecycle") lifecycle = true;
        else {
          this.commanded.add(command.session_id);
          const session = this.driven.get(command.session_id)?.session ?? (await this.services.trading.sessions.sessions.get(command.session_id));
          if (session) await this.publish(session, command.events);
        }
        await source.delete(receipt);
      }
    }
    // One refresh for every lifecycle change taken in this step.
    if (lifecycle) await this.refresh();
  }

  /**
   * Sessions whose orders go to their broker (`venue: broker`, docs/session-worker.md): their
   * pending orders are sent, cancels forwarded, and what the broker did read back into the run
   * (fills by trade id, ends), every step; repeatable, so a crash anywhere sends nothing twice.
   * A session's run is read from the table only when it may have something to exchange
   * (`venueReadDue`), the runs together; each account's sessions are exchanged one after another
   * (they share its reads and its rate limit), the accounts side by side.
   */
  async routeOrders(): Promise<void> {
    const deps = this.services.trading.sessions;
    const wall = this.wall();
    const halted = await this.halted();
    const commanded = this.commanded;
    this.commanded = new Set();
    const due: { id: string; session: StoredSession; gateway: OrderGateway | null; reconcile: boolean }[] = [];
    for (const [id, driven] of this.driven) {
      if (driven.venue !== "broker") continue;
      const gateway = driven.session.trading_mode === "live" ? await this.gatewayOf(driven.session) : null;
      const reconcile = gateway !== null && wall - (this.reconciledAt.get(gateway) ?? Number.NEGATIVE_INFINITY) >= RECONCILE_MS;
      if (reconcile || this.venueReadDue(id, driven.session, commanded.has(id), wall)) due.push({ id, session: driven.session, gateway, reconcile });
    }
    const runs = new Map<string, StoredRun | undefined>();
    await inParallel(due, FEED_CONCURRENCY, async ({ id }) => void runs.set(id, await deps.runs.get(id)));
    // The step's reads of each account, shared by the sessions trading it (`VenueReads`).
    const reads = new Map<OrderGateway, VenueReads>();
    // The live accounts due for reconciliation, and the books of their sessions as this step left them.
    const reconciling = new Map<OrderGateway, { session: StoredSession; run: StoredRun }[]>();
    const accounts = new Map<string, typeof due>();
    for (const entry of due) accounts.set(accountOf(entry.session), [...(accounts.get(accountOf(entry.session)) ?? []), entry]);
    await inParallel([...accounts.values()], accounts.size, async (sessions) => {
      for (const { id, session, gateway, reconcile } of sessions) {
        const stopping = session.status === "stopped";
        let run = runs.get(id);
        this.venueReadAt.set(id, wall);
        // A stopped session's orders, and those of a session a kill switch halts (an order another instance took before it knew), are cancelled, never sent.
        const halting = !stopping && halted(session.user_id);
        if ((stopping || halting) && run?.snapshot?.pending.some((order) => !order.cancel_requested))
          run = await this.cancelAll(session, stopping ? "session stopped" : "kill switch");
        if (reconcile && run?.snapshot) reconciling.set(gateway!, [...(reconciling.get(gateway!) ?? []), { session, run }]);
        this.noteOrdersOut(id, run);
        // A session with nothing pending has nothing to exchange, unless reconciliation reads its ended orders' late fills.
        if (!run?.snapshot || (run.snapshot.pending.length === 0 && !(reconcile && (run.snapshot.ended?.length ?? 0) > 0))) {
          if (stopping) await this.settle(session);
          continue;
        }
        if (this.wall() < (this.sendAfter.get(id)?.until ?? 0)) continue;
        const venue = gateway ?? (await this.gatewayOf(session));
        if (!reads.has(venue)) reads.set(venue, new VenueReads(venue));
        const done = await this.exchangeWithVenue(session, run, reads.get(venue)!, reconcile);
        if (done && reconcile)
          reconciling.set(gateway!, [...reconciling.get(gateway!)!.filter((entry) => entry.session.id !== id), { session, run: done.run }]);
        if (done === null) continue;
        this.noteOrdersOut(id, done.run);
        if (done && session.funded_by !== undefined) await this.reconcile(session, session.funded_by, done);
        if (stopping && done?.run.snapshot?.pending.length === 0) await this.settle(session);
      }
    });
    for (const [gateway, sessions] of reconciling) {
      if (!reads.has(gateway)) reads.set(gateway, new VenueReads(gateway));
      await this.reconcileVenue(reads.get(gateway)!, sessions);
    }
  }

  /**
   * Whether a broker-venue session's run is read this step: it is stopping, an API command changed
   * it, it had orders pending when last read or when this task's feed last saved it (a strategy's
   * order), or `VENUE_RECHECK_MS` passed since it was last read (a change no command announced).
   * A session with nothing out costs no read (docs/session-worker.md "Orders at the broker").
   */
  private venueReadDue(id: string, session: StoredSession, commanded: boolean, wall: number): boolean {
    if (session.status === "stopped" || commanded || this.ordersOut.has(id)) return true;
    if ((this.runCache.peek(id)?.snapshot?.pending.length ?? 0) > 0) return true;
    return wall - (this.venueReadAt.get(id) ?? Number.NEGATIVE_INFINITY) >= VENUE_RECHECK_MS;
  }

  /** Remembers whether the run, as just read or saved, has orders pending at (or on their way to) its venue. */
  private noteOrdersOut(id: string, run: StoredRun | undefined): void {
    if ((run?.snapshot?.pending.length ?? 0) > 0) this.ordersOut.add(id);
    else this.ordersOut.delete(id);
  }

  /**
   * Compares a live account's working orders and holdings with the books of the sessions trading
   * it (docs/live-trading.md "Reconciliation"), when the worker takes them up and every
   * `RECONCILE_MS` after: an order no session placed, or a holding below what the books hold,
   * is a critical `VENUE_MISMATCH` alert on each of those sessions (once while it lasts) and an
   * error log line with both figures. (Their missed fills the exchange before it has booked.)
   */
  private async reconcileVenue(reads: VenueReads, sessions: { session: StoredSession; run: StoredRun }[]): Promise<void> {
    // The account's rate limit too busy: it is still due at the next step.
    if ((reads.gateway.backlogMs?.() ?? 0) > VENUE_WAIT_MS) return;
    let mismatch: VenueMismatch;
    try {
      const [orders, holdings] = await Promise.all([reads.todayOrders(), reads.gateway.stockPositions()]);
      const books = sessions.map(({ session, run }) => {
        const positions: Record<string, number> = {};
        for (const position of engineOf(run).view(null).positions) positions[position.symbol] = (positions[position.symbol] ?? 0) + position.quantity;
        return { session_id: session.id, orders: [...run.snapshot!.pending, ...(run.snapshot!.ended ?? [])], positions };
      });
      mismatch = venueMismatches(orders, holdings, books);
    } catch (error) {
      log.error("Reconciliation with the broker failed", { source: "session-worker", error: String(error) });
      return;
    }
    this.reconciledAt.set(reads.gateway, this.wall());
    const text = mismatchText(mismatch);
    const deps = this.services.trading.sessions;
    for (const { session } of sessions) {
      if (text === "") {
        this.venueMismatches.delete(session.id);
        continue;
      }
      if (this.venueMismatches.get(session.id) === text) continue;
      this.venueMismatches.set(session.id, text);
      log.error("The broker account and the sessions' books disagree", { source: "session-worker", session_id: session.id, ...mismatch });
      const done = await updateRun(deps, session.id, (stored) => {
        const engine = engineOf(stored);
        engine.raiseAlert("venue", "VENUE_MISMATCH", `the broker account and the sessions' books disagree: ${text}`, { ...mismatch }, deps.now());
        return { engine, value: null };
      });
      if (done) await this.publish(session, done.events, done.engine);
    }
  }

  /**
   * Sends, cancels and reads back a session's orders at its venue; null when the venue could not
   * be reached or had nothing new. A live session's orders at LongPort are read when a push said
   * one changed, else every `LIVE_POLL_MS`; a simulation's at the paper broker (the service's own
   * table) every step (docs/live-trading.md "Trade calls").
   */
  private async exchangeWithVenue(session: StoredSession, run: StoredRun, reads: VenueReads, reconciling = false) {
    const deps = this.services.trading.sessions;
    const gateway = reads.gateway;
    const snapshot = run.snapshot!;
    this.listenTo(gateway);
    const wall = this.wall();
    const atVenue = snapshot.pending.flatMap((order) => (order.venue_order_id === undefined ? [] : [order.venue_order_id]));
    // The periodic read is due for every session on the account in this step, or for none.
    reads.pollDue ??= wall - (this.polledAt.get(gateway) ?? Number.NEGATIVE_INFINITY) >= LIVE_POLL_MS;
    const read = reconciling || session.trading_mode !== "live" || atVenue.some((venueId) => this.orderPushes.has(venueId)) || reads.pollDue;
    let reports: VenueReport[];
    try {
      // A session trading its simulated account books the fees the paper broker charged it (docs/accounts.md "Fees and the cash of a fill").
      // Once the engine's day has closed, orders not at the broker yet wait for the rollover, which expires them (docs/session-worker.md "Day rollover").
      const marketClosed = snapshot.day >= 0 && deps.now() >= dayCloseOf(run, snapshot.day);
      const exchanged = await exchange(reads, snapshot.pending, deps.now(), {
        read,
        ended: snapshot.ended,
        bookVenueFees: session.funded_by !== undefined,
        marketClosed,
        cancelDue: (orderId) => this.wall() >= (this.cancelFailures.get(orderId)?.until ?? 0),
      });
      reports = exchanged.reports;
      for (const report of reports) if (report.ended) this.cancelFailures.delete(report.order_id);
      if (exchanged.cancels) await this.noteCancels(session, snapshot.pending, exchanged.cancels, wall);
      // A send whose outcome is unknown, or a throttled venue: this session's sends wait (its orders are looked up by their remark first).
      if (exchanged.retryAfterMs !== undefined) this.backOff(session.id, wall, exchanged.retryAfterMs);
      else this.sendAfter.delete(session.id);
      // A read the account's rate limit put off (`deferred`) is still due at the next step.
      if (read && !exchanged.deferred) {
        this.polledAt.set(gateway, wall);
        for (const venueId of atVenue) this.orderPushes.delete(venueId);
      }
    } catch (error) {
      // The broker is unreachable or busy: nothing was booked; the next step asks again, a second on.
      this.backOff(session.id, wall, 0);
      log.error("Broker exchange failed", { source: "session-worker", session_id: session.id, error: String(error) });
      return null;
    }
    if (reports.length === 0) return null;
    const done = await updateRun(deps, session.id, (current) => {
      const engine = engineOf(current);
      applyReports(engine, reports);
      return { engine, value: null };
    });
    if (done) await this.publish(session, done.events, done.engine);
    return done;
  }

  /**
   * After a session's fills are booked, its sleeve in the simulated account and the engine's
   * figures must agree to the cent and the share (docs/accounts.md "Reconciliation"). The account
   * may have filled more since the engine read it, so a difference first reads the venue again;
   * one that stays is a critical alert on the session and an error line with both figures.
   */
  private async reconcile(session: StoredSession, account: string, booked: { run: StoredRun; engine: TradingEngine }): Promise<void> {
    const paper = this.services.paperBroker.deps;
    let current = booked;
    for (let attempt = 0; ; attempt++) {
      const sleeve = await PaperAccounts.sleeve(paper, account, session.id);
      if (!sleeve) return;
      const differences = sleeveDifferences(holdingsOf(current.engine.view(null)), sleeve);
      if (differences.length === 0) {
        this.mismatches.delete(session.id);
        return;
      }
      const again =
        attempt === 0 && current.run.snapshot && current.run.snapshot.pending.length > 0
          ? await this.exchangeWithVenue(session, current.run, new VenueReads(await this.gatewayOf(session)))
          : null;
      if (again) {
        current = again;
        continue;
      }
      const text = differences.map((d) => `${d.what}: session ${d.session}, account ${d.account}`).join("; ");
      if (this.mismatches.get(session.id) === text) return;
      this.mismatches.set(session.id, text);
      log.error("Session sleeve and simulated account disagree", { source: "session-worker", session_id: session.id, account_id: account, differences });
      const deps = this.services.trading.sessions;
      const done = await updateRun(deps, session.id, (stored) => {
        const engine = engineOf(stored);
        engine.raiseAlert(
          "system",
          "SLEEVE_MISMATCH",
          `the session's books and its sleeve in the simulated account disagree: ${text}`,
          { differences },
          deps.now(),
        );
        return { engine, value: null };
      });
      if (done) await this.publish(session, done.events, done.engine);
      return;
    }
  }

  /** A stopped (or halted) session's orders still at its broker are asked to cancel (`order_cancel_requested`); the run as saved. */
  private async cancelAll(session: StoredSession, reason: string): Promise<StoredRun | undefined> {
    const deps = this.services.trading.sessions;
    const done = await updateRun(deps, session.id, (run) => {
      const engine = engineOf(run);
      for (const order of run.snapshot?.pending ?? []) if (!order.cancel_requested) engine.cancel(order.order_id, deps.now(), reason);
      return { engine, value: null };
    });
    if (done) await this.publish(session, done.events, done.engine);
    return done?.run ?? (await deps.runs.get(session.id));
  }

  /** Who a kill switch halts now, from the switches as the guard last read them (at most every 2 s: no read per bar or session). */
  private async halted(): Promise<(userId: string) => boolean> {
    try {
      this.trips = await this.services.killSwitch.guard.tripped();
    } catch (error) {
      log.error("Kill switches not read; the last known apply", { source: "session-worker", error: String(error) });
    }
    const stage = this.trips.some((trip) => trip.scope === "stage");
    const users = new Set(this.trips.map((trip) => trip.user_id));
    return (userId) => stage || users.has(userId);
  }

  /**
   * Counts each cancel the broker failed (busy, throttled, unreachable, its own failure): it is sent
   * again after a backoff (1 s doubling, at most `SEND_BACKOFF_MAX_MS`); at the `CANCEL_REPORT_AFTER`th
   * failure in a row it is reported once: a critical `CANCEL_FAILED` alert in the session's log, and
   * `cancel_failed` on the kill switch halting the owner, if one is.
   */
  private async noteCancels(
    session: StoredSession,
    pending: readonly { order_id: string; symbol: string; side: string }[],
    cancels: { order_id: string; venue_order_id: string; error: string | null }[],
    wall: number,
  ) {
    const due: { order_id: string; venue_order_id: string; error: string; failures: number }[] = [];
    for (const cancel of cancels) {
      if (cancel.error === null) {
        this.cancelFailures.delete(cancel.order_id);
        continue;
      }
      const before = this.cancelFailures.get(cancel.order_id);
      const failures = (before?.failures ?? 0) + 1;
      const report = !before?.reported && failures >= CANCEL_REPORT_AFTER;
      this.cancelFailures.set(cancel.order_id, { failures, until: wall + sendBackoffMs(failures, 0), reported: before?.reported === true || report });
      log.warn("The broker failed a cancel", { source: "session-worker", session_id: session.id, order_id: cancel.order_id, failures, error: cancel.error });
      if (report) due.push({ ...cancel, error: cancel.error, failures });
    }
    if (due.length === 0) return;
    const deps = this.services.trading.sessions;
    const done = await updateRun(deps, session.id, (run) => {
      const engine = engineOf(run);
      for (const failed of due)
        engine.raiseAlert(
          "venue",
          "CANCEL_FAILED",
          `the broker failed to cancel order ${failed.order_id} ${failed.failures} times in a row (${failed.error}); it is asked again, at most every ${SEND_BACKOFF_MAX_MS / 1000} s`,
          { order_id: failed.order_id, venue_order_id: failed.venue_order_id, error: failed.error, attempts: failed.failures },
          deps.now(),
        );
      return { engine, value: null };
    });
    if (done) await this.publish(session, done.events, done.engine);
    const trip = await this.services.killSwitch.guard.halting(session.user_id);
    if (!trip) return;
    for (const failed of due) {
      const order = pending.find((candidate) => candidate.order_id === failed.order_id);
      await this.services.killSwitch.store.cancelFailed(trip.scope, trip.user_id, {
        session_id: session.id,
        order_id: failed.order_id,
        symbol: order?.symbol ?? "",
        side: order?.side ?? "",
        status: "pending",
        cancel_requested: true,
        cancel_failed: { error: failed.error, attempts: failed.failures, at: new Date(deps.now()).toISOString() },
      });
    }
  }

  /**
   * A session whose risk configuration says `trip_kill_switch` trips its owner's kill switch when its
   * `max_daily_loss` is breached (its own or a channel's: the engine's `MAX_DAILY_LOSS_BREACHED`),
   * unless one halts the owner already; the trip is recorded in the audit trail as the risk monitor's.
   */
  private async tripOnDailyLoss(session: StoredSession, events: readonly EngineEvent[]): Promise<void> {
    const breach = events.find(
      (event) => event.type === "risk_event" && event.data.kind === "limit_breached" && event.data.reason === "MAX_DAILY_LOSS_BREACHED",
    );
    if (!breach) return;
    // Breaches are rare: the session as stored now (its risk configuration may have changed since this task read it).
    const current = (await this.services.trading.sessions.sessions.get(session.id)) ?? session;
    if (current.config.risk_config?.trip_kill_switch !== true || (await this.services.killSwitch.guard.halting(session.user_id))) return;
    const values = (breach.data.values ?? {}) as Record<string, unknown>;
    const reason = `MAX_DAILY_LOSS_BREACHED in session ${session.id}${breach.channel_id ? ` (channel ${breach.channel_id})` : ""}: daily loss ${values.daily_loss} of max_daily_loss ${values.max_daily_loss}`;
    const deps = {
      ...this.services.trading.sessions,
      killSwitch: this.services.killSwitch.guard,
      switches: this.services.killSwitch.store,
      outsideOrders: this.services.outsideOrders,
    };
    let status = 200;
    try {
      await tripSwitch(deps, "user", session.user_id, { tripped_by: `risk:${session.id}`, key_id: null, reason });
      log.error("A session's daily loss tripped its owner's kill switch", {
        source: "session-worker",
        session_id: session.id,
        user_id: session.user_id,
        reason,
      });
    } catch (error) {
      status = 500;
      log.error("The kill switch was not tripped", { source: "session-worker", session_id: session.id, error: String(error) });
    }
    const audit = this.services.audit;
    const at = audit.now();
    await AuditTrail.record(audit, {
      id: AuditTrail.newId(at, randomUUID().replace(/-/g, "")),
      at: new Date(at).toISOString(),
      user_id: session.user_id,
      key_id: null,
      kind: "kill-switch",
      method: "RISK",
      route: "risk:max_daily_loss",
      path: `/api/v1/trading/sessions/${session.id}`,
      target_ids: { session_id: session.id },
      session_id: session.id,
      summary: { scope: "user", trigger: "max_daily_loss", reason },
      request_id: "",
      status,
      outcome: status === 200 ? "succeeded" : "failed",
      error_code: status === 200 ? null : "INTERNAL_ERROR",
    }).catch((error) => log.error("Audit entry not written", { source: "session-worker", session_id: session.id, error: String(error) }));
  }

  /** A stopped session with nothing left at its broker leaves the worker's list. */
  private async settle(session: StoredSession): Promise<void> {
    const sessions = this.services.trading.sessions.sessions;
    for (let attempt = 0; attempt < 5; attempt++) {
      const current = await sessions.get(session.id);
      if (!current?.orders_at_broker || current.status !== "stopped") return;
      // Its capital goes back to the account first: a crash between the two leaves it listed, and the next step releases again.
      await this.services.trading.sessions.accounts?.release(current);
      if (await sessions.replace({ ...current, orders_at_broker: undefined, version: current.version + 1 }, current.version)) {
        this.driven.delete(session.id);
        return;
      }
    }
  }

  /**
   * A session's sends wait after a failure that decided nothing: a second, doubling with each
   * failure in a row up to `SEND_BACKOFF_MAX_MS`, and at least what the broker asked (`retry_after`).
   */
  private backOff(sessionId: string, wall: number, askedMs: number): void {
    const failures = (this.sendAfter.get(sessionId)?.failures ?? 0) + 1;
    this.sendAfter.set(sessionId, { until: wall + sendBackoffMs(failures, askedMs), failures });
  }

  /** Takes the order-changed pushes of a gateway that sends them (LongPort), once: the orders they name are read at the next step. */
  private listenTo(gateway: OrderGateway): void {
    if (!gateway.setOnOrderChanged || this.listening.has(gateway)) return;
    this.listening.add(gateway);
    gateway.setOnOrderChanged((event) => this.orderPushes.add(event.order_id));
  }

  /**
   * A simulation session's venue: its sleeve of its owner's simulated account (docs/accounts.md);
   * sessions started before simulations drew from that account (no `funded_by`) keep their own
   * paper account `session-<id>`. A live session's: the owner's account at the selected provider.
   */
  private gatewayOf(session: StoredSession): Promise<OrderGateway> {
    if (session.trading_mode === "live") return this.services.providers.orderGateway(session.user_id);
    if (session.funded_by !== undefined) return Promise.resolve(this.services.paperBroker(session.funded_by, session.id));
    return Promise.resolve(this.services.paperBroker(`session-${session.id}`));
  }

  /**
   * Reads the running sessions and the leases again (docs/session-worker.md "More than one
   * worker"): this task keeps its share of the sessions, gives up what is above it, and takes
   * sessions without a live owner; a session taken is attached (its run created or restored, and
   * caught up on the bars it missed), one given up or ended is let go.
   */
  async refresh(): Promise<void> {
    const deps = this.services.trading.sessions;
    await this.beat();
    const [live, leases, beats] = await Promise.all([deps.sessions.listLive(), this.leases.leases(), this.leases.liveBeats()]);
    const tasks = new Set(beats.map((beat) => beat.task_id));
    this.others = beats.filter((beat) => beat.task_id !== this.taskId).map(({ task_id: _task, alive_until: _until, ...beat }) => beat);
    await this.holdQuoteLease(tasks);
    const plan = planLeases(
      this.taskId,
      live.map((session) => session.id),
      leases,
      tasks,
    );
    for (const id of plan.release) {
      this.letGo(id);
      await this.leases.release(id, this.taskId);
    }
    const held = new Set(plan.keep);
    await inParallel(plan.take, FEED_CONCURRENCY, async ({ session_id, from }) => {
      if (await this.leases.take(session_id, this.taskId, from)) held.add(session_id);
    });
    await this.leases.forget(plan.forget);
    this.playsReplays = [...tasks].every((task) => task >= this.taskId);
    for (const session of live) {
      if (!held.has(session.id)) continue;
      let venue = this.driven.get(session.id)?.venue;
      if (venue === undefined) {
        const { run, created } = await LiveRuns.attach(deps, session);
        venue = run.setup.venue ?? "bars";
        // A run made here starts with its warm-up's log lines: the session's socket sees them first.
        if (created) await this.publish(session, created.events, created.engine);
        // A run another task (or this one before a restart) fed catches up on the bars closed since.
        else if (session.status === "running") this.catchingUp.add(session.id);
      }
      // A stopped session listed while its orders at the broker are cancelled reads no feed.
      const feeds = isActiveOnWorker(session) ? liveFeedsOf(session).map((f) => feedKey(f.symbol, f.timeframe)) : [];
      this.driven.set(session.id, { session, feeds, venue });
    }
    for (const id of [...this.driven.keys()]) if (!held.has(id)) this.letGo(id);
    await this.resubscribe();
  }

  /** Stops driving a session (it ended, or another task takes it). */
  private letGo(id: string): void {
    this.driven.delete(id);
    this.ordersOut.delete(id);
    this.venueReadAt.delete(id);
    this.catchingUp.delete(id);
    this.metricsFigures.delete(id);
    this.runCache.forget(id);
  }

  /**
   * The market data whose pushes drive the sessions: the fixed one, or the selected provider's
   * now. When the provider's adapters were rebuilt (another provider, new credentials or token),
   * the worker moves its handler and its subscriptions to the new ones; the bars kept for catching
   * up, and the close of the last bar of each feed, stay.
   */
  private async follow(): Promise<MarketData> {
    const next = this.options.marketData ?? (await this.services.marketData());
    const previous = this.market;
    if (next === previous) return next;
    if (previous) {
      previous.setOnCandlestick(null);
      // The old adapters may be unreachable already (that can be why they were replaced): what they still hold is dropped with them.
      for (const key of this.subscribed) {
        const [symbol, period] = key.split("|") as [string, Timeframe];
        await previous.unsubscribeCandlesticks(symbol, period).catch(() => undefined);
      }
      log.info("The session worker follows the provider's new market data", { source: "session-worker", feeds: [...this.subscribed] });
    }
    this.subscribed.clear();
    this.forming.clear();
    next.setOnCandlestick((event) => this.onCandlestick(event));
    this.market = next;
    return next;
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
    if (this.services.config.quoteConnection !== "lease") return;
    const held = await this.leases.holdQuoteLease(this.taskId, tasks);
    if (this.holdsQuotes && !held) {
      log.error("The session worker lost the quote lease it held", { source: "session-worker", task_id: this.taskId });
      this.options.onQuoteLeaseLost?.();
    }
    this.holdsQuotes = held;
    this.services.providers.setQuoteLease(held);
  }

  /** Whether this task serves the quote relay: it holds the quote lease and the selected provider is LongPort. */
  private async relaying(): Promise<boolean> {
    return this.holdsQuotes && (await this.services.providers.active()).type === "longport";
  }

  /** The quote lease's holder answers what other processes asked of the quote connection (every step, and every `RELAY_SERVE_MS`). */
  private async serveQuotes(): Promise<void> {
    if (!this.market || !(await this.relaying())) return;
    await serveQuoteRelay(this.services.providers.quoteRelay, this.market).catch((error) =>
      log.error("Serving the quote relay failed", { source: "session-worker", error: String(error) }),
    );
  }

  /** The quote lease's holder publishes the newest bars it closed of every feed, for the other tasks' sessions. */
  private async publishBars(): Promise<void> {
    if (!(await this.relaying())) return;
    const pushes: PushCandlestickEvent[] = [];
    for (const [key, bars] of this.recent) {
      const [symbol, period] = key.split("|") as [string, Timeframe];
      for (const closed of bars.slice(-RELAYED_BARS)) pushes.push({ symbol, data: { period, is_confirmed: true, candlestick: candlestickOf(closed) } });
    }
    await this.services.providers.quoteRelay.publishBars({ at: this.wall(), pushes });
  }

  /** Subscribes feeds some session needs and unsubscribes those none needs: every task's, where this task holds the quote lease. */
  private async resubscribe(): Promise<void> {
    const market = await this.follow();
    const wanted = new Set([...this.driven.values()].flatMap((d) => d.feeds));
    if (await this.relaying()) for (const beat of this.others) for (const feed of beat.feeds) wanted.add(feed);
    for (const key of wanted) {
      if (this.subscribed.has(key)) continue;
      const [symbol, period] = key.split("|") as [string, Timeframe];
      const latest = await market.subscribeCandlesticks(symbol, period, "Intraday");
      this.subscribed.add(key);
      this.remember(key, symbol, period, latest);
    }
    for (const key of [...this.subscribed]) {
      if (wanted.has(key)) continue;
      const [symbol, period] = key.split("|") as [string, Timeframe];
      await market.unsubscribeCandlesticks(symbol, period);
      this.subscribed.delete(key);
      this.forming.delete(key);
      this.recent.delete(key);
    }
    this.heartbeat.feeds = [...this.subscribed].sort();
  }

  /** The confirmed candles the provider answered a new subscription with: kept for catching up, the newest marking what was seen. */
  private remember(key: string, symbol: string, period: Timeframe, latest: readonly Candlestick[]): void {
    const now = this.services.trading.sessions.now();
    const closed = latest.map((candle) => this.closedBarOf(key, symbol, period, candle)).filter((bar) => bar.close_ms <= now);
    const kept = closed.slice(-CATCH_UP_BARS);
    this.recent.set(key, kept);
    if (kept.length > 0) this.lastClose.set(key, Math.max(this.lastClose.get(key) ?? 0, kept[kept.length - 1]!.close_ms));
  }

  /**
   * A provider's candlestick as the closed bar the engine is fed: it closes at its open plus its
   * period, but an hourly or daily bar no later than its market's close that day (the last hourly
   * bar of a US day opens at 19:30Z and closes at 20:00Z, not 20:30Z), so what it causes is never
   * stamped after the day's end (docs/session-worker.md "Day rollover").
   */
  private closedBarOf(key: string, symbol: string, period: Timeframe, candlestick: Candlestick): ClosedBar {
    const open = Date.parse(candlestick.timestamp);
    const bar = {
      symbol,
      timestamp: open,
      open: Number(candlestick.open),
      high: Number(candlestick.high),
      low: Number(candlestick.low),
      close: Number(candlestick.close),
      volume: candlestick.volume,
    };
    let memo = this.dayCloses.get(key);
    if (!memo) this.dayCloses.set(key, (memo = { day: Number.NaN, close: 0 }));
    return { bar, timeframe: period, close_ms: marketBarCloseOf(marketOf(symbol), bar, period, memo) };
  }

  /**
   * A pushed candlestick: a confirmed one closes its bar, one still forming waits for its close by
   * the calendar (`closeByCalendar`); a confirmation of a bar closed already corrects the stored
   * candle when it differs (the run was fed the bar as it stood at its close).
   */
  private onCandlestick(event: PushCandlestickEvent): void {
    const { period, candlestick, is_confirmed } = event.data;
    const key = feedKey(event.symbol, period);
    if (!this.subscribed.has(key)) return;
    const closed = this.closedBarOf(key, event.symbol, period as Timeframe, candlestick);
    if (closed.close_ms <= (this.lastClose.get(key) ?? 0)) {
      if (is_confirmed) this.correct(key, closed, event);
      return;
    }
    if (!is_confirmed) {
      this.forming.set(key, { closed, event });
      return;
    }
    if (this.forming.get(key)?.closed.close_ms === closed.close_ms) this.forming.delete(key);
    this.accept(key, closed, event);
  }

  /** Closes the bars still forming whose close the calendar has passed (`CLOSE_GRACE_MS` after it), as their provider had confirmed them. */
  private closeByCalendar(now: number): void {
    for (const [key, { closed, event }] of this.forming) {
      if (closed.close_ms + CLOSE_GRACE_MS > now) continue;
      this.forming.delete(key);
      if (closed.close_ms <= (this.lastClose.get(key) ?? 0)) continue;
      this.accept(key, closed, { ...event, data: { ...event.data, is_confirmed: true } });
    }
  }

  /** The provider's confirmation of a bar closed by the calendar: a different bar is a correction of the stored candle, logged. */
  private correct(key: string, confirmed: ClosedBar, event: PushCandlestickEvent): void {
    const recent = this.recent.get(key);
    const index = recent?.findIndex((bar) => bar.bar.timestamp === confirmed.bar.timestamp) ?? -1;
    if (!recent || index < 0) return;
    const fed = recent[index]!.bar;
    const { bar } = confirmed;
    if (fed.open === bar.open && fed.high === bar.high && fed.low === bar.low && fed.close === bar.close && fed.volume === bar.volume) return;
    recent[index] = confirmed;
    this.pendingCandles.push(event);
    log.warn("A bar closed by the calendar was corrected by the provider's confirmation", {
      source: "session-worker",
      feed: key,
      bar_open: new Date(bar.timestamp).toISOString(),
      fed: { open: fed.open, high: fed.high, low: fed.low, close: fed.close, volume: fed.volume },
      confirmed: { open: bar.open, high: bar.high, low: bar.low, close: bar.close, volume: bar.volume },
    });
  }

  /** A closed bar: kept for catching up, fed at the next flush, stored. */
  private accept(key: string, closed: ClosedBar, event: PushCandlestickEvent): void {
    this.lastClose.set(key, closed.close_ms);
    const recent = this.recent.get(key) ?? [];
    recent.push(closed);
    if (recent.length > CATCH_UP_BARS) recent.shift();
    this.recent.set(key, recent);
    this.pendingSince ??= this.wall();
    this.pendingBars.push(closed);
    this.pendingCandles.push(event);
  }

  private pendingCandles: PushCandlestickEvent[] = [];

  /**
   * Stores the closed candles and feeds every running session the bars of its feeds, in close
   * order (a session catching up: every recent bar of its feeds, the run's cursor skipping what
   * it had). Returns the session bars fed and how long the oldest bar waited.
   */
  async flush(): Promise<{ sessionBars: number; lagMs: number }> {
    this.closeByCalendar(this.services.trading.sessions.now());
    const bars = this.pendingBars.sort(inFeedOrder);
    if (bars.length > 0) await this.publishBars();
    const candles = this.pendingCandles;
    const since = this.pendingSince;
    this.pendingBars = [];
    this.pendingCandles = [];
    this.pendingSince = null;
    if (bars.length === 0) {
      // Candles to store without a bar to feed: a provider's correction of a bar closed by the calendar.
      await this.storeCandles(candles);
      return { sessionBars: 0, lagMs: 0 };
    }
    // A session whose owner a kill switch halts is not fed (its strategies place nothing), as if paused.
    const halted = await this.halted();
    const due = [...this.driven].filter(([, driven]) => driven.session.status === "running" && !halted(driven.session.user_id));
    let sessionBars = 0;
    // Sessions are independent (each its own run and topic): all are fed at once, each one's events in order; their saves meet in one `saveMany` (run-cache.ts).
    const feeding = inParallel(due, due.length, async ([id, driven]) => {
      const catchingUp = this.catchingUp.has(id);
      const mine = catchingUp
        ? driven.feeds.flatMap((key) => this.recent.get(key) ?? []).sort(inFeedOrder)
        : bars.filter((b) => driven.feeds.includes(feedKey(b.bar.symbol, b.timeframe)));
      if (mine.length === 0) return;
      const fed = await LiveRuns.feed(this.feedDeps, id, mine, (run) => this.runCache.engineOf(run)).catch((error) => {
        // A feed that failed may have left its engine half fed: the run is read from the table next time.
        this.runCache.forget(id);
        throw error;
      });
      this.catchingUp.delete(id);
      if (!fed) return;
      sessionBars += fed.bars;
      this.heartbeat.bars += fed.bars;
      await this.publish(driven.session, fed.events, fed.engine);
    });
    // The candles are stored while the sessions are fed: no feed reads them (a run taken up catches up from `recent`).
    await Promise.all([this.storeCandles(candles), feeding]);
    return { sessionBars, lagMs: since === null ? 0 : this.wall() - since };
  }

  /** The playing loop (docs/mtf-and-replay.md): each playing replay or running historical MTF session advances by the steps its speed owes, its events streamed. */
  async playReplays(): Promise<void> {
    // One task plays them all (the live task of the smallest id): a replay's steps are owed by the clock, so two players would both advance it.
    if (!this.playsReplays) return;
    for (const { session_id, run_id, events } of await Replay.tick(this.services.trading.drivers)) {
      await Replay.publish(this.services.realtime, session_id, run_id, events);
    }
  }

  /** Confirmed candles of stored periods go to the candle store, screened as imports are. */
  private async storeCandles(events: PushCandlestickEvent[]): Promise<void> {
    const groups = new Map<string, PushCandlestickEvent[]>();
    for (const event of events) {
      const key = feedKey(event.symbol, event.data.period);
      groups.set(key, [...(groups.get(key) ?? []), event]);
    }
    for (const [key, group] of groups) {
      const [symbol, period] = key.split("|") as [string, StoredPeriod];
      const { batch } = screenCandles(
        group.map((e) => e.data.candlestick),
        period,
        Calendar.for(marketOf(symbol)),
        [0, Number.MAX_SAFE_INTEGER],
      );
      if (batch.length > 0) await this.services.candles.upsert(symbol, period, batch);
    }
  }

  /**
   * Each event to the session's socket as `{type, data, timestamp}`, with a `channel_update` after
   * every fill and channel status change, through the session's update feed (docs/channels.md).
   */
  private async publish(session: StoredSession, events: EngineEvent[], engine?: TradingEngine): Promise<void> {
    if (events.length === 0) return;
    await this.tripOnDailyLoss(session, events);
    const deps = this.channelDeps;
    // The engine that wrote the events when the caller has it; otherwise (the API's inputs) the run as saved.
    const run = engine ? undefined : await deps.runs.get(session.id);
    const current = engine ?? (run && engineOf(run));
    if (!current) return;
    await Channels.publish(deps, session.id, Channels.streamMessagesOf(current, session, events));
  }

  /**
   * Every `metricsMs`, `channel_metrics` of each running session whose run changed since its last
   * push, whose figures moved, and that a socket listens to (a snapshot nobody receives, or the
   * same figures again, is not journalled: it would be a feed write per session and bar,
   * docs/aws-costs.md; a client that connects when nobody listened gets them at the next push, and
   * `GET …/channels/{id}/metrics` any time): from the engine this task kept with the run it saved,
   * else the run read.
   */
  private async pushMetrics(): Promise<void> {
    const now = this.services.now();
    if (now - this.metricsAt < (this.options.metricsMs ?? 15_000)) return;
    this.metricsAt = now;
    const deps = this.channelDeps;
    const due = [...this.driven].filter(([, driven]) => driven.session.status === "running" && driven.session.config.channels.length > 0);
    await inParallel(due, due.length, async ([id]) => {
      const kept = this.runCache.kept(id);
      if (kept && this.metricsVersion.get(id) === kept.run.version) return;
      // Whether anyone listens, asked before the run is read (the cheaper of the two reads).
      if ((await deps.realtime.connections.byTopic(`session:${id}`)).length === 0) {
        // The next client to listen gets the figures at the next push, moved or not.
        this.metricsFigures.delete(id);
        return;
      }
      const run = kept?.run ?? (await deps.runs.get(id));
      if (!run || this.metricsVersion.get(id) === run.version) return;
      this.metricsVersion.set(id, run.version);
      const engine = kept?.engine ?? engineOf(run);
      // Stamped with the market's clock, as every other event is (the accelerated clock's, in npm start).
      const messages = Channels.metricsMessagesOf(engine, this.services.trading.sessions.now());
      // Figures that did not move since the last push (a flat channel's quiet bars) are not journalled again.
      const figures = JSON.stringify(messages.map(({ data: { timestamp: _at, ...figures } }) => figures));
      if (this.metricsFigures.get(id) === figures) return;
      this.metricsFigures.set(id, figures);
      await Channels.publish(deps, id, messages);
    });
  }

  /** Writes this task's heartbeat, which keeps its leases for `LEASE_MS` more, when `beatMs` has passed since the last. */
  private async beat(): Promise<void> {
    const leaseMs = this.options.leaseMs ?? LEASE_MS;
    if (this.wall() - this.beatAt < Math.min(this.options.beatMs ?? BEAT_MS, leaseMs / 3)) return;
    this.beatAt = this.wall();
    this.heartbeat.at = this.services.trading.sessions.now();
    this.heartbeat.sessions = this.driven.size;
    await Promise.all([this.leases.beat(this.taskId, this.heartbeat, this.wall() + leaseMs), this.store.beat(combineBeats([this.heartbeat, ...this.others])!)]);
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
