import { notFound, parseOrThrow } from "../../errors";
import { iso } from "../../util/time";
import type { Actor } from "../../users";
import { deliver } from "./commands";
import type { ChannelDeps } from "./ports";
import { type Alert, AlertLevel, AlertQuery, AlertType } from "./schemas";
import { allEvents, channelSession } from "./session";
import { publishDelivered } from "./stream";
import type { ViewDeps } from "../session/deps";
import type { StoredEvent } from "../run/runs";

/**
 * A channel session's alerts (docs/channels.md): the run's `alert` events with their
 * `alert_acknowledged` events; an acknowledgement is an engine command like any other input.
 */

const alertId = (sequence: number) => `alert-${sequence}`;
const alertSequence = (id: string) => (/^alert-(\d{1,12})$/.exec(id) ? Number(id.slice(6)) : NaN);

/** Alerts of a run with their acknowledgements, oldest first. */
export async function alertsOf(deps: Pick<ViewDeps, "runs">, runId: string): Promise<Alert[]> {
  const events = await allEvents(deps, runId, "risk");
  const acks = new Map<number, StoredEvent>();
  for (const event of events)
    if (event.type === "alert_acknowledged" && !acks.has(Number(event.data.alert_sequence))) acks.set(Number(event.data.alert_sequence), event);
  return events
    .filter((event) => event.type === "alert")
    .map((event) => {
      const ack = acks.get(event.sequence);
      return {
        alert_id: alertId(event.sequence),
        channel_id: event.channel_id,
        level: AlertLevel.catch("info").parse(event.data.level),
        type: AlertType.catch("system").parse(event.data.type),
        message: String(event.data.message ?? ""),
        timestamp: iso(event.time),
        acknowledged: ack !== undefined,
        acknowledged_at: ack ? iso(ack.time) : null,
        acknowledged_by: ack ? String(ack.data.acknowledged_by) : null,
      };
    });
}

/** The session's alerts, newest first, filtered by level, type, acknowledgement and channel. */
export async function listAlerts(deps: ViewDeps, actor: Actor, sessionId: string, input: unknown) {
  const query = parseOrThrow(AlertQuery, input, ["query"]);
  const session = await channelSession(deps, actor, sessionId);
  const all = session.run_id ? await alertsOf(deps, session.run_id) : [];
  const matching = all
    .filter((a) => (query.level === undefined || a.level === query.level) && (query.type === undefined || a.type === query.type))
    .filter(
      (a) =>
        (query.acknowledged === undefined || a.acknowledged === query.acknowledged) && (query.channel_id === undefined || a.channel_id === query.channel_id),
    )
    .reverse();
  return { alerts: matching.slice(0, query.limit), total: matching.length, unacknowledged: matching.filter((a) => !a.acknowledged).length };
}

/** Counts of the session's alerts. */
export async function alertSummary(deps: ViewDeps, actor: Actor, sessionId: string) {
  const session = await channelSession(deps, actor, sessionId);
  const all = session.run_id ? await alertsOf(deps, session.run_id) : [];
  const count = (pick: (a: Alert) => boolean) => all.filter(pick).length;
  const dayAgo = deps.now() - 24 * 3_600_000;
  return {
    session_id: sessionId,
    total_alerts: all.length,
    unacknowledged_alerts: count((a) => !a.acknowledged),
    alerts_by_level: { critical: count((a) => a.level === "critical"), warning: count((a) => a.level === "warning"), info: count((a) => a.level === "info") },
    alerts_by_type: {
      risk_limit: count((a) => a.type === "risk_limit"),
      performance: count((a) => a.type === "performance"),
      system: count((a) => a.type === "system"),
    },
    recent_critical_alerts_24h: count((a) => a.level === "critical" && Date.parse(a.timestamp) >= dayAgo),
  };
}

/** Marks an alert acknowledged by `by` now (an `alert_acknowledged` event); acknowledging again answers the first acknowledgement. */
export async function acknowledgeAlert(deps: ChannelDeps, actor: Actor, by: string, sessionId: string, id: string) {
  const session = await channelSession(deps, actor, sessionId);
  const sequence = alertSequence(id);
  const alerts = session.run_id && Number.isFinite(sequence) ? await alertsOf(deps, session.run_id) : [];
  const alert = alerts.find((a) => a.alert_id === id);
  if (!alert) throw notFound("ALERT_NOT_FOUND", `Session ${sessionId} has no alert '${id}'`);
  if (alert.acknowledged) {
    return {
      alert_id: id,
      acknowledged: true,
      acknowledged_at: alert.acknowledged_at!,
      acknowledged_by: alert.acknowledged_by!,
      message: `Alert ${id} was already acknowledged`,
    };
  }
  const delivered = await deliver(deps, session.run_id!, [{ kind: "acknowledge_alert", channel_id: alert.channel_id, alert_sequence: sequence, by }]);
  await publishDelivered(deps, session, delivered);
  // The instant stored with it (the run's clock: never before the run's last event), as the alert lists show it.
  const stored = delivered.events.find((event) => event.type === "alert_acknowledged" && Number(event.data.alert_sequence) === sequence);
  return { alert_id: id, acknowledged: true, acknowledged_at: iso(stored?.time ?? deps.now()), acknowledged_by: by, message: `Alert ${id} acknowledged` };
}
