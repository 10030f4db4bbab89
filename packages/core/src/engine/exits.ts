import { tickTableFor } from "../market/tick-size";
import { hold, release } from "./cash";
import { cancelPending } from "./cancels";
import { exchangeDay } from "./days";
import type { EngineOrder, EngineOrderType, ExitReason } from "./events";
import type { ProtectiveExits } from "./setup";
import type { ChannelRuntime, EngineCore, Sleeve } from "./runtime";

/**
 * Protective exits (docs/trading-engine.md "Protective exits"; ENGINE.md §6b): when an entry fills,
 * the position gets the orders its strategy's exits ask for, a stop at `stop_loss_pct` from the
 * entry price, a target at `take_profit_pct`, a trailing stop at `trailing_stop_pct`. The orders
 * of one position are one OCO group: the first to fill cancels the others. They are day orders of
 * no day: the close does not expire them. On bars they are tried from the bar after the one that
 * filled the entry (`submitted_at` is that bar's close), in the order they were placed, by the
 * reference engine's rules (`shared/reference/backtest/EXITS.md`).
 */

/** The exits of a slot, or null when none is on (so a sleeve without exits costs one test per fill). */
export function activeExits(exits: ProtectiveExits | undefined): ProtectiveExits | null {
  if (!exits) return null;
  return exits.stop_loss_pct === null && exits.take_profit_pct === null && exits.trailing_stop_pct === null ? null : exits;
}

/** A fill changed a sleeve's position in `symbol`: its protective orders are brought in line by `settleExits`. */
export function exitDue(e: EngineCore, channel: ChannelRuntime, sleeve: Sleeve, symbol: string): void {
  const due = e.exitsDue;
  for (let i = 0; i < due.length; i++) if (due[i].sleeve === sleeve && due[i].symbol === symbol) return;
  due.push({ channel, sleeve, symbol });
}

/** Whether an order is a protective order of `sleeve`'s position in `symbol`. */
const protecting = (order: EngineOrder, sleeveKey: string, symbol: string) =>
  order.exit_reason !== undefined && order.sleeve === sleeveKey && order.symbol === symbol;

/**
 * Brings the protective orders of each position a fill changed in line, at `at` (the close of the
 * bar whose fills changed them, or a broker's fill time) with `close` the reference of a new
 * trailing stop on bars (NaN at a broker, which trails by itself: the entry price then):
 * a flat position's orders are cancelled; a position that grew (a new average entry price) gets a
 * new set for its whole quantity; one that shrank keeps its levels for the smaller quantity.
 */
export function settleExits(e: EngineCore, at: number, close: number): void {
  const due = e.exitsDue;
  if (due.length === 0) return;
  const time = e.time;
  e.time = Math.max(e.time, at);
  for (let i = 0; i < due.length; i++) {
    const { channel, sleeve, symbol } = due[i];
    const position = sleeve.positions.get(symbol);
    const held = position ? position.quantity : 0;
    const current = e.pending.filter((order) => protecting(order, sleeve.key, symbol) && !order.cancel_requested);
    if (held === 0) {
      if (current.length > 0) cancelExits(e, current, "POSITION_CLOSED: the position its protective orders guarded is closed");
      continue;
    }
    const side = held > 0 ? "sell" : "buy";
    const quantity = Math.abs(held);
    const sameLevels = current.length > 0 && current.every((order) => order.side === side && order.basis === position!.entry_price);
    if (sameLevels && e.barFills) {
      // Shrunk (a part sold by hand): the same levels for what is left; a trailing stop keeps how far it trailed.
      for (const order of current) {
        if (order.quantity - (order.filled ?? 0) === quantity) continue;
        release(e, order);
        order.quantity = (order.filled ?? 0) + quantity;
        hold(e, order);
        e.emit("order_replaced", order.channel_id, {
          order_id: order.order_id,
          symbol,
          quantity: order.quantity,
          price: levelOf(order),
          reason: "position changed",
        });
      }
      continue;
    }
    if (sameLevels && current.every((order) => order.quantity - (order.filled ?? 0) === quantity)) continue;
    if (current.length > 0) cancelExits(e, current, "POSITION_CHANGED: replaced by protective orders for the position as it is now");
    placeExits(e, channel, sleeve, symbol, side, quantity, position!.entry_price, close);
  }
  due.length = 0;
  e.time = time > e.time ? time : e.time;
}

/** A protective order filled: the other orders of its OCO group (its position's) are cancelled, or asked to cancel at a broker. */
export function oneCancelsOther(e: EngineCore, filled: EngineOrder): void {
  cancelPending(
    e,
    (order) => order !== filled && protecting(order, filled.sleeve, filled.symbol),
    `ONE_CANCELS_OTHER: ${filled.exit_reason} order ${filled.order_id} filled`,
  );
}

/** The level an order waits for: its stop (a trailing stop's current level) or its limit. */
export const levelOf = (order: EngineOrder): number => (order.order_type === "limit" ? order.limit_price! : order.stop_price!);

