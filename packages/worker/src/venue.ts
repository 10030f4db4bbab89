import type { OrderGateway } from "@tp/core/provider/order-gateway";
import { log } from "@tp/core/log";
import { inParallel } from "@tp/core/util/in-parallel";
import { dayCloseOf } from "@tp/core/trading/drivers/rollover";
import { engineOf, updateRun } from "@tp/core/trading/run/update";
import type { StoredRun } from "@tp/core/trading/run/runs";
import type { StoredSession } from "@tp/core/trading/session/sessions";
import { applyReports, exchange, VenueReads, type VenueReport } from "@tp/core/trading/drivers/venue";
import { CancelFailures } from "./cancel-failures";
import type { WorkerContext } from "./context";
import { FEED_CONCURRENCY } from "./feeding";
import { Reconciliation } from "./reconciliation";
import { sendBackoffMs } from "./send-backoff";

/**
 * How often a live session's orders at LongPort are read when no push said one changed (ms of the
 * wall clock): two trade calls for every session on the account, within LongPort's 30 per 30 s
 * (docs/live-trading.md "Trade calls").
 */
export const LIVE_POLL_MS = 10_000;

/**
 * How often a broker-venue session's run is read when nothing said it has orders out (ms of the
 * wall clock): the net under a change no command announced to this task.
 */
export const VENUE_RECHECK_MS = 30_000;

/** The broker account a session trades (its orders share that account's reads and rate limit): the owner's at the provider, a simulated account, or the session's own paper account. */
const accountOf = (session: StoredSession): string =>
  session.trading_mode === "live" ? `live:${session.user_id}` : session.funded_by !== undefined ? `paper:${session.funded_by}` : `session:${session.id}`;

/** What the broker exchange asks of the other phases. */
export interface VenueSeams {
  /** Who a kill switch halts now. */
  halted(): Promise<(userId: string) => boolean>;
}

/**
 * The broker exchange (docs/session-worker.md "Orders at the broker"): the orders of the sessions
 * whose venue is their broker sent, cancelled and read back, with what it keeps between steps
 * (order pushes, polls, send backoffs, the sessions with orders out), the accounts' reconciliation
 * and the cancels that failed.
 */
export class Venue {
  /** Venue order ids a broker pushed as changed since their session's orders were last read. */
  private readonly orderPushes = new Set<string>();
  /** When (wall ms) each broker account's orders were last read. */
  private readonly polledAt = new Map<OrderGateway, number>();
  /** The gateways whose order-changed pushes this task takes. */
  private readonly listening = new Set<OrderGateway>();
  /** Wall ms before which a session's orders are not sent again (an unknown outcome, a throttled venue). */
  private readonly sendAfter = new Map<string, { until: number; failures: number }>();
  /** Broker-venue sessions whose run had orders pending when last read; those an input command changed since the last step; when (wall ms) each run was last read for its venue. */
  private readonly ordersOut = new Set<string>();
  private commanded = new Set<string>();
  private readonly venueReadAt = new Map<string, number>();
  private readonly reconciliation: Reconciliation;
  private readonly cancelFailures: CancelFailures;

  constructor(
    private readonly context: WorkerContext,
    private readonly seams: VenueSeams,
  ) {
    this.reconciliation = new Reconciliation(context);
    this.cancelFailures = new CancelFailures(context);
  }

  /** A session an input command changed: its run is read at the next step. */
  command(id: string): void {
    this.commanded.add(id);
  }

  /** Forgets a session the worker let go. */
  letGo(id: string): void {
    this.ordersOut.delete(id);
    this.venueReadAt.delete(id);
  }

