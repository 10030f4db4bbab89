import type { EngineOrder, FillData } from "./events";
import { decimalText } from "../money/exact";
import { book } from "./ledger";
import { AT_LEVEL, AT_OPEN, fillableShares, limitReach, touchReach, type Reach } from "./matching";
import { Money } from "../money/money";
import { commissionOf, hold, partCommission, release } from "./cash";
import { Fees } from "../fees/index";
import type { BarColumns } from "../strategies/strategy";
import { unfilled, ZERO, type EngineCore, type SymbolInfo } from "./runtime";
import { cancelPending } from "./cancels";
import { coverable, exitDue, levelOf, oneCancelsOther, trail } from "./exits";

/** The bar-simulated venue's fills and the booking of every fill, a venue's too (docs/trading-engine.md "Execution"). */

/** How a venue that keeps its own books booked one execution: the fee it charged for it (a decimal string). */
export interface VenueCharge {
  commission: string;
}

/**
 * Fills what the bar reaches of the orders in `symbol` placed before it, each tried once in the
 * order they were placed; whether anything filled or was rejected (an order filled in part stays
 * pending). A protective fill cancels the other orders of its OCO group, which are then not tried;
 * a trailing stop the bar did not fill trails it after (`exits.ts`).
 */
export function fillPending(e: EngineCore, symbol: string, at: number, open: number, high: number, low: number, close: number): boolean {
  let kept = 0;
  const sequence = e.sequence;
  const pending = e.pending;
  // Allocated only when a protective order fills or finds its position gone: rare next to the bars.
  let exited: EngineOrder[] | null = null;
  let orphans: EngineOrder[] | null = null;
  for (let i = 0; i < pending.length; i++) {
    const order = pending[i];
    if (order.symbol !== symbol || at < order.submitted_at || (exited !== null && inGroupOf(exited, order))) {
      pending[kept++] = order;
      continue;
    }
    const price = fillPrice(order, open, high, low);
    if (Number.isNaN(price)) {
      if (order.order_type === "trailing_stop") trail(e, order, high, low, close);
      pending[kept++] = order;
      continue;
    }
    let cover = 0;
    if (order.exit_reason !== undefined) {
      cover = coverable(e, order);
      if (cover === 0) {
        (orphans ??= []).push(order);
        pending[kept++] = order;
        continue;
      }
      if (cover < unfilled(order)) order.quantity = (order.filled ?? 0) + cover;
    }
    // Its hold goes with the fill, and what stays pending (a part left) holds again.
    release(e, order);
    if (fillOnBar(e, order, price)) {
      pending[kept++] = order;
      hold(e, order);
    }
    if (order.exit_reason !== undefined && coverable(e, order) < cover) (exited ??= []).push(order);
  }
  pending.length = kept;
  closeExits(e, orphans, exited);
  return e.sequence !== sequence;
}

/**
 * `execution.intrabar`: fills what a coarser bar (open at `at`, closing at `end`) reaches of the
 * orders in its symbol placed before it from the stored minutes inside it (`useMinutes`), in time
 * order, instead of from the bar's own open, high and low (`fillOnMinutes`). Without a stored
 * minute inside the bar its own prices decide (`fillPending`), and the bar is counted
 * (`intrabarMissing`, the result's warning) when orders were waiting on it.
 */
export function fillIntrabar(e: EngineCore, info: SymbolInfo, at: number, end: number, open: number, high: number, low: number, close: number): boolean {
  const minutes = info.minutes;
  if (minutes !== null) {
    const stamps = minutes.timestamp;
    const unit = minutes.msPerUnit;
    // Bars of a symbol come in time order, except a coarser period's after the finer bars it spans: a search, not a cursor.
    let first = 0;
    let after = stamps.length;
    while (first < after) {
      const middle = (first + after) >>> 1;
      if (stamps[middle] * unit < at) first = middle + 1;
      else after = middle;
    }
    let last = first;
    while (last < stamps.length && stamps[last] * unit < end) last++;
    if (last > first) return fillOnMinutes(e, info.symbol, at, minutes, first, last, high, low, close);
  }
  if (waiting(e, info.symbol, at)) e.intrabarMissing += 1;
  return fillPending(e, info.symbol, at, open, high, low, close);
}

