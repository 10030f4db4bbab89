import { tickTableFor } from "../market/tick-size";
import { cancelPending } from "./cancels";
import { hold, release } from "./cash";
import { exchangeDay } from "./days";
import type { EngineOrder, EngineOrderType, ExitReason } from "./events";
import type { ProtectiveExits } from "./setup";
import type { ChannelRuntime, EngineCore, Sleeve } from "./runtime";

/**
 * Protective exits (docs/trading-engine.md "Protective exits"; ENGINE.md §6b): when an entry fills,
 * the position gets the orders its strategy's exits ask for, a stop at `stop_loss_pct` from the
 * entry price, a target at `take_profit_pct`, a trailing stop at `trailing_stop_pct`. The orders
 * of one position are one OCO group: the first to fill cancels the others. The close does not
 * expire them. On bars they are tried from the bar after the one that filled the entry
 * (`submitted_at` is that bar's close), in the order they were placed, by the reference engine's
 * rules (`shared/reference/backtest/EXITS.md`). At a broker, which holds a position's shares for
 * one selling order at a time, one of them rests there and the engine watches the others.
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

/** Whether an order is a protective order of the position of `sleeveKey` in `symbol`. */
export const protecting = (order: EngineOrder, sleeveKey: string, symbol: string): boolean =>
  order.exit_reason !== undefined && order.sleeve === sleeveKey && order.symbol === symbol;

/**
 * Brings the protective orders of each position a fill, a signal or an order's end touched in
 * line, at `at` (the close of the bar, or a broker's report time) with `close` the reference of a
 * new trailing stop on bars (NaN at a broker: the entry price then): a flat position's orders are
 * cancelled, and so are those of a position another of its sleeve's orders is closing; a position
 * that grew (a new average entry price) gets a new set for its whole quantity; on bars one that
 * shrank keeps its levels for the smaller quantity, at a broker it gets a new set at the same
 * levels (a trailing stop from as far as it had trailed); a position without its orders gets them.
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
    // An order of the sleeve's own is closing the position (a strategy's exit, a sale by hand): no protective orders beside it.
    if (
      e.pending.some(
        (order) => order.exit_reason === undefined && order.sleeve === sleeve.key && order.symbol === symbol && order.side === side && !order.cancel_requested,
      )
    ) {
      if (current.length > 0) cancelExits(e, current, "EXIT_BY_ORDER: another order of the position is closing it");
      continue;
    }
    const quantity = Math.abs(held);
    const entry = position!.entry_price;
    const sameLevels = current.length > 0 && current.every((order) => order.side === side && order.basis === entry);
    if (sameLevels && current.every((order) => order.quantity - (order.filled ?? 0) === quantity)) continue;
    if (sameLevels && e.barFills) {
      for (const order of current) resize(e, order, quantity);
      continue;
    }
    const trailed = sameLevels ? (current.find((order) => order.order_type === "trailing_stop")?.stop_price ?? null) : null;
    if (current.length > 0) cancelExits(e, current, "POSITION_CHANGED: replaced by protective orders for the position as it is now");
    placeExits(e, channel, sleeve, symbol, side, quantity, entry, close, trailed);
  }
  due.length = 0;
  e.time = time > e.time ? time : e.time;
}

/** A protective order on bars keeps its level for what is left of its position (`order_replaced`). */
function resize(e: EngineCore, order: EngineOrder, quantity: number) {
  const previous = order.quantity;
  if (previous - (order.filled ?? 0) === quantity) return;
  release(e, order);
  order.quantity = (order.filled ?? 0) + quantity;
  hold(e, order);
  e.emit("order_replaced", order.channel_id, {
    order_id: order.order_id,
    symbol: order.symbol,
    quantity: order.quantity,
    limit_price: order.limit_price,
    stop_price: order.stop_price,
    previous_quantity: previous,
    previous_price: levelOf(order),
  });
}

/** A protective order filled: the other orders of its OCO group (its position's) are cancelled, or asked to cancel at a broker. */
export function oneCancelsOther(e: EngineCore, filled: EngineOrder): void {
  cancelPending(
    e,
    (order) => order !== filled && protecting(order, filled.sleeve, filled.symbol),
    `ONE_CANCELS_OTHER: ${filled.exit_reason} order ${filled.order_id} filled`,
  );
}

/** The level an order waits for: its limit, else its stop (a trailing stop's current level). */
export const levelOf = (order: EngineOrder): number => order.limit_price ?? order.stop_price!;

function cancelExits(e: EngineCore, orders: EngineOrder[], reason: string) {
  const ids = new Set(orders.map((order) => order.order_id));
  cancelPending(e, (order) => ids.has(order.order_id), reason);
}

/**
 * The protective orders of a position, in the order `execution.exits.priority` tries them. At a
 * broker the stop (else the target) rests there and the others are watched (`watchExits`); a
 * trailing stop is always watched (LongPort's trailing orders are limit orders, which a gap can leave unfilled).
 */
