/**
 * How the session page words what its socket pushes (docs/console.md "Live events"): each message
 * type's line (`describeMessage`, the same facts as the session log's line, money with its
 * currency and prices without floating-point noise) and the label shown before it (`EVENT_LABELS`).
 * session-page.ts shows them as they arrive.
 */
import { money, percent, signedMoney } from "../format";

/** An event's data as pushed. */
export type Data = Record<string, unknown>;

/** A field of an event's data as text ("" when absent). */
const text = (data: Data, name: string): string => (data[name] === undefined || data[name] === null ? "" : String(data[name]));

/** An order as a line names it: what it trades when the event says, never its id (the orders table has the rows). */
/** A price as the engine computed it, without binary floating point's noise (143.31900000000002 → 143.319). */
const priceOf = (data: Data, name: string): string => {
  const value = Number(data[name]);
  return Number.isFinite(value) ? String(Number(value.toPrecision(12))) : text(data, name);
};

const orderName = (data: Data): string =>
  data.symbol ? `order ${[text(data, "side"), text(data, "quantity"), text(data, "symbol")].filter(Boolean).join(" ")}` : "an order";

/**
 * What a pushed message says, in words, with its figures formatted (docs/console.md "Live
 * events"): the same facts as the session log's line (`messageOf` in core), money with its currency.
 */
export function describeMessage(type: string, data: Data, currency: string): string {
  const channel = data.channel_id ? `[${String(data.channel_id)}] ` : "";
  const cash = (name: string) => money(text(data, name) || null, text(data, "currency") || currency);
  switch (type) {
    case "order_submitted":
      return `${channel}${text(data, "side")} ${text(data, "quantity")} ${text(data, "symbol")} ${text(data, "order_type")}${data.limit_price ? ` at ${priceOf(data, "limit_price")}` : ""} submitted${data.reason ? ` (${text(data, "reason")})` : ""}`;
    case "order_filled":
      return `${channel}${text(data, "side")} ${text(data, "quantity")} ${text(data, "symbol")} filled at ${priceOf(data, "price")}, commission ${cash("commission")}`;
    case "order_denied":
      return `${channel}denied ${text(data, "side")} ${text(data, "quantity")} ${text(data, "symbol")}: ${text(data, "message")}`;
    case "order_rejected":
      return `${channel}${orderName(data)} rejected: ${text(data, "message")}`;
    case "order_cancelled":
      return `${channel}${orderName(data)} cancelled: ${text(data, "reason")}`;
    case "order_cancel_requested":
      return `${channel}cancel of ${orderName(data)} requested${data.reason ? ` (${text(data, "reason")})` : ""}`;
    case "order_routed":
      return `${channel}${orderName(data)} sent to the broker`;
    case "order_replaced":
      return `${channel}${orderName(data)} replaced: quantity ${text(data, "quantity")}`;
    case "position_changed":
      return `${channel}position ${text(data, "symbol")} now ${text(data, "quantity")}`;
    case "trade_closed":
      return `${channel}trade closed: ${text(data, "direction")} ${text(data, "quantity")} ${text(data, "symbol")} ${text(data, "entry_price")} → ${text(data, "exit_price")}, P&L ${signedMoney(text(data, "pnl") || null, text(data, "currency") || currency)}`;
    case "risk_event":
    case "alert":
    case "log":
      return `${channel}${text(data, "message") || text(data, "kind")}`;
    case "alert_acknowledged":
      return `${channel}alert ${text(data, "alert_sequence")} acknowledged by ${text(data, "acknowledged_by")}`;
    case "channel_status":
      return `${channel}channel ${text(data, "previous")} → ${text(data, "status")}${data.session_action ? ` (session ${text(data, "session_action")})` : ""}`;
    case "channel_update": {
      const metrics = (data.metrics ?? {}) as Data;
      return `${channel}${text(data, "status")} · P&L ${signedMoney(metrics.total_pnl as number, currency)} · win rate ${percent(metrics.win_rate as number)} · ${text(metrics, "total_trades")} trades`;
    }
    case "channel_metrics":
      return `${channel}P&L ${signedMoney(data.total_pnl as number, currency)} (unrealised ${signedMoney(data.unrealized_pnl as number, currency)}) · drawdown ${percent(data.current_drawdown as number)} · win rate ${percent(data.win_rate as number)} · ${text(data, "active_positions")} positions`;
    case "day_end":
      return `trading day closed, equity ${money(text(data, "equity") || null, currency)}`;
    case "backtest_progress":
      return `backtest ${text(data, "stage")} ${Number(data.progress ?? 0).toFixed(0)}%`;
    case "bias_changed":
      return `${channel}director bias of ${text(data, "symbol")} ${text(data, "previous")} → ${text(data, "bias")}`;
    case "signal":
      return `${channel}signal ${text(data, "side")} ${text(data, "symbol")} to weight ${text(data, "target_weight")}`;
    default:
      // Every field in words but the ids (an order's id carries its session's UUID: nothing a reader looks for).
      return Object.entries(data)
        .filter(
          ([name, value]) => !["sequence", "event_time"].includes(name) && !name.endsWith("_id") && (typeof value === "string" || typeof value === "number"),
        )
        .map(([name, value]) => `${name.replace(/_/g, " ")} ${String(value)}`)
        .join(" · ");
  }
}

export const EVENT_LABELS: Record<string, string> = {
  order_submitted: "Order submitted",
  order_routed: "Order routed",
  order_filled: "Order filled",
  order_cancelled: "Order cancelled",
  order_rejected: "Order rejected",
  order_denied: "Order denied",
  position_changed: "Position",
  trade_closed: "Trade closed",
  channel_status: "Channel status",
  channel_update: "Channel",
  channel_metrics: "Channel figures",
  risk_event: "Risk",
  alert: "Alert",
  log: "Log",
};