/** Whether an order in `symbol` placed before the bar opening at `at` waits to be tried on it. */
function waiting(e: EngineCore, symbol: string, at: number): boolean {
  const pending = e.pending;
  for (let i = 0; i < pending.length; i++) if (pending[i].symbol === symbol && at >= pending[i].submitted_at) return true;
  return false;
}

/**
 * `fillPending` on the minutes `from` to `to - 1` of `minutes` (those inside the bar opening at
 * `at`; `high`, `low` and `close` are the bar's own): each minute tries the orders the bar tries,
 * in the order they were placed (so within one minute the priority rule decides, as within a
 * bar), and an order fills at the first minute that reaches it, at that minute's price by the
 * same matching rules (a market order at the first minute's open), stamped at that minute. As on
 * the bar itself, each order fills at most once per bar (under `max_participation` its share of
 * the bar's volume; the rest waits for later bars), and a protective fill cancels the rest of its
 * OCO group, which later minutes then do not try. A trailing stop no minute reached trails after
 * the bar by the bar's own prices (the reference rule), not minute by minute.
 */
function fillOnMinutes(e: EngineCore, symbol: string, at: number, minutes: BarColumns, from: number, to: number, high: number, low: number, close: number) {
  const sequence = e.sequence;
  const pending = e.pending;
  // Allocated per bar only when intrabar is asked and orders wait: the orders still to settle on this bar, in the order they were placed.
  const trying: EngineOrder[] = [];
  for (let i = 0; i < pending.length; i++) if (pending[i].symbol === symbol && at >= pending[i].submitted_at) trying.push(pending[i]);
  if (trying.length === 0) return false;
  let exited: EngineOrder[] | null = null;
  let orphans: EngineOrder[] | null = null;
  /** Filled whole or rejected: out of the pending orders after the bar. */
  let gone: EngineOrder[] | null = null;
  const { timestamp, open, high: highs, low: lows, msPerUnit } = minutes;
  for (let m = from; m < to && trying.length > 0; m++) {
    let left = 0;
    for (let i = 0; i < trying.length; i++) {
      const order = trying[i];
      // Its OCO partner filled: it is cancelled after the bar.
      if (exited !== null && inGroupOf(exited, order)) continue;
      const price = fillPrice(order, open[m], highs[m], lows[m]);
      if (Number.isNaN(price)) {
        trying[left++] = order;
        continue;
      }
      e.time = timestamp[m] * msPerUnit;
      let cover = 0;
      if (order.exit_reason !== undefined) {
        cover = coverable(e, order);
        if (cover === 0) {
          (orphans ??= []).push(order);
          continue;
        }
        if (cover < unfilled(order)) order.quantity = (order.filled ?? 0) + cover;
      }
      release(e, order);
      if (fillOnBar(e, order, price)) hold(e, order);
      else (gone ??= []).push(order);
      if (order.exit_reason !== undefined && coverable(e, order) < cover) (exited ??= []).push(order);
    }
    trying.length = left;
  }
  for (const order of trying) if (order.order_type === "trailing_stop" && (exited === null || !inGroupOf(exited, order))) trail(e, order, high, low, close);
  if (gone !== null) {
    const out = gone;
    let kept = 0;
    for (let i = 0; i < pending.length; i++) if (!out.includes(pending[i])) pending[kept++] = pending[i];
    pending.length = kept;
  }
  closeExits(e, orphans, exited);
  return e.sequence !== sequence;
}

/**
 * After a bar's fills: the protective orders whose position another fill closed (`orphans`) are
 * cancelled, then the OCO partners of the protective orders that filled (`exited`).
 */
function closeExits(e: EngineCore, orphans: EngineOrder[] | null, exited: EngineOrder[] | null): void {
  if (orphans !== null) cancelPending(e, (order) => orphans.includes(order), "POSITION_CLOSED: the position its protective orders guarded is closed");
  if (exited !== null) for (const filled of exited) oneCancelsOther(e, filled);
}

