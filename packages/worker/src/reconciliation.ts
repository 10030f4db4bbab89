import { holdingsOf, sleeveDifferences } from "@tp/core/trading/session/accounts";
import type { TradingEngine } from "@tp/core/engine/engine";
import { log } from "@tp/core/log";
import { PaperAccounts } from "@tp/core/paper/accounts";
import type { OrderGateway } from "@tp/core/provider/order-gateway";
import { engineOf, updateRun } from "@tp/core/trading/run/update";
import type { StoredRun } from "@tp/core/trading/run/runs";
import type { StoredSession } from "@tp/core/trading/session/sessions";
import { VENUE_WAIT_MS, type VenueReads } from "@tp/core/trading/drivers/venue";
import { mismatchText, venueMismatches, type VenueMismatch } from "@tp/core/trading/drivers/venue-reconcile";
import type { WorkerContext } from "./context";

/** How often a live account is reconciled with its sessions' books (ms of the wall clock; also when the worker takes them up). */
export const RECONCILE_MS = 180_000;

/** A session's run as booked, with the engine that booked it. */
type Booked = { run: StoredRun; engine: TradingEngine };

/**
 * The broker accounts checked against the sessions' books: a live account's orders and holdings
 * every `RECONCILE_MS`, a simulated account's sleeve after each booking; each difference alerted
 * once while it lasts.
 */
export class Reconciliation {
  /** The last sleeve difference alerted per session, so a lasting one is alerted once. */
  private readonly mismatches = new Map<string, string>();
  /** When (wall ms) each live account was last reconciled with its sessions' books; none: at the next step. */
  private readonly reconciledAt = new Map<OrderGateway, number>();
  /** The last account mismatch alerted per session, so a lasting one is alerted once. */
  private readonly venueMismatches = new Map<string, string>();

  constructor(private readonly context: WorkerContext) {}

  /** Whether a live account is due for reconciliation (`RECONCILE_MS` since the last, or never yet). */
  due(gateway: OrderGateway, wall: number): boolean {
    return wall - (this.reconciledAt.get(gateway) ?? Number.NEGATIVE_INFINITY) >= RECONCILE_MS;
  }

  /**
   * Compares a live account's working orders and holdings with the books of the sessions trading
   * it (docs/live-trading.md "Reconciliation"), when the worker takes them up and every
   * `RECONCILE_MS` after: an order no session placed, or a holding below what the books hold,
   * is a critical `VENUE_MISMATCH` alert on each of those sessions (once while it lasts) and an
   * error log line with both figures. (Their missed fills the exchange before it has booked.)
   */
  async venue(reads: VenueReads, sessions: { session: StoredSession; run: StoredRun }[]): Promise<void> {
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
    this.reconciledAt.set(reads.gateway, this.context.wall());
    const text = mismatchText(mismatch);
    const deps = this.context.services.trading.sessions;
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
      if (done) await this.context.publish(session, done.events, done.engine);
    }
  }

  /**
   * After a session's fills are booked, its sleeve in the simulated account and the engine's
   * figures must agree to the cent and the share (docs/accounts.md "Reconciliation"). The account
   * may have filled more since the engine read it, so a difference first reads the venue again
   * (`exchangeAgain`);
   * one that stays is a critical alert on the session and an error line with both figures.
   */
  async sleeve(session: StoredSession, account: string, booked: Booked, exchangeAgain: (run: StoredRun) => Promise<Booked | null>): Promise<void> {
    const paper = this.context.services.paperBroker.deps;
    let current = booked;
    for (let attempt = 0; ; attempt++) {
      const sleeve = await PaperAccounts.sleeve(paper, account, session.id);
      if (!sleeve) return;
      const differences = sleeveDifferences(holdingsOf(current.engine.view(null)), sleeve);
      if (differences.length === 0) {
        this.mismatches.delete(session.id);
        return;
      }
      const again = attempt === 0 && current.run.snapshot && current.run.snapshot.pending.length > 0 ? await exchangeAgain(current.run) : null;
      if (again) {
        current = again;
        continue;
      }
      const text = differences.map((d) => `${d.what}: session ${d.session}, account ${d.account}`).join("; ");
      if (this.mismatches.get(session.id) === text) return;
      this.mismatches.set(session.id, text);
      log.error("Session sleeve and simulated account disagree", { source: "session-worker", session_id: session.id, account_id: account, differences });
      const deps = this.context.services.trading.sessions;
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
      if (done) await this.context.publish(session, done.events, done.engine);
      return;
    }
  }
}
