import type { TradingClock } from "./clock";
import type { FakeMarket } from "./market";

/** LongPort's order statuses as its JSON spells them (the SDK's `OrderStatus` strings). */
export type OrderStatus =
  | "NotReported"
  | "ReplacedNotReported"
  | "WaitToNew"
  | "NewStatus"
  | "WaitToReplace"
  | "PendingReplaceStatus"
  | "ReplacedStatus"
  | "PartialFilledStatus"
  | "FilledStatus"
  | "WaitToCancel"
  | "PendingCancelStatus"
  | "CanceledStatus"
  | "RejectedStatus"
  | "ExpiredStatus"
  | "PartialWithdrawal";

const ENDED: ReadonlySet<OrderStatus> = new Set(["FilledStatus", "CanceledStatus", "RejectedStatus", "ExpiredStatus", "PartialWithdrawal"]);
export const isEnded = (status: OrderStatus) => ENDED.has(status);

export interface OrderHistoryEntry {
  status: OrderStatus;
  price: number;
  quantity: number;
  msg: string;
  at: number;
}

export interface FakeOrder {
  orderId: string;
  symbol: string;
  side: "Buy" | "Sell";
  orderType: string;
  quantity: number;
  /** Limit price (absent for market orders). */
  price?: number;
  triggerPrice?: number;
  timeInForce: string;
  expireDate?: string;
  outsideRth?: string;
  remark: string;
  status: OrderStatus;
  executedQuantity: number;
  executedValue: number;
  lastFill?: { quantity: number; price: number };
  msg: string;
  tag: string;
  currency: string;
  submittedAt: number;
  updatedAt: number;
  history: OrderHistoryEntry[];
  /** Placed outside this client (the app, another program): no submit call made it. */
  external: boolean;
}

export interface FakeExecution {
  orderId: string;
  tradeId: string;
  symbol: string;
  quantity: number;
  price: number;
  at: number;
}

export interface PositionState {
  quantity: number;
  /** Average cost per share. */
  cost: number;
}

/** A refusal the fake answers with LongPort's error body (HTTP status, API code, message). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** The fake's code for a parameter it refuses (LongPort answers 602001 "parameter verification failed" for such). */
export const PARAMETER_ERROR = 602001;

export interface NewOrder {
  symbol: string;
  side: "Buy" | "Sell";
  orderType?: string;
  quantity: number;
  price?: number;
  triggerPrice?: number;
  timeInForce?: string;
  expireDate?: string;
  outsideRth?: string;
  remark?: string;
  /** Defaults to the clock's now. */
  at?: number;
}

/**
 * The account behind the fake: cash per currency, stock positions, orders and executions. Order
 * changes are announced through `onOrderChanged` (the trade gateway pushes them); cash and
 * positions move only with fills. Orders get LongPort-like ids (18 digits).
 */
export class FakeAccount {
  readonly cash = new Map<string, number>();
  readonly positions = new Map<string, PositionState>();
  readonly orders = new Map<string, FakeOrder>();
  readonly executions: FakeExecution[] = [];
  readonly accountNo = "LBPT10086";
  /** When false, a submitted order stays `NotReported` until `accept()`. */
  autoAccept = true;
  /** When false, a cancel request leaves the order `PendingCancelStatus` (still fillable) until `cancel()`. */
  confirmCancels = true;
  private readonly listeners = new Set<(order: FakeOrder) => void>();
  private nextId = 701_000_000_000_000_000n;

  constructor(
    private readonly clock: TradingClock,
    private readonly market: FakeMarket,
  ) {}

