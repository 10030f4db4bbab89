import { entryQuantity, hold, referencePrice } from "./cash";
import { cancelPending } from "./cancels";
import { preTradeDenials } from "./checks";
import type { Denial, EngineOrder } from "./events";
import { exitDue, protecting } from "./exits";
import { fillOnBar } from "./fills";
import type { Signal } from "../strategies/strategy";
import type { ChannelRuntime, EngineCore, OrderRequest, Sleeve } from "./runtime";

/**
 * Signals into orders: a strategy's signal acted on (its sleeve's waiting orders in the symbol
 * withdrawn, what is held against the target left, an entry sized and opened towards it), and an
 * order placed through the pre-trade checks (`order_denied` with every denial, or
 * `order_submitted`, its cash held, filled at the bar's close under `execution.fill: "close"`).
 * Called per signal, never per bar: the bar loops stay in `engine.ts`.
 */

/** Acts on a strategy's signal: withdraws the sleeve's waiting orders in its symbol, then leaves and opens towards the target. */
export function actOnSignal(e: EngineCore, channel: ChannelRuntime, sleeve: Sleeve, signal: Signal, close: number) {
  if (channel.state !== "running") return;
  const position = sleeve.positions.get(signal.symbol);
  const held = position ? position.quantity : 0;
  const target = signal.target_weight;
  const reason = `${signal.strategy_id}: ${signal.reason}`;
  const leaving = held !== 0 && Math.sign(held) !== Math.sign(target);
  // The newest signal decides: orders of this sleeve and symbol still waiting are withdrawn first; the protective ones only when it leaves the position.
  if (e.pending.length > 0) {
    const symbol = signal.symbol;
    cancelPending(e, (order) => order.sleeve === sleeve.key && order.symbol === symbol && order.exit_reason === undefined, "superseded by a newer signal");
    if (leaving)
      cancelPending(
        e,
        (order) => order.sleeve === sleeve.key && order.symbol === symbol && order.exit_reason !== undefined,
        "EXIT_BY_SIGNAL: the strategy closes the position",
      );
  }
  // Leave what is held against the target first, then open towards it.
  if (leaving) {
    placeOrder(
      e,
      channel,
      sleeve,
      { channel_id: channel.setup.channel_id, symbol: signal.symbol, side: held > 0 ? "sell" : "buy", quantity: Math.abs(held), reason },
      close,
    );
  }
  if (target !== 0 && Math.sign(held) !== Math.sign(target)) {
    const quantity = entryQuantity(e, channel, sleeve, signal.symbol, Math.abs(target), close);
    placeOrder(e, channel, sleeve, { channel_id: channel.setup.channel_id, symbol: signal.symbol, side: target > 0 ? "buy" : "sell", quantity, reason }, close);
  }
  // A signal that withdrew an exit still waiting leaves the position to its protective orders again (placed at the bar's close).
  if (held !== 0 && !leaving && sleeve.exits !== null) exitDue(e, channel, sleeve, signal.symbol);
}

/** `close` is the close of the bar whose signal places the order (NaN outside a bar): a fill at the close trades there. */
export function placeOrder(
  e: EngineCore,
  channel: ChannelRuntime,
  sleeve: Sleeve,
  request: OrderRequest,
  close = NaN,
): { order: EngineOrder | null; denials: Denial[] } {
  const denials = preTradeDenials(e, channel, sleeve, request, referencePrice(e, request));
  channel.stats.orders += 1;
  if (denials.length > 0) {
    channel.stats.denied += 1;
    e.emit("order_denied", channel.setup.channel_id, {
      symbol: request.symbol,
      side: request.side,
      quantity: request.quantity,
      sleeve: sleeve.key,
      reason: denials[0].reason,
      message: denials[0].message,
      denials,
      signal: request.reason ?? null,
    });
    return { order: null, denials };
  }
  e.orderCounter += 1;
  const orderType = request.order_type ?? "market";
  const order: EngineOrder = {
    order_id: `${e.setup.session_id}-${e.orderCounter}`,
    channel_id: channel.setup.channel_id,
    sleeve: sleeve.key,
    symbol: request.symbol,
    side: request.side,
    order_type: orderType,
    quantity: request.quantity,
    limit_price: orderType === "limit" ? (request.price ?? null) : null,
    stop_price: orderType === "stop" ? (request.price ?? null) : null,
    submitted_at: e.time,
    reason: request.reason ?? "manual",
  };
  channel.daily_trades += 1;
  e.emit("order_submitted", channel.setup.channel_id, { ...order });
  // A broker holds a position's shares for one selling order at a time: an order that sells them takes the place of its protective orders (placed again after it, for what is left).
  if (!e.barFills && sleeve.exits !== null && reduces(sleeve, order))
    cancelPending(e, (o) => protecting(o, sleeve.key, order.symbol), "MAKING_WAY: an order that reduces the position takes the place of its protective orders");
  // At the close of the bar that placed it (its volume is the one being fed), or later bars for what remains.
  const atClose = e.barFills && !Number.isNaN(close) && orderType === "market" && e.setup.execution.fill === "close";
  if (!atClose || fillOnBar(e, order, close)) {
    e.pending.push(order);
    hold(e, order);
  }
  return { order, denials: [] };
}

/** Whether `order` would reduce what `sleeve` holds of its symbol. */
function reduces(sleeve: Sleeve, order: EngineOrder): boolean {
  const held = sleeve.positions.get(order.symbol)?.quantity ?? 0;
  return order.side === "buy" ? held < 0 : held > 0;
}
