import { Fees } from "../fees/index";
import { Money } from "../money/money";
import { adjustmentOf, closeSleeve, freeCash, freeShares, holdChanged, newAccount, sleeveOf } from "./account-rules";
import type { FeeConfig, TradingFee } from "../fees/index";
import { Dec, money } from "../money/decimal";
import type { TickTable } from "../market/tick-size";
import type { OrderStatus } from "../provider/order-types";
import type { Depth } from "../provider/quote-types";
import { sweepLevels } from "./matching";
import { bookFill } from "./fill-booking";
import { editCash, editHolding, heldCash } from "./hand-edits";
import { affordable, feeOf, reservationOf, type Reservation } from "./order-costs";
import { matchMinute } from "./minute-matching";
import type { MinuteBar, PaperAccount, PaperAdjustment, PaperCurrency, PaperExecution, PaperOrder, PaperPosition, PaperSleeve } from "./types";
import { iso } from "../util/time";

const ZERO = new Dec(0);

// An order keeps its first step and its latest ones, so an order filled in thousands of pieces
// stays far below DynamoDB's item size; every fill is also its own execution item.
const HISTORY_LIMIT = 200;
// Working orders whose state did not change are re-saved at most this often, so a look at the
// account does not write every order while long-lived ones need not be re-matched from afar.
const MATCHED_UNTIL_SAVE_MS = 3_600_000;

/** What the book needs besides the account: the fee schedule, "now", and each order's tick grid. */
export interface PaperBookOptions {
  fees: FeeConfig;
  now: number;
  tickTable: (order: PaperOrder, at: number) => TickTable;
}

/** Writes a book has ready for the store. */
export interface BookChanges {
  account: PaperAccount;
  orders: PaperOrder[];
  /** Ids among `orders` that are new (written only if absent). */
  newOrderIds: string[];
  executions: PaperExecution[];
  adjustments: PaperAdjustment[];
}

/**
 * The in-memory working copy of one account during one operation: its cash, holdings and the
 * orders touched. Every mutation of an order goes through here, so cash, frozen cash, holdings,
 * fills and fees always move together; the caller writes `changes()` in one transaction.
 */
export class PaperBook {
  private readonly orders = new Map<string, PaperOrder>();
  private readonly changed = new Set<string>();
  private readonly created = new Set<string>();
  private readonly savedMatchedUntil = new Map<string, number>();
  private executions: PaperExecution[] = [];
  private adjustments: PaperAdjustment[] = [];
  private accountChanged: boolean;

  constructor(
    readonly account: PaperAccount,
    working: PaperOrder[],
    private readonly options: PaperBookOptions,
    /** Whether the account is already stored (else the first write creates it). */
    readonly stored: boolean,
  ) {
    this.accountChanged = !stored;
    for (const order of working) {
      this.orders.set(order.order_id, order);
      this.savedMatchedUntil.set(order.order_id, order.matched_until);
    }
  }

  /** A new account holding `initialCash` per currency. */
  static open(accountId: string, initialCash: Record<PaperCurrency, string>, options: PaperBookOptions): PaperBook {
    const { account, opened } = newAccount(accountId, initialCash, options.now);
    const book = new PaperBook(account, [], options, false);
    book.adjustments.push(opened);
    return book;
  }

  get now(): number {
    return this.options.now;
  }

  /** An order known to this operation (working orders are loaded with the account). */
  order(orderId: string): PaperOrder | undefined {
    return this.orders.get(orderId);
  }

  /** Brings a stored (final) order into the book so it can be shown or refused consistently. */
  adopt(order: PaperOrder): PaperOrder {
    const known = this.orders.get(order.order_id);
    if (known) return known;
    this.orders.set(order.order_id, order);
    return order;
  }

  /** Working orders, oldest first. */
  workingOrders(): PaperOrder[] {
    return this.account.working.map((id) => this.orders.get(id)).filter((order): order is PaperOrder => order !== undefined);
  }

  /** Cash free for new buys, of the account or of a session's sleeve (`account-rules.ts`). */
  available(currency: PaperCurrency, sleeve?: string): Dec {
    return freeCash(this.account, currency, sleeve);
  }

