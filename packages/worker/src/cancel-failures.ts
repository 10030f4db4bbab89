import { engineOf, updateRun } from "@tp/core/trading/run/update";
import { log } from "@tp/core/log";
import type { StoredSession } from "@tp/core/trading/session/sessions";
import type { WorkerContext } from "./context";
import { SEND_BACKOFF_MAX_MS, sendBackoffMs } from "./send-backoff";

/**
 * Failures in a row of one order's cancel at its broker after which it is reported: a critical
 * `CANCEL_FAILED` alert in the session's log and `cancel_failed` on the kill switch that asked for
 * it (docs/security.md "Kill switch"). The cancel is still retried, backing off to `SEND_BACKOFF_MAX_MS`.
 */
export const CANCEL_REPORT_AFTER = 3;

/** The cancels the brokers failed lately, per order: when each is sent again, and its report once it keeps failing. */
export class CancelFailures {
  /** Orders whose cancel failed at their broker lately: failures in a row, when (wall ms) to send it again, whether it was reported. */
  private readonly cancelFailures = new Map<string, { failures: number; until: number; reported: boolean }>();

  constructor(private readonly context: WorkerContext) {}

  /** Whether an order's cancel may be sent now (it has not failed lately, or its backoff has passed). */
  due(orderId: string): boolean {
    return this.context.wall() >= (this.cancelFailures.get(orderId)?.until ?? 0);
  }

  /** An order that ended at its broker has no cancel left to fail. */
  ended(orderId: string): void {
    this.cancelFailures.delete(orderId);
  }

  /**
   * Counts each cancel the broker failed (busy, throttled, unreachable, its own failure): it is sent
   * again after a backoff (1 s doubling, at most `SEND_BACKOFF_MAX_MS`); at the `CANCEL_REPORT_AFTER`th
   * failure in a row it is reported once: a critical `CANCEL_FAILED` alert in the session's log, and
   * `cancel_failed` on the kill switch halting the owner, if one is.
   */
  async note(
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
    const deps = this.context.services.trading.sessions;
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
    if (done) await this.context.publish(session, done.events, done.engine);
    const trip = await this.context.services.killSwitch.guard.halting(session.user_id);
    if (!trip) return;
    for (const failed of due) {
      const order = pending.find((candidate) => candidate.order_id === failed.order_id);
      await this.context.services.killSwitch.store.cancelFailed(trip.scope, trip.user_id, {
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
}
