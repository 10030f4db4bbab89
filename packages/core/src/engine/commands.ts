import type { Limits } from "../risk/risk";
import { cancelPending } from "./cancels";
import { closeDay, monitor, startDay } from "./days";
import type { Denial, EngineOrder } from "./events";
import { exitDue, settleExits } from "./exits";
import { placeOrder } from "./orders";
import type { ChannelRunState, EngineCore, OrderRequest } from "./runtime";
import { venueOrderEnded } from "./venue-reports";

/**
 * The commands a session gets outside the bars, each stamped at its own instant `at` (the engine's
 * clock never goes back for them): the day's end, a channel's run state, the daily reset, new risk
 * limits, alerts and their acknowledgement, the kill switch, and a manual order placed or withdrawn.
 * `TradingEngine`'s methods of the same names call these; order replacement has its own module
 * (`order-replacement.ts`).
 */

/**
 * Ends the current day (backtest end, or the worker's day rollover): daily figures and counters.
 * The rollover passes the close instant: the engine's orders are day orders, so those still
 * pending expire at it first (`order_cancelled` with `expired`), and after the day's figures are
 * settled the daily risk counters restart (as `resetDaily`). Without a day under way, nothing.
 */
export function endDay(e: EngineCore, close?: number): void {
  if (e.day < 0) return;
  if (close !== undefined) {
    e.time = Math.max(e.time, close);
    // A broker's day orders expire at the broker, which reports it; one the close overtook before it was sent expires here.
    // Protective orders are not day orders: they guard their position until it closes.
    if (e.barFills && e.pending.length > 0)
      cancelPending(e, (o) => o.exit_reason === undefined, "DAY_ORDER_EXPIRED: a day order ends at the market's close", { expired: true });
    if (!e.barFills)
      for (const order of e.pending.filter((o) => !o.venue_order_id && o.exit_reason === undefined))
        venueOrderEnded(e, order.order_id, { status: "expired", message: "DAY_ORDER_EXPIRED: a day order ends at the market's close" }, close);
  }
  closeDay(e);
  e.day = -1;
  e.dayStart = 0;
  e.dayEnd = 0;
  if (close !== undefined) resetDaily(e, close);
}

/** Changes a channel's run state (pause keeps positions and stops trading; stop also cancels its orders). */
export function setChannelState(e: EngineCore, channelId: string, state: ChannelRunState, at: number): void {
  const channel = e.channel(channelId);
  if (channel.state === state) return;
  e.time = Math.max(e.time, at);
  const previous = channel.state;
  channel.state = state;
  if (state === "stopped") cancelPending(e, (order) => order.channel_id === channelId, "channel stopped");
  e.emit("channel_status", channelId, { status: state, previous });
}

/** Restarts the daily counters: daily trades, the day-start equity anchor and daily-loss halts. */
export function resetDaily(e: EngineCore, at: number): void {
  e.time = Math.max(e.time, at);
  for (const channel of e.channels) startDay(e, channel);
  e.session.day_start_equity = e.totalEquity();
  e.emit("risk_event", null, { kind: "daily_reset", message: "Daily risk counters reset" });
}

/**
 * Replaces a channel's risk limits from now on, and checks them at once: a limit the channel
 * already breaches halts it and raises its alert at the change's instant, not at the open of
 * the next bar fed (which may be earlier: a live bar reaches the run after it closed).
 */
export function setLimits(e: EngineCore, channelId: string, limits: Limits, at: number, before?: Limits): void {
  const channel = e.channel(channelId);
  e.time = Math.max(e.time, at);
  // `before`: the limits the change replaces, when the engine was restored with the new ones already.
  const previous = before ?? channel.setup.limits;
  channel.setup = { ...channel.setup, limits };
  // The log's line says what changed ("Risk limits changed: max_drawdown 0.2 → 0.05"), as every risk_event carries its message.
  const changed = (Object.keys(limits) as (keyof Limits)[]).filter((key) => previous[key] !== limits[key]);
  const message = changed.length
    ? `Risk limits changed: ${changed.map((key) => `${key} ${previous[key]} → ${limits[key]}`).join(", ")}`
    : "Risk limits set again, unchanged";
  e.emit("risk_event", channelId, { kind: "limits_changed", limits, previous, message });
  monitor(e);
}

/** Records that someone acknowledged an alert (`alert_acknowledged`, naming the alert's event sequence); no trading state changes. */
export function acknowledgeAlert(e: EngineCore, channelId: string | null, alertSequence: number, by: string, at: number): void {
  if (channelId !== null) e.channel(channelId);
  e.time = Math.max(e.time, at);
  e.emit("alert_acknowledged", channelId, { alert_sequence: alertSequence, acknowledged_by: by });
}

/** A critical alert about the session raised outside the engine (the worker's reconciliation with the account, docs/accounts.md). */
export function raiseAlert(e: EngineCore, type: string, reason: string, message: string, values: Record<string, unknown>, at: number): void {
  e.time = Math.max(e.time, at);
  e.emit("alert", null, { level: "critical", type, reason, message, values });
}

/** The owner's or the stage's kill switch tripped or released (docs/security.md "Kill switch"): a `kill_switch` event in the log and on the socket. */
export function killSwitch(e: EngineCore, data: { state: "tripped" | "released"; scope: string; by: string; reason: string | null }, at: number): void {
  e.time = Math.max(e.time, at);
  e.emit("kill_switch", null, data);
}

/** Places an order outside the strategies; the checks' denials are returned (and logged) as data. */
export function submit(e: EngineCore, request: OrderRequest, at: number): { order: EngineOrder | null; denials: Denial[] } {
  const channel = e.channel(request.channel_id);
  e.time = Math.max(e.time, at);
  return placeOrder(e, channel, channel.manual, request);
}

/** Withdraws a pending order (`order_cancelled`); false when no pending order has that id. */
export function cancel(e: EngineCore, orderId: string, at: number, reason: string): boolean {
  const order = e.pending.find((candidate) => candidate.order_id === orderId);
  if (!order) return false;
  e.time = Math.max(e.time, at);
  cancelPending(e, (candidate) => candidate === order, reason);
  // On bars an exit withdrawn by hand leaves its position to its protective orders again (a broker's order ends when it reports so).
  const channel = e.channel(order.channel_id);
  const sleeve = e.sleeveOf(channel, order.sleeve);
  if (e.barFills && sleeve.exits !== null && order.exit_reason === undefined) {
    exitDue(e, channel, sleeve, order.symbol);
    settleExits(e, e.time, e.info(order.symbol).last);
  }
  return true;
}