  /** Shares not promised to working sells, of the account or of a session's sleeve. */
  positionAvailable(symbol: string, sleeve?: string): Dec {
    return freeShares(this.account, symbol, sleeve);
  }

  /** A running session's sleeve; a refusal when the session has none in this account. */
  sleeve(sessionId: string): PaperSleeve {
    return sleeveOf(this.account, sessionId);
  }

  /** Dissolves a session's sleeve: its cash is free again, its shares stay in the holdings. Undefined when it had none. */
  closeSleeve(sessionId: string): PaperSleeve | undefined {
    const part = closeSleeve(this.account, sessionId);
    if (part) this.accountChanged = true;
    return part;
  }

  /** Cash held away from the account's free use in a currency: by its own working buys and by the sleeves. */
  held(currency: PaperCurrency): Dec {
    return heldCash(this.account, currency);
  }

  /** Sets a currency's cash (a deposit or withdrawal, recorded). Refused (409 `CASH_HELD`) below what open orders and running sessions hold (`hand-edits.ts`). */
  setCash(currency: PaperCurrency, amount: Dec, note: string): void {
    const delta = editCash(this.account, currency, amount);
    if (delta.isZero()) return;
    this.accountChanged = true;
    this.record(delta.gt(0) ? "deposit" : "withdrawal", { [currency]: money(delta) }, note);
  }

  /** Sets a holding by hand (recorded): `quantity` shares at a cost basis of `cost` (0 removes it). Refused (409 `SHARES_HELD`) below what is held (`hand-edits.ts`). */
  setHolding(template: Pick<PaperPosition, "symbol" | "symbol_name" | "market" | "currency">, quantity: Dec, cost: Dec, note: string): void {
    const holding = editHolding(this.account, template, quantity, cost, this.now);
    this.accountChanged = true;
    this.record("holding", {}, note, holding);
  }

  /** Records a change that is not a trade (stored with the account's next write). */
  record(kind: PaperAdjustment["kind"], cash: PaperAdjustment["cash"], note: string, holding?: PaperAdjustment["holding"]): void {
    this.adjustments.push(adjustmentOf(this.account, kind, cash, note, this.now, this.adjustments.length + 1, holding));
    this.accountChanged = true;
  }

  /** What an order that has executed `quantity` shares worth `value` in all is charged (`order-costs.ts`). */
  feeFor(order: Pick<PaperOrder, "side" | "market">, quantity: Dec, value: Dec, at: number): { total: Dec; details: TradingFee | null } {
    return feeOf(this.options.fees, order, quantity, value, at);
  }

  /** Cash a buy order must hold for its remaining shares, fees included (`order-costs.ts`). */
  reservationOf(order: PaperOrder): Reservation {
    return reservationOf(this.options.fees, this.now, order);
  }

  /** Takes a new order: holds its cash (buys) or shares (sells) and lists it as working. Funds are checked by the caller. */
  accept(order: PaperOrder): void {
    order.status = "NewStatus";
    order.history = [this.step(order, "NewStatus", "", this.now)];
    this.orders.set(order.order_id, order);
    this.created.add(order.order_id);
    this.account.working.push(order.order_id);
    this.savedMatchedUntil.set(order.order_id, order.matched_until);
    this.settle(order);
    this.touch(order);
  }

  /** Records an order refused at submission: it holds nothing and never works. */
  recordRejected(order: PaperOrder, msg: string): void {
    order.status = "RejectedStatus";
    order.phase = "done";
    order.msg = msg;
    order.history = [this.step(order, "RejectedStatus", msg, this.now)];
    this.orders.set(order.order_id, order);
    this.created.add(order.order_id);
    this.touch(order);
  }

