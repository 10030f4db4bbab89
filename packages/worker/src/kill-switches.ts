import { randomUUID } from "node:crypto";
import { AuditTrail } from "@tp/core/audit";
import type { EngineEvent } from "@tp/core/engine/events";
import type { KillSwitchTrip } from "@tp/core/kill-switch";
import { log } from "@tp/core/log";
import { tripSwitch } from "@tp/core/trading/session/kill-switch-actions";
import type { StoredSession } from "@tp/core/trading/session/sessions";
import type { WorkerContext } from "./context";

/**
 * The kill switches as the worker sees them (docs/security.md "Kill switch"): who they halt, as
 * last read (a halted owner's sessions are not fed and their orders are cancelled), and the trip a
 * session's daily loss makes when its risk configuration says so.
 */
export class KillSwitches {
  /** The tripped kill switches as last read (kept when a read fails: a table hiccup does not lift a halt). */
  private trips: readonly KillSwitchTrip[] = [];

  constructor(private readonly context: WorkerContext) {}

  /** Who a kill switch halts now, from the switches as the guard last read them (at most every 2 s: no read per bar or session). */
  async halted(): Promise<(userId: string) => boolean> {
    try {
      this.trips = await this.context.services.killSwitch.guard.tripped();
    } catch (error) {
      log.error("Kill switches not read; the last known apply", { source: "session-worker", error: String(error) });
    }
    const stage = this.trips.some((trip) => trip.scope === "stage");
    const users = new Set(this.trips.map((trip) => trip.user_id));
    return (userId) => stage || users.has(userId);
  }

  /**
   * A session whose risk configuration says `trip_kill_switch` trips its owner's kill switch when its
   * `max_daily_loss` is breached (its own or a channel's: the engine's `MAX_DAILY_LOSS_BREACHED`),
   * unless one halts the owner already; the trip is recorded in the audit trail as the risk monitor's.
   */
  async tripOnDailyLoss(session: StoredSession, events: readonly EngineEvent[]): Promise<void> {
    const breach = events.find(
      (event) => event.type === "risk_event" && event.data.kind === "limit_breached" && event.data.reason === "MAX_DAILY_LOSS_BREACHED",
    );
    if (!breach) return;
    // Breaches are rare: the session as stored now (its risk configuration may have changed since this task read it).
    const current = (await this.context.services.trading.sessions.sessions.get(session.id)) ?? session;
    if (current.config.risk_config?.trip_kill_switch !== true || (await this.context.services.killSwitch.guard.halting(session.user_id))) return;
    const values = (breach.data.values ?? {}) as Record<string, unknown>;
    const reason = `MAX_DAILY_LOSS_BREACHED in session ${session.id}${breach.channel_id ? ` (channel ${breach.channel_id})` : ""}: daily loss ${values.daily_loss} of max_daily_loss ${values.max_daily_loss}`;
    const deps = {
      ...this.context.services.trading.sessions,
      killSwitch: this.context.services.killSwitch.guard,
      switches: this.context.services.killSwitch.store,
      outsideOrders: this.context.services.outsideOrders,
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
    const audit = this.context.services.audit;
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
}