  onOrderChanged(listener: (order: FakeOrder) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(order: FakeOrder, status: OrderStatus, msg = ""): FakeOrder {
    order.status = status;
    order.msg = msg;
    order.updatedAt = Math.max(this.clock.now(), order.submittedAt);
    order.history.push({
      status,
      price: order.lastFill?.price ?? order.price ?? 0,
      quantity: order.lastFill?.quantity ?? order.quantity,
      msg,
      at: order.updatedAt,
    });
    for (const listener of this.listeners) listener(order);
    return order;
  }

  order(orderId: string): FakeOrder {
    const order = this.orders.get(orderId);
    if (!order) throw new ApiError(400, PARAMETER_ERROR, `order not found: ${orderId}`);
    return order;
  }

  // ---- what the trade API does ----

  submit(spec: NewOrder, external = false): FakeOrder {
    if (!this.market.has(spec.symbol)) throw new ApiError(400, PARAMETER_ERROR, `invalid symbol: ${spec.symbol}`);
    if (!(spec.quantity > 0)) throw new ApiError(400, PARAMETER_ERROR, "invalid submitted_quantity");
    const at = spec.at ?? this.clock.now();
    const order: FakeOrder = {
      orderId: String(this.nextId++),
      symbol: spec.symbol,
      side: spec.side,
      orderType: spec.orderType ?? "LO",
      quantity: spec.quantity,
      price: spec.price,
      triggerPrice: spec.triggerPrice,
      timeInForce: spec.timeInForce ?? "Day",
      expireDate: spec.expireDate,
      outsideRth: spec.outsideRth,
      remark: spec.remark ?? "",
      status: "NotReported",
      executedQuantity: 0,
      executedValue: 0,
      msg: "",
      tag: "Normal",
      currency: this.market.spec(spec.symbol).currency,
      submittedAt: at,
      updatedAt: at,
      history: [],
      external,
    };
    this.orders.set(order.orderId, order);
    if (this.autoAccept) this.changed(order, "NewStatus");
    else this.changed(order, "NotReported");
    return order;
  }

  replace(orderId: string, quantity: number, price?: number, triggerPrice?: number, remark?: string): FakeOrder {
    const order = this.order(orderId);
    if (isEnded(order.status)) throw new ApiError(400, PARAMETER_ERROR, `order ${orderId} is ${order.status} and cannot be replaced`);
    if (!(quantity > order.executedQuantity)) throw new ApiError(400, PARAMETER_ERROR, "quantity must exceed the executed quantity");
    order.quantity = quantity;
    if (price !== undefined) order.price = price;
    if (triggerPrice !== undefined) order.triggerPrice = triggerPrice;
    if (remark !== undefined) order.remark = remark;
    return this.changed(order, "ReplacedStatus");
  }

  /** The cancel the API asks for: LongPort confirms it with a `CanceledStatus` push (or, with `confirmCancels` off, pends). */
  requestCancel(orderId: string): FakeOrder {
    const order = this.order(orderId);
    if (isEnded(order.status)) throw new ApiError(400, PARAMETER_ERROR, `order ${orderId} is ${order.status} and cannot be canceled`);
    return this.changed(order, this.confirmCancels ? "CanceledStatus" : "PendingCancelStatus");
  }

  // ---- test controls ----

  /** Accepts a `NotReported` order (with `autoAccept` off). */
  accept(orderId: string): FakeOrder {
    return this.changed(this.order(orderId), "NewStatus");
  }

  /**
   * Fills `quantity` (default: the rest) at `price` (default: the limit price, else the last
   * price): records an execution with a trade id, moves cash and the position, and pushes
   * `PartialFilledStatus` or `FilledStatus`.
   */
  fill(orderId: string, fill: { quantity?: number; price?: number; at?: number } = {}): FakeExecution {
    const order = this.order(orderId);
    if (isEnded(order.status)) throw new Error(`order ${orderId} is ${order.status}; use listLateFill() for a fill reported after the end`);
    const remaining = order.quantity - order.executedQuantity;
    const quantity = fill.quantity ?? remaining;
    if (!(quantity > 0 && quantity <= remaining)) throw new Error(`cannot fill ${quantity} of ${remaining} remaining`);
    const price = fill.price ?? order.price ?? this.market.lastPrice(order.symbol);
    const execution = this.record(order, quantity, price, fill.at ?? this.clock.now());
    order.executedQuantity += quantity;
    order.executedValue += quantity * price;
    order.lastFill = { quantity, price };
    this.changed(order, order.executedQuantity >= order.quantity ? "FilledStatus" : "PartialFilledStatus");
    return execution;
  }

  /** An execution listed after its order ended (LongPort can report a fill late): moves cash and position, no push. */
  listLateFill(orderId: string, fill: { quantity: number; price: number; at?: number }): FakeExecution {
    const order = this.order(orderId);
    const execution = this.record(order, fill.quantity, fill.price, fill.at ?? this.clock.now());
    order.executedQuantity += fill.quantity;
    order.executedValue += fill.quantity * fill.price;
    return execution;
  }

  reject(orderId: string, msg = "rejected by the exchange"): FakeOrder {
    return this.changed(this.order(orderId), "RejectedStatus", msg);
  }

  /** A cancel from outside the client (the venue, the app). */
  cancel(orderId: string, msg = ""): FakeOrder {
    return this.changed(this.order(orderId), "CanceledStatus", msg);
  }

  expire(orderId: string): FakeOrder {
    return this.changed(this.order(orderId), "ExpiredStatus");
  }

  /** Any status change, pushed as LongPort pushes it (e.g. `PendingCancelStatus`, `PartialWithdrawal`). */
  setStatus(orderId: string, status: OrderStatus, msg = ""): FakeOrder {
    return this.changed(this.order(orderId), status, msg);
  }

  /** An order placed in the account by someone else (the app, another program): pushed, listed, no submit call. */
  placeExternal(spec: NewOrder): FakeOrder {
    return this.submit(spec, true);
  }

  /** Expires every open `Day` order (the end of a session). */
  expireDayOrders(): FakeOrder[] {
    return [...this.orders.values()].filter((o) => !isEnded(o.status) && o.timeInForce === "Day").map((o) => this.expire(o.orderId));
  }

  private record(order: FakeOrder, quantity: number, price: number, at: number): FakeExecution {
    // LongPort's trade ids are "<order id>-<nanoseconds>"; the sequence keeps two fills of one instant apart.
    const tradeId = `${order.orderId}-${BigInt(at) * 1_000_000n + BigInt(this.executions.length)}`;
    const execution = { orderId: order.orderId, tradeId, symbol: order.symbol, quantity, price, at };
    this.executions.push(execution);
    const sign = order.side === "Buy" ? 1 : -1;
    this.cash.set(order.currency, (this.cash.get(order.currency) ?? 0) - sign * quantity * price);
    const position = this.positions.get(order.symbol) ?? { quantity: 0, cost: 0 };
    const quantityAfter = position.quantity + sign * quantity;
    if (sign > 0 && quantityAfter > 0) position.cost = (position.cost * Math.max(position.quantity, 0) + quantity * price) / quantityAfter;
    position.quantity = quantityAfter;
    if (position.quantity === 0) this.positions.delete(order.symbol);
    else this.positions.set(order.symbol, position);
    return execution;
  }

  // ---- figures the asset API answers ----

  /** Cash held back by open buy orders, per currency. */
  frozenCash(currency: string): number {
    let frozen = 0;
    for (const o of this.orders.values()) {
      if (o.side !== "Buy" || o.currency !== currency || isEnded(o.status)) continue;
      frozen += (o.quantity - o.executedQuantity) * (o.price ?? this.market.lastPrice(o.symbol));
    }
    return frozen;
  }

  /** Shares of `symbol` not promised to open sell orders. */
  availableQuantity(symbol: string): number {
    const held = this.positions.get(symbol)?.quantity ?? 0;
    let promised = 0;
    for (const o of this.orders.values()) if (o.symbol === symbol && o.side === "Sell" && !isEnded(o.status)) promised += o.quantity - o.executedQuantity;
    return Math.max(held - promised, 0);
  }

  marketValue(currency: string): number {
    let value = 0;
    for (const [symbol, p] of this.positions) if (this.market.spec(symbol).currency === currency) value += p.quantity * this.market.lastPrice(symbol);
    return value;
  }
}