/** Whether `order` is a protective order of the same position (sleeve and symbol) as one of `filled`. */
const inGroupOf = (filled: readonly EngineOrder[], order: EngineOrder): boolean =>
  order.exit_reason !== undefined && filled.some((f) => f.sleeve === order.sleeve && f.symbol === order.symbol);

/**
 * Fills what the bar being fed lets `order` take at `price`: all of it, or under
 * `max_participation` its share of the bar's volume in whole lots (nothing when that is less
 * than a lot). Whether the order is still pending after.
 */
export function fillOnBar(e: EngineCore, order: EngineOrder, price: number): boolean {
  let quantity = unfilled(order);
  if (e.participation !== null) {
    // The tolerance keeps a share such as 0.29 × 100 from flooring to 28; a bar without a volume lets nothing trade.
    const share = Math.floor(e.barVolume * e.participation + 1e-9);
    quantity = fillableShares(quantity, share > 0 ? share : 0, e.info(order.symbol).lot);
    if (quantity <= 0) return true;
  }
  if (!fill(e, order, price, quantity)) return false;
  if (order.order_type === "stop" || order.order_type === "trailing_stop") order.triggered = true;
  // A whole fill keeps no running totals: only an order filled in parts has some left.
  return order.filled !== undefined && unfilled(order) > 0;
}

/**
 * Books a fill of `quantity` (the whole order unless a venue or a bar's volume filled part of it) at
 * `marketPrice` (with slippage on bars; a venue's price as it is). A fill on bars that cash
 * cannot pay is rejected; a venue's fill happened and is booked.
 */
