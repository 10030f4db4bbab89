import { Fees } from "../fees/index";
import type { OrderSide, EngineOrder } from "./events";
import { ESTIMATE_TOLERANCE, surely } from "../money/exact";
import { exchangeDay } from "./days";
import { Money } from "../money/money";
import type { Market } from "../market/market";
import { unfilled, ZERO, type ChannelRuntime, type EngineCore, type HoldBucket, type OrderRequest, type Sleeve, type SymbolInfo } from "./runtime";

/** A channel's cash: what pending buys promise, what is free, what an entry may size to, and what a fill costs in commission, asked of the fee domain's `fees/charge.ts` with the engine's clock and memo (docs/trading-engine.md "Numbers", "Execution"). */

/** The one estimate object `freeCashEstimate` fills (nothing is allocated per call). */
const ESTIMATE = { free: 0, scale: 0 };

/**
 * floor(fraction × weight × free cash / price / lot) × lot, in exact arithmetic. A float64
 * estimate answers when it lies clearly inside one whole lot count; otherwise (and whenever
 * the estimate is near zero free cash) decimal.js decides, so the answer is always the exact one.
 */
export function entryQuantity(e: EngineCore, channel: ChannelRuntime, sleeve: Sleeve, symbol: string, strength: number, price: number): number {
  const info = e.info(symbol);
  if (!(price > 0)) return 0;
  const { free: freeEstimate, scale } = freeCashEstimate(e, channel, info.currency);
  const tolerance = scale * ESTIMATE_TOLERANCE;
  const sign = surely(freeEstimate, 0, tolerance);
  if (sign < 0) return 0;
  if (sign > 0) {
    const factor = e.fractionNumber * sleeve.weight * strength;
    const lots = (freeEstimate * factor) / price / info.lot;
    const slack = (tolerance * factor) / price / info.lot + Math.abs(lots) * ESTIMATE_TOLERANCE;
    const low = Math.floor(lots - slack);
    if (low === Math.floor(lots + slack)) return low * info.lot;
  }
  const free = freeCash(e, channel, info.currency).toDec();
  if (free.lte(0)) return 0;
  let budget = free.times(e.fraction);
  if (sleeve.weight !== 1) budget = budget.times(sleeve.weight);
  if (strength !== 1) budget = budget.times(strength);
  return budget.div(price).div(info.lot).floor().times(info.lot).toNumber();
}

/**
 * `freeCash` as a float64 estimate, and the sum of the magnitudes that went into it: the
 * estimate is within `scale × ESTIMATE_TOLERANCE` of the exact amount.
 */
export function freeCashEstimate(e: EngineCore, channel: ChannelRuntime, currency: string): { free: number; scale: number } {
  const cash = channel.cash_numbers.get(currency) ?? 0;
  let free = cash;
  let scale = Math.abs(cash);
  for (const bucket of countedBuckets(e, channel.setup.channel_id)) {
    if (bucket.currency !== currency) continue;
    if (Number.isNaN(bucket.number)) bucket.number = bucket.total.toNumber();
    free -= bucket.number;
    scale += Math.abs(bucket.number);
    for (const order of bucket.floating) {
      // What is still to fill (a venue or a bar's volume may have filled part of it, already paid), with its commission.
      const price = lastOf(e, order.symbol);
      const notional = price * unfilled(order);
      const promised =
        notional +
        (e.commissionRate !== null ? notional * e.commissionRateNumber : holdFees(e, order, e.info(order.symbol), unfilled(order), price).toNumber());
      free -= promised;
      scale += Math.abs(promised);
    }
  }
  ESTIMATE.free = free;
  ESTIMATE.scale = scale;
  return ESTIMATE;
}

/**
 * Cash of a currency not yet promised to pending buys: what each has still to fill at its
 * reference price, and the commission that would cost (the paper broker holds the same for its
 * working buys: docs/paper-broker.md). The buys with a price of their own are a running total
 * (`hold`); those priced at the last close are priced now.
 */
export function freeCash(e: EngineCore, channel: ChannelRuntime, currency: string): Money {
  let free = channel.cash.get(currency) ?? ZERO;
  for (const bucket of countedBuckets(e, channel.setup.channel_id)) {
    if (bucket.currency !== currency) continue;
    if (!bucket.total.isZero()) free = free.minus(bucket.total);
    for (const order of bucket.floating) free = free.minus(heldBy(e, order, e.info(order.symbol), lastOf(e, order.symbol)));
  }
  return free;
}

/** What a pending buy holds at `price`: what it has still to fill, and the commission that would cost. */
export function heldBy(e: EngineCore, order: EngineOrder, info: SymbolInfo, price: number): Money {
  const exactPrice = Money.of(price);
  const quantity = unfilled(order);
  return exactPrice.timesInteger(quantity).plus(holdFees(e, order, info, quantity, price, exactPrice));
}

/**
 * `order` rests, or changed while resting (filled in part, replaced): its hold replaces the one it
 * had. Every change of a pending order calls it (or `release` when the order leaves), so the
 * totals stay what walking the pending buys would give. A sell holds no cash.
 */
export function hold(e: EngineCore, order: EngineOrder): void {
  const holds = e.holds;
  if (!holds.counted) return;
  release(e, order);
  if (order.side !== "buy") return;
  const info = e.info(order.symbol);
  const bucket = bucketOf(e, order.channel_id, info);
  if (bucket.day !== feeDay(e, info.market)) {
    // The schedule prices by a later date now: the next question counts every hold again.
    holds.counted = false;
    return;
  }
  const price = order.limit_price ?? order.stop_price;
  if (price == null) {
    bucket.floating.add(order);
    holds.byOrder.set(order, { bucket, amount: null });
    return;
  }
  const amount = heldBy(e, order, info, price);
  bucket.total = bucket.total.plus(amount);
  bucket.number = NaN;
  holds.byOrder.set(order, { bucket, amount });
}