  /**
   * Fills up to `wanted` shares at `price`. Buys fill only what the account can pay for (an
   * order reserved below its eventual price, such as a market-if-touched order that gapped,
   * may fill less). Returns the shares filled.
   */
  fill(order: PaperOrder, wanted: Dec, price: Dec, at: number): Dec {
    if (order.phase === "done") return ZERO;
    const quantity = order.side === "Buy" ? affordable(this.options.fees, this.now, this.account, order, wanted, price, at) : wanted;
    if (quantity.lte(0)) return ZERO;
    const exact = quantity.times(price);
    const amount = Fees.settledValue(Money.fromDec(exact), true).toDec();
    order.executed_quantity = new Dec(order.executed_quantity).plus(quantity).toFixed();
    order.executed_amount = new Dec(order.executed_amount).plus(exact).toFixed();
    const fee = this.feeFor(order, new Dec(order.executed_quantity), new Dec(order.executed_amount), at);
    const feeDelta = fee.total.minus(order.fees_charged);
    order.fees_charged = money(fee.total);
    order.fee_details = fee.details;
    bookFill(this.account, order, quantity, price, amount, feeDelta, at);
    this.accountChanged = true;

    order.fills += 1;
    order.last_done = price.toFixed();
    order.updated_at = iso(at);
    const done = new Dec(order.executed_quantity).gte(order.quantity);
    order.status = done ? "FilledStatus" : "PartialFilledStatus";
    this.pushHistory(order, { price: price.toFixed(), quantity: quantity.toFixed(), status: order.status, msg: "", time: iso(at) });
    this.executions.push({
      account_id: order.account_id,
      order_id: order.order_id,
      trade_id: `${order.order_id}-${order.fills}`,
      symbol: order.symbol,
      trade_done_at: iso(at),
      quantity: quantity.toFixed(),
      price: price.toFixed(),
      market: order.market,
      side: order.side,
      done_ms: at,
      amount: money(amount),
    });
    if (done) this.retire(order);
    this.settle(order);
    this.dropEmptyPosition(order.symbol);
    this.touch(order);
    return quantity;
  }

  /** Ends a working order (cancelled, withdrawn, expired, rejected) and releases what it held. */
  finish(order: PaperOrder, status: OrderStatus, msg: string, at: number): void {
    if (order.phase === "done") return;
    order.status = status;
    order.msg = msg;
    order.updated_at = iso(at);
    this.pushHistory(order, this.step(order, status, msg, at));
    this.retire(order);
    this.settle(order);
    this.dropEmptyPosition(order.symbol);
    this.touch(order);
  }

  /** Ends a working order's remainder: withdrawn after a partial fill, else `status` (cancelled or rejected). */
  withdraw(order: PaperOrder, msg: string, at: number, unfilled: OrderStatus = "CanceledStatus"): void {
    this.finish(order, new Dec(order.executed_quantity).gt(0) ? "PartialWithdrawal" : unfilled, msg, at);
  }

  /** Applies new terms to a working order (checked by the caller) and re-holds cash or shares for them. */
  replace(order: PaperOrder, terms: Partial<PaperOrder>, at: number): void {
    Object.assign(order, terms);
    order.status = new Dec(order.executed_quantity).gt(0) ? "PartialFilledStatus" : "ReplacedStatus";
    order.updated_at = iso(at);
    this.pushHistory(order, this.step(order, "ReplacedStatus", "", at));
    this.settle(order);
    this.touch(order);
  }

  /** Takes displayed book levels best first (at most `maxLevels`, within `limit` when given). */
  sweep(order: PaperOrder, levels: readonly Depth[], maxLevels: number, limit: Dec | null, at: number): void {
    const remaining = new Dec(order.quantity).minus(order.executed_quantity);
    for (const level of sweepLevels(order.side, levels, remaining, limit, maxLevels)) {
      if (this.fill(order, level.quantity, level.price, at).lt(level.quantity)) break;
    }
  }

  /** Marks a conditional order as triggered. */
  release(order: PaperOrder, at: number): void {
    order.trigger_status = "RELEASED";
    order.trigger_at = iso(at);
    order.updated_at = iso(at);
    this.touch(order);
  }

  /** Matches a working order against one completed minute of its market (`minute-matching.ts`). */
  matchBar(order: PaperOrder, bar: MinuteBar): void {
    matchMinute(this, order, bar);
  }

  /** The tick grid of an order's symbol on the trade date of `at`. */
  tickTable(order: PaperOrder, at: number): TickTable {
    return this.options.tickTable(order, at);
  }