export function fill(
  e: EngineCore,
  order: EngineOrder,
  marketPrice: number,
  quantity = order.quantity,
  venue: boolean | VenueCharge = false,
  late = false,
): boolean {
  const venueFill = venue !== false;
  const channel = e.channel(order.channel_id);
  const sleeve = e.sleeveOf(channel, order.sleeve);
  const info = e.info(order.symbol);
  const price = venueFill || e.slippage === 0 ? marketPrice : marketPrice * (order.side === "buy" ? 1 + e.slippage : 1 - e.slippage);
  const exactPrice = Money.of(price);
  // A venue that keeps its own books (the paper broker) is booked as it booked: the fee it charged.
  const charged = typeof venue === "object" ? venue : null;
  const value = exactPrice.timesInteger(quantity);
  // The cash the trade moves and its fee, by the fee domain's rules (fees/charge.ts, docs/accounts.md): its value to the cent at a broker
  // (its schedule, or a venue's own books), exact under the percent model; a part of an order (a bar's volume share) charged the schedule on the order so far, less what it was charged.
  const notional = Fees.settledValue(value, Fees.settlesInCents(e.commissionRate, charged !== null));
  const commission = charged
    ? Money.of(charged.commission)
    : Fees.chargedAsPart(e.commissionRate, quantity, order.quantity, order.filled !== undefined)
      ? partCommission(e, order, info, quantity, value)
      : commissionOf(e, info, order.side, quantity, price, exactPrice);
  const cashFlow = Fees.cashMoved(order.side, notional, commission);
  const cash = channel.cash.get(info.currency) ?? ZERO;
  const cashAfter = cash.plus(cashFlow);
  if (order.side === "buy" && cashAfter.isBelowZero() && !venueFill) {
    e.emit("order_rejected", channel.setup.channel_id, {
      order_id: order.order_id,
      symbol: order.symbol,
      side: order.side,
      quantity: order.quantity,
      reason: "INSUFFICIENT_CASH",
      message: `fill cost ${cashFlow.negated().toFixed(2)} ${info.currency} exceeds cash ${cash.toFixed(2)}`,
      values: { cost: cashFlow.negated().toFixed(2), cash: cash.toFixed(2) },
    });
    return false;
  }
  channel.cash.set(info.currency, cashAfter);
  const cashText = cashAfter.toString();
  e.refreshCash(channel, info.currency, cashText);
  const position = e.positionOf(sleeve, order.symbol);
  const signed = order.side === "buy" ? quantity : -quantity;
  const heldBefore = position.quantity !== 0;
  const booking = book(position, signed, price, cashFlow, commission, e.time);
  if (heldBefore !== (position.quantity !== 0)) info.held += heldBefore ? -1 : 1;
  const stats = channel.stats;
  stats.fees = stats.fees.plus(commission);
  if (!booking.realized.isZero()) stats.realized = stats.realized.plus(booking.realized);
  const fill: FillData & Pick<EngineOrder, "order_type" | "submitted_at" | "reason"> = {
    order_id: order.order_id,
    symbol: order.symbol,
    side: order.side,
    quantity,
    price: decimalText(price),
    commission: commission.toString(),
    currency: info.currency,
    sleeve: sleeve.key,
    order_type: order.order_type,
    submitted_at: order.submitted_at,
    reason: order.reason,
  };
  if (order.exit_reason !== undefined) {
    // A protective exit says why, at which level, and whether the market opened through it (filled at the open).
    const level = levelOf(order);
    const extra = fill as unknown as Record<string, unknown>;
    extra.exit_reason = order.exit_reason;
    extra.trigger_price = level;
    extra.gap = !venueFill && marketPrice !== level;
  }
  const id = channel.setup.channel_id;
  if (venueFill || quantity < order.quantity || order.filled !== undefined) {
    // Totals so far, for an order filled in parts.
    const filled = (order.filled ?? 0) + quantity;
    const total = Money.of(order.filled_value ?? "0").plus(value);
    const fees = Money.of(order.filled_commission ?? "0").plus(commission);
    order.filled = filled;
    order.filled_value = total.toString();
    order.filled_commission = fees.toString();
    const extra = fill as unknown as Record<string, unknown>;
    extra.filled_quantity = filled;
    extra.remaining = order.quantity - filled;
    extra.average_price = total.toDec().div(filled).toString();
    extra.total_commission = order.filled_commission;
    // Listed by the broker after the order ended there: booked, and shown as such.
    if (late) extra.late = true;
  }
  e.emit("order_filled", id, fill as unknown as Record<string, unknown>);
  e.emit("position_changed", id, {
    symbol: order.symbol,
    sleeve: sleeve.key,
    quantity: position.quantity,
    cost: position.cost.toString(),
    entry_price: position.entry_price,
    currency: info.currency,
    cash: cashText,
  });
  if (booking.closed) {
    const pnl = booking.closed.pnl;
    stats.closed_trades += 1;
    if (pnl.isAboveZero()) {
      stats.wins += 1;
      stats.gross_profit = stats.gross_profit.plus(pnl);
    } else {
      stats.losses += 1;
      stats.gross_loss = stats.gross_loss.plus(pnl.negated());
    }
    e.emit("trade_closed", id, {
      symbol: order.symbol,
      sleeve: sleeve.key,
      direction: signed < 0 ? "long" : "short",
      quantity: booking.closed.quantity,
      entry_time: booking.closed.opened_at,
      exit_time: e.time,
      entry_price: booking.closed.entry_price,
      exit_price: price,
      pnl: pnl.toString(),
      fees: booking.closed.fees.toString(),
      currency: info.currency,
      exit_reason: order.exit_reason ?? (sleeve.strategy !== null ? "signal" : "manual"),
    });
  }
  // A fill of any other order moves the position its protective orders guard.
  if (sleeve.exits !== null && order.exit_reason === undefined) exitDue(e, channel, sleeve, order.symbol);
  return true;
}

/** Execution price of a pending order on `bar` by the shared matching rules, or NaN when the bar does not reach it. */
export function fillPrice(order: EngineOrder, open: number, high: number, low: number): number {
  const buying = order.side === "buy";
  switch (order.order_type) {
    case "market":
      return open;
    case "limit": {
      const limit = order.limit_price!;
      return priceAt(limitReach(buying, limit, open, high, low), open, limit);
    }
    case "stop":
    case "trailing_stop": {
      // A buy stop triggers on a rise, a sell stop on a fall; both then trade as market orders at the touch.
      if (order.triggered) return open;
      const stop = order.stop_price!;
      return priceAt(touchReach(buying, stop, open, high, low), open, stop);
    }
  }
}

const priceAt = (reach: Reach, open: number, level: number): number => (reach === AT_OPEN ? open : reach === AT_LEVEL ? level : NaN);