  /** Takes no more order-changed pushes (the worker stops). */
  detach(): void {
    for (const gateway of this.listening) gateway.setOnOrderChanged?.(null);
    this.listening.clear();
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
    const deps = this.context.services.trading.sessions;
    const wall = this.context.wall();
    const halted = await this.seams.halted();
    const commanded = this.commanded;
    this.commanded = new Set();
    const due: { id: string; session: StoredSession; gateway: OrderGateway | null; reconcile: boolean }[] = [];
    for (const [id, driven] of this.context.driven) {
      if (driven.venue !== "broker") continue;
      const gateway = driven.session.trading_mode === "live" ? await this.gatewayOf(driven.session) : null;
      const reconcile = gateway !== null && this.reconciliation.due(gateway, wall);
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
        if (this.context.wall() < (this.sendAfter.get(id)?.until ?? 0)) continue;
        const venue = gateway ?? (await this.gatewayOf(session));
        if (!reads.has(venue)) reads.set(venue, new VenueReads(venue));
        const done = await this.exchangeWithVenue(session, run, reads.get(venue)!, reconcile);
        if (done && reconcile)
          reconciling.set(gateway!, [...reconciling.get(gateway!)!.filter((entry) => entry.session.id !== id), { session, run: done.run }]);
        if (done === null) continue;
        this.noteOrdersOut(id, done.run);
        if (done && session.funded_by !== undefined)
          await this.reconciliation.sleeve(session, session.funded_by, done, async (latest) =>
            this.exchangeWithVenue(session, latest, new VenueReads(await this.gatewayOf(session))),
          );
        if (stopping && done?.run.snapshot?.pending.length === 0) await this.settle(session);
      }
    });
    for (const [gateway, sessions] of reconciling) {
      if (!reads.has(gateway)) reads.set(gateway, new VenueReads(gateway));
      await this.reconciliation.venue(reads.get(gateway)!, sessions);
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
    if ((this.context.runCache.peek(id)?.snapshot?.pending.length ?? 0) > 0) return true;
    return wall - (this.venueReadAt.get(id) ?? Number.NEGATIVE_INFINITY) >= VENUE_RECHECK_MS;
  }

  /** Remembers whether the run, as just read or saved, has orders pending at (or on their way to) its venue. */
  private noteOrdersOut(id: string, run: StoredRun | undefined): void {
    if ((run?.snapshot?.pending.length ?? 0) > 0) this.ordersOut.add(id);
    else this.ordersOut.delete(id);
  }

  /**
   * Sends, cancels and reads back a session's orders at its venue; null when the venue could not
   * be reached or had nothing new. A live session's orders at LongPort are read when a push said
   * one changed, else every `LIVE_POLL_MS`; a simulation's at the paper broker (the service's own
   * table) every step (docs/live-trading.md "Trade calls").
   */
  private async exchangeWithVenue(session: StoredSession, run: StoredRun, reads: VenueReads, reconciling = false) {
    const deps = this.context.services.trading.sessions;
    const gateway = reads.gateway;
    const snapshot = run.snapshot!;
    this.listenTo(gateway);
    const wall = this.context.wall();
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
        cancelDue: (orderId) => this.cancelFailures.due(orderId),
      });
      reports = exchanged.reports;
      for (const report of reports) if (report.ended) this.cancelFailures.ended(report.order_id);
      if (exchanged.cancels) await this.cancelFailures.note(session, snapshot.pending, exchanged.cancels, wall);
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
    if (done) await this.context.publish(session, done.events, done.engine);
    return done;
  }

  /** A stopped (or halted) session's orders still at its broker are asked to cancel (`order_cancel_requested`); the run as saved. */
  private async cancelAll(session: StoredSession, reason: string): Promise<StoredRun | undefined> {
    const deps = this.context.services.trading.sessions;
    const done = await updateRun(deps, session.id, (run) => {
      const engine = engineOf(run);
      for (const order of run.snapshot?.pending ?? []) if (!order.cancel_requested) engine.cancel(order.order_id, deps.now(), reason);
      return { engine, value: null };
    });
    if (done) await this.context.publish(session, done.events, done.engine);
    return done?.run ?? (await deps.runs.get(session.id));
  }

  /** A stopped session with nothing left at its broker leaves the worker's list. */
  private async settle(session: StoredSession): Promise<void> {
    const sessions = this.context.services.trading.sessions.sessions;
    for (let attempt = 0; attempt < 5; attempt++) {
      const current = await sessions.get(session.id);
      if (!current?.orders_at_broker || current.status !== "stopped") return;
      // Its capital goes back to the account first: a crash between the two leaves it listed, and the next step releases again.
      await this.context.services.trading.sessions.accounts?.release(current);
      if (await sessions.replace({ ...current, orders_at_broker: undefined, version: current.version + 1 }, current)) {
        this.context.driven.delete(session.id);
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
    if (session.trading_mode === "live") return this.context.services.providers.orderGateway(session.user_id);
    if (session.funded_by !== undefined) return Promise.resolve(this.context.services.paperBroker(session.funded_by, session.id));
    return Promise.resolve(this.context.services.paperBroker(`session-${session.id}`));
  }
}