  /** Ends a `Day`/`GTD` order at its expiry. */
  expire(order: PaperOrder): void {
    const at = order.expires_at ?? this.now;
    this.finish(order, "ExpiredStatus", `time_in_force=${order.time_in_force} ended at ${iso(at)}`, at);
  }

  /**
   * After matching up to `now`: working orders are matched through `now`; those that changed,
   * or were last saved long ago, are written.
   */
  matchedThrough(now: number): void {
    for (const order of this.workingOrders()) {
      // A clock moved backwards (tests, replays) must not make minutes already matched count twice.
      order.matched_until = Math.max(order.matched_until, now);
      if (now - (this.savedMatchedUntil.get(order.order_id) ?? 0) >= MATCHED_UNTIL_SAVE_MS) this.touch(order);
    }
  }

  /** How many items the next write holds (orders and executions; the account adds one). */
  pendingItems(): number {
    return this.changed.size + this.executions.length;
  }

  hasChanges(): boolean {
    return this.accountChanged || this.changed.size > 0 || this.executions.length > 0 || this.adjustments.length > 0;
  }

  /** The writes to make, the account stamped with its next version. */
  changes(): BookChanges {
    const orders = [...this.changed].map((id) => this.orders.get(id)!);
    return {
      account: { ...this.account, version: this.account.version + 1, updated_at: iso(this.now) },
      orders,
      newOrderIds: orders.filter((o) => this.created.has(o.order_id)).map((o) => o.order_id),
      executions: [...this.executions],
      adjustments: [...this.adjustments],
    };
  }

  /** Called once `changes()` is stored. */
  committed(written: BookChanges): void {
    this.account.version = written.account.version;
    this.account.updated_at = written.account.updated_at;
    for (const order of written.orders) {
      this.savedMatchedUntil.set(order.order_id, order.matched_until);
      this.created.delete(order.order_id);
    }
    this.changed.clear();
    this.executions = [];
    this.adjustments = [];
    this.accountChanged = false;
  }

  /** Brings the cash (buys) and shares (sells) an order holds in line with its remaining quantity. */
  private settle(order: PaperOrder): void {
    const line = this.account.cash[order.currency];
    const next = reservationOf(this.options.fees, this.now, order);
    const hold = order.side === "Sell" && order.phase !== "done" ? new Dec(order.quantity).minus(order.executed_quantity) : ZERO;
    holdChanged(this.account, order, next.cash.minus(order.frozen_cash), hold.minus(order.frozen_quantity));
    line.frozen = money(new Dec(line.frozen).plus(next.cash).minus(order.frozen_cash));
    line.frozen_fees = money(new Dec(line.frozen_fees).plus(next.fees).minus(order.frozen_fees));
    order.frozen_cash = money(next.cash);
    order.frozen_fees = money(next.fees);
    const position = this.account.positions[order.symbol];
    if (position) position.frozen = new Dec(position.frozen).plus(hold).minus(order.frozen_quantity).toFixed();
    order.frozen_quantity = hold.toFixed();
    this.accountChanged = true;
  }

  private retire(order: PaperOrder): void {
    order.phase = "done";
    this.account.working = this.account.working.filter((id) => id !== order.order_id);
    this.accountChanged = true;
  }

  private dropEmptyPosition(symbol: string): void {
    const position = this.account.positions[symbol];
    if (position && new Dec(position.quantity).isZero() && new Dec(position.frozen).isZero()) delete this.account.positions[symbol];
  }

  private step(order: PaperOrder, status: OrderStatus, msg: string, at: number) {
    return {
      price: order.price ?? order.last_done ?? "0",
      quantity: new Dec(order.quantity).minus(order.executed_quantity).toFixed(),
      status,
      msg,
      time: iso(at),
    };
  }

  private pushHistory(order: PaperOrder, entry: PaperOrder["history"][number]): void {
    order.history.push(entry);
    if (order.history.length > HISTORY_LIMIT) order.history.splice(1, order.history.length - HISTORY_LIMIT);
  }

  /** Marks an order as changed: it is written with the account. */
  touch(order: PaperOrder): void {
    this.changed.add(order.order_id);
  }
}