function cancelExits(e: EngineCore, orders: EngineOrder[], reason: string) {
  const ids = new Set(orders.map((order) => order.order_id));
  cancelPending(e, (order) => ids.has(order.order_id), reason);
}

/** The protective orders of a position, in the order `execution.exits.priority` tries them. */
function placeExits(
  e: EngineCore,
  channel: ChannelRuntime,
  sleeve: Sleeve,
  symbol: string,
  side: "buy" | "sell",
  quantity: number,
  entry: number,
  close: number,
) {
  const exits = sleeve.exits!;
  // A long's stop is below its entry and its target above; a short's the other way round.
  const down = side === "sell" ? -1 : 1;
  const stop = exits.stop_loss_pct;
  const target = exits.take_profit_pct;
  const trail = exits.trailing_stop_pct;
  const stopOrder = () => stop !== null && place(e, channel, sleeve, symbol, side, quantity, "stop", "stop_loss", entry * (1 + down * stop), entry, stop);
  const targetOrder = () =>
    target !== null && place(e, channel, sleeve, symbol, side, quantity, "limit", "take_profit", entry * (1 - down * target), entry, target);
  if (e.exitRules.priority === "take_profit") {
    targetOrder();
    stopOrder();
  } else {
    stopOrder();
    targetOrder();
  }
  if (trail !== null) {
    // On bars the trail starts from the close of the entry's bar (the reference engine's rule); a broker trails from the entry.
    const reference = Number.isNaN(close) ? entry : close;
    place(e, channel, sleeve, symbol, side, quantity, "trailing_stop", "trailing_stop", trailLevel(side, reference, trail), entry, trail);
  }
}

/** A trailing stop's level `pct` from `reference`, computed as the reference engine does (`c - c*p`). */
export const trailLevel = (side: "buy" | "sell", reference: number, pct: number): number =>
  side === "sell" ? reference - reference * pct : reference + reference * pct;

const WHAT: Record<ExitReason, string> = { stop_loss: "stop loss", take_profit: "take profit", trailing_stop: "trailing stop" };

function place(
  e: EngineCore,
  channel: ChannelRuntime,
  sleeve: Sleeve,
  symbol: string,
  side: "buy" | "sell",
  quantity: number,
  type: EngineOrderType,
  reason: ExitReason,
  level: number,
  entry: number,
  pct: number,
) {
  // On bars a level is the plain product (as the reference engine's); a broker takes prices on its tick grid, rounded towards the entry.
  const price = e.barFills ? level : towardEntry(e, symbol, level, entry);
  e.orderCounter += 1;
  const order: EngineOrder = {
    order_id: `${e.setup.session_id}-${e.orderCounter}`,
    channel_id: channel.setup.channel_id,
    sleeve: sleeve.key,
    symbol,
    side,
    order_type: type,
    quantity,
    limit_price: type === "limit" ? price : null,
    stop_price: type === "limit" ? null : price,
    submitted_at: e.time,
    reason: `${reason}: ${WHAT[reason]} ${pct * 100}% from ${type === "trailing_stop" ? "the best price since entry" : `the entry price ${entry}`}`,
    exit_reason: reason,
    basis: entry,
    ...(type === "trailing_stop" ? { trail_pct: pct } : {}),
  };
  channel.stats.orders += 1;
  e.emit("order_submitted", channel.setup.channel_id, { ...order });
  e.pending.push(order);
  hold(e, order);
}

/** `level` on the symbol's tick grid, rounded towards `entry`: a stop never further, a target never further than asked. */
function towardEntry(e: EngineCore, symbol: string, level: number, entry: number): number {
  const info = e.info(symbol);
  if (info.market !== "US" && info.market !== "HK") return level;
  const table = tickTableFor(info.market, { dayNumber: exchangeDay(e, info.market) });
  const rounded = table.round(level);
  if (level < entry && rounded < level) return table.up(rounded);
  if (level > entry && rounded > level) return table.down(rounded);
  return rounded;
}

/**
 * A trailing stop on bars after a bar that did not fill it: its level follows the bar's close (or
 * its best price, `trailing_reference: "extreme"`), only ever towards the market.
 */
export function trail(e: EngineCore, order: EngineOrder, high: number, low: number, close: number): void {
  const selling = order.side === "sell";
  const reference = e.exitRules.trailing_reference === "close" ? close : selling ? high : low;
  const level = trailLevel(order.side, reference, order.trail_pct!);
  if (selling ? level > order.stop_price! : level < order.stop_price!) order.stop_price = level;
}

/**
 * The part of a protective order its position still has: a position closed by another order meanwhile
 * leaves it nothing (it is cancelled), one that shrank caps it.
 */
export function coverable(e: EngineCore, order: EngineOrder): number {
  const channel = e.channel(order.channel_id);
  const held = e.sleeveOf(channel, order.sleeve).positions.get(order.symbol)?.quantity ?? 0;
  const against = order.side === "sell" ? held : -held;
  return against > 0 ? against : 0;
}