/** `order` leaves the pending orders, or is about to change: its hold is taken off. */
export function release(e: EngineCore, order: EngineOrder): void {
  const holds = e.holds;
  const held = holds.counted ? holds.byOrder.get(order) : undefined;
  if (!held) return;
  holds.byOrder.delete(order);
  if (held.amount === null) held.bucket.floating.delete(order);
  else {
    held.bucket.total = held.bucket.total.minus(held.amount);
    held.bucket.number = NaN;
  }
}

/** The pending orders changed wholesale (a restore): the next question counts their holds. */
export function recountHolds(e: EngineCore): void {
  e.holds.counted = false;
}

const NO_BUCKETS: readonly HoldBucket[] = [];

/** The channel's hold buckets, each of the day its schedule prices by now (counted again from the pending orders when one is not). */
function countedBuckets(e: EngineCore, channelId: string): readonly HoldBucket[] {
  const holds = e.holds;
  if (holds.counted) {
    const buckets = holds.byChannel.get(channelId);
    if (!buckets) return NO_BUCKETS;
    if (buckets.every((bucket) => bucket.day === feeDay(e, bucket.market))) return buckets;
  }
  holds.byOrder.clear();
  holds.byChannel.clear();
  holds.counted = true;
  for (const order of e.pending) hold(e, order);
  return holds.byChannel.get(channelId) ?? NO_BUCKETS;
}

function bucketOf(e: EngineCore, channelId: string, info: SymbolInfo): HoldBucket {
  let buckets = e.holds.byChannel.get(channelId);
  if (!buckets) e.holds.byChannel.set(channelId, (buckets = []));
  let bucket = buckets.find((candidate) => candidate.market === info.market);
  if (!bucket) {
    bucket = { market: info.market, currency: info.currency, day: feeDay(e, info.market), total: ZERO, number: 0, floating: new Set() };
    buckets.push(bucket);
  }
  return bucket;
}

/** The exchange day a hold's commission is priced on: the broker's schedule prices by the trade date; the percent model and markets without a schedule do not (0). */
function feeDay(e: EngineCore, market: Market): number {
  return scheduled(e, market) ? exchangeDay(e, market) : 0;
}

/** Whether the broker's schedule prices a trade in `market` (`Fees.feeModel`): only then is the exchange date asked of the clock. */
const scheduled = (e: EngineCore, market: Market): boolean => Fees.feeModel(e.commissionRate, e.setup.fees, market) === "schedule";

export function referencePrice(e: EngineCore, request: OrderRequest): number {
  return request.price ?? lastOf(e, request.symbol);
}

/** The last close seen of a symbol, 0 before its first bar. */
export function lastOf(e: EngineCore, symbol: string): number {
  const last = e.info(symbol).last;
  return Number.isNaN(last) ? 0 : last;
}

/**
 * Whether free cash surely covers buying `quantity` at `price` with its commission, judged
 * from float64 estimates (false also when it is too close to tell: then exact arithmetic decides).
 * The percent model's commission is estimated; the broker's schedule has minimums and
 * roundings, so it is only skipped when nothing is bought.
 */
export function coversEstimate(e: EngineCore, channel: ChannelRuntime, info: SymbolInfo, quantity: number, price: number): boolean {
  if (e.commissionRate === null && quantity > 0) return false;
  const notional = price * quantity;
  const cost = notional * (1 + e.commissionRateNumber);
  const { free, scale } = freeCashEstimate(e, channel, info.currency);
  return surely(free, cost, (scale + notional * 2) * ESTIMATE_TOLERANCE) > 0;
}

/**
 * The fee part of what a pending buy holds: what the whole order would cost beyond what it was
 * charged so far (its remaining `quantity` at `price`, worth `value`), by the rule a fill of it
 * would be charged (`Fees.chargedAsPart`). The paper broker holds a working buy's fees by the same
 * rule (docs/paper-broker.md "Holds").
 */
function holdFees(e: EngineCore, order: EngineOrder, info: SymbolInfo, quantity: number, price: number, exactPrice?: Money): Money {
  if (!Fees.chargedAsPart(e.commissionRate, quantity, order.quantity, order.filled !== undefined))
    return commissionOf(e, info, "buy", quantity, price, exactPrice);
  return partCommission(e, order, info, quantity, (exactPrice ?? Money.of(price)).timesInteger(quantity));
}

/**
 * The fee of a whole order of `quantity` at `price` (`Fees.orderFee`: the percent model's rate, or
 * the broker's schedule on the exchange date, with the engine's memo of the last fee asked).
 * `exactPrice` is `Money.of(price)` when the caller has it already.
 */
export function commissionOf(e: EngineCore, info: SymbolInfo, side: OrderSide, quantity: number, price: number, exactPrice?: Money): Money {
  const day = quantity > 0 ? feeDay(e, info.market) : 0;
  return Fees.orderFee(e.commissionRate, e.setup.fees, info.market, side, quantity, price, exactPrice, day, e.tradeDate.iso, e.feeMemo);
}

/** The broker schedule's charge for a part of `order` worth `notional` (`Fees.partFee`: the schedule on the order so far, less what it was charged). */
export function partCommission(e: EngineCore, order: EngineOrder, info: SymbolInfo, quantity: number, notional: Money): Money {
  if (!scheduled(e, info.market)) return ZERO;
  exchangeDay(e, info.market);
  const executed = Money.of((order.filled ?? 0) + quantity);
  const value = Money.of(order.filled_value ?? "0").plus(notional);
  return Fees.partFee(e.setup.fees, info.market, order.side, executed, value, Money.of(order.filled_commission ?? "0"), e.tradeDate.iso);
}