function placeExits(
  e: EngineCore,
  channel: ChannelRuntime,
  sleeve: Sleeve,
  symbol: string,
  side: "buy" | "sell",
  quantity: number,
  entry: number,
  close: number,
  trailed: number | null,
) {
  const exits = sleeve.exits!;
  // A long's stop is below its entry and its target above; a short's the other way round.
  const down = side === "sell" ? -1 : 1;
  const stop = exits.stop_loss_pct;
  const target = exits.take_profit_pct;
  const trail = exits.trailing_stop_pct;
  const broker = !e.barFills;
  const put = (type: EngineOrderType, reason: ExitReason, level: number, pct: number, watch: boolean) =>
    place(e, { channel, sleeve, symbol, side, quantity, type, reason, level, entry, pct, watch });
  const stopOrder = () => stop !== null && put("stop", "stop_loss", entry * (1 + down * stop), stop, false);
  const targetOrder = () => target !== null && put("limit", "take_profit", entry * (1 - down * target), target, broker && stop !== null);
  if (e.exitRules.priority === "take_profit") {
    targetOrder();
    stopOrder();
  } else {
    stopOrder();
    targetOrder();
  }
  if (trail !== null) {
    // On bars the trail starts from the close of the entry's bar (the reference engine's rule); a broker's from the entry.
    const fresh = trailLevel(side, Number.isNaN(close) ? entry : close, trail);
    const level = trailed === null ? fresh : side === "sell" ? Math.max(trailed, fresh) : Math.min(trailed, fresh);
    put("trailing_stop", "trailing_stop", level, trail, broker);
  }
}

/** A trailing stop's level `pct` from `reference`, computed as the reference engine does (`c - c*p`). */
export const trailLevel = (side: "buy" | "sell", reference: number, pct: number): number =>
  side === "sell" ? reference - reference * pct : reference + reference * pct;

const WHAT: Record<ExitReason, string> = { stop_loss: "stop loss", take_profit: "take profit", trailing_stop: "trailing stop" };

interface Placement {
  channel: ChannelRuntime;
  sleeve: Sleeve;
  symbol: string;
  side: "buy" | "sell";
  quantity: number;
  type: EngineOrderType;
  reason: ExitReason;
  level: number;
  entry: number;
  pct: number;
  /** Watched by the engine at a broker, not sent until reached. */
  watch: boolean;
}

function place(e: EngineCore, p: Placement) {
  // On bars a level is the plain product (as the reference engine's); an order resting at a broker is on its tick grid, rounded towards the entry.
  const price = e.barFills || p.watch ? p.level : towardEntry(e, p.symbol, p.level, p.entry);
  e.orderCounter += 1;
  const order: EngineOrder = {
    order_id: `${e.setup.session_id}-${e.orderCounter}`,
    channel_id: p.channel.setup.channel_id,
    sleeve: p.sleeve.key,
    symbol: p.symbol,
    side: p.side,
    order_type: p.type,
    quantity: p.quantity,
    limit_price: p.type === "limit" ? price : null,
    stop_price: p.type === "limit" ? null : price,
    submitted_at: e.time,
    reason: `${p.reason}: ${WHAT[p.reason]} ${p.pct * 100}% from ${p.type === "trailing_stop" ? "the best price since entry" : `the entry price ${p.entry}`}`,
    exit_reason: p.reason,
    basis: p.entry,
    ...(p.type === "trailing_stop" ? { trail_pct: p.pct } : {}),
    ...(p.watch ? { watch: true } : {}),
  };
  p.channel.stats.orders += 1;
  e.emit("order_submitted", order.channel_id, { ...order });
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
 * A trailing stop after a bar that did not reach it: its level follows the bar's close (or its
 * best price, `trailing_reference: "extreme"`), only ever towards the market.
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

/**
 * At a broker, the watched protective orders of `symbol` on a bar the session was fed (placed
 * before it): one whose level the bar reaches goes to the broker as a market order
 * (`order_replaced`), and the others of its position are asked to cancel; a trailing stop the bar
 * does not reach trails it.
 */
export function watchExits(e: EngineCore, symbol: string, at: number, high: number, low: number, close: number): void {
  const pending = e.pending;
  for (let i = 0; i < pending.length; i++) {
    const order = pending[i];
    if (order.watch !== true || order.symbol !== symbol || at < order.submitted_at || order.cancel_requested) continue;
    const buying = order.side === "buy";
    const level = levelOf(order);
    // A stop (trailing or not) is reached on the way against the position, a target on the way for it.
    const reached = order.order_type === "limit" ? (buying ? low <= level : high >= level) : buying ? high >= level : low <= level;
    if (!reached) {
      if (order.order_type === "trailing_stop") trail(e, order, high, low, close);
      continue;
    }
    const was = order.order_type === "limit" ? "target" : "stop";
    delete order.watch;
    release(e, order);
    order.order_type = "market";
    hold(e, order);
    e.emit("order_replaced", order.channel_id, {
      order_id: order.order_id,
      symbol,
      quantity: order.quantity,
      order_type: "market",
      limit_price: order.limit_price,
      stop_price: order.stop_price,
      previous_quantity: order.quantity,
      previous_price: level,
      reason: `${order.exit_reason}: a bar reached its ${was} ${level}; sent to the broker as a market order`,
    });
    oneCancelsOther(e, order);
  }
}
