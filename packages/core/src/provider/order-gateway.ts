import { z } from "zod";
import { Id } from "../util/bounds";
import { CalendarDate, InstantInput as InstantInputWithOffset } from "../util/time";
import { MarketInput, type Market } from "../market/market";
import type { IsoDate } from "../market/zoned-time";
import {
  OrderSide,
  OrderSideInput,
  OrderStatus,
  OrderTag,
  OrderType,
  OutsideRth,
  OutsideRthInput,
  TimeInForce,
  TimeInForceInput,
  TriggerStatus,
} from "./order-types";
import { listInput } from "./quote-enums";
import { DecimalString, IsoInstant } from "./quote-types";

/**
 * Order entry and account queries, mirroring the parts of LongPort's `TradeContext` the service
 * uses. Requests and results are plain JSON with LongPort's snake_case names: quantities, prices
 * and money are decimal strings, instants ISO 8601 UTC, enumerations wire strings.
 *
 * Each result is a zod schema and its type under one name; the schemas document the API (their
 * `id` is the OpenAPI component name) and are not used to validate what gateways return.
 */

/** An exchange-local date `YYYY-MM-DD` (the `IsoDate` of `market/zoned-time`). */
const IsoDateString = z.string().describe("`YYYY-MM-DD`, exchange-local");

/** Submit-order request. */
export interface SubmitOrderOptions {
  symbol: string;
  order_type: OrderType;
  side: OrderSide;
  submitted_quantity: DecimalString;
  time_in_force: TimeInForce;
  submitted_price?: DecimalString;
  trigger_price?: DecimalString;
  limit_offset?: DecimalString;
  trailing_amount?: DecimalString;
  trailing_percent?: DecimalString;
  expire_date?: IsoDate;
  outside_rth?: OutsideRth;
  remark?: string;
}

/** Submit-order answer. */
export const SubmitOrderResponse = z.object({ order_id: z.string() });
export type SubmitOrderResponse = z.infer<typeof SubmitOrderResponse>;

/** Replace (amend) request; `quantity` is the new total quantity. */
export interface ReplaceOrderOptions {
  order_id: string;
  quantity: DecimalString;
  price?: DecimalString;
  trigger_price?: DecimalString;
  limit_offset?: DecimalString;
  trailing_amount?: DecimalString;
  trailing_percent?: DecimalString;
  remark?: string;
}

/** One fill. */
export const Execution = z
  .object({
    order_id: z.string(),
    trade_id: z.string(),
    symbol: z.string(),
    trade_done_at: IsoInstant,
    quantity: DecimalString,
    price: DecimalString,
  })
  .meta({ id: "TradeExecution" });
export type Execution = z.infer<typeof Execution>;

/** An order as listed by today's and history queries. */
export const Order = z
  .object({
    order_id: z.string(),
    status: OrderStatus,
    stock_name: z.string(),
    quantity: DecimalString,
    executed_quantity: DecimalString,
    /** Limit price; null for market-type orders. */
    price: DecimalString.nullable().describe("Limit price; null for market-type orders"),
    /** Average fill price. */
    executed_price: DecimalString.nullable().describe("Average fill price"),
    submitted_at: IsoInstant,
    side: OrderSide,
    symbol: z.string(),
    order_type: OrderType,
    /** Price of the latest fill. */
    last_done: DecimalString.nullable().describe("Price of the latest fill"),
    trigger_price: DecimalString.nullable(),
    /** Rejection message or remark: why the order was rejected, withdrawn or expired. */
    msg: z.string().describe("Rejection message or remark: why the order was rejected, withdrawn or expired"),
    tag: OrderTag,
    time_in_force: TimeInForce,
    expire_date: IsoDateString.nullable(),
    updated_at: IsoInstant.nullable(),
    trigger_at: IsoInstant.nullable(),
    trailing_amount: DecimalString.nullable(),
    trailing_percent: DecimalString.nullable(),
    limit_offset: DecimalString.nullable(),
    trigger_status: TriggerStatus.nullable(),
    currency: z.string(),
    outside_rth: OutsideRth.nullable(),
    remark: z.string(),
  })
  .meta({ id: "TradeOrder" });
export type Order = z.infer<typeof Order>;

/** One step of an order's history. */
export const OrderHistoryDetail = z.object({
  /** Executed price for fills; submitted price for expired, cancelled or rejected steps. */
  price: DecimalString,
  /** Executed quantity for fills; remaining quantity otherwise. */
  quantity: DecimalString,
  status: OrderStatus,
  msg: z.string(),
  time: IsoInstant,
});
export type OrderHistoryDetail = z.infer<typeof OrderHistoryDetail>;

/** One fee of an order. */
export const OrderChargeFee = z.object({
  code: z.string(),
  name: z.string(),
  amount: DecimalString,
  currency: z.string(),
});
export type OrderChargeFee = z.infer<typeof OrderChargeFee>;

/** A group of fees: the broker's own (`BROKER_FEES`) or pass-through (`THIRD_FEES`). */
export const OrderChargeItem = z.object({
  code: z.enum(["BROKER_FEES", "THIRD_FEES"]),
  name: z.string(),
  fees: z.array(OrderChargeFee),
});
export type OrderChargeItem = z.infer<typeof OrderChargeItem>;

export const OrderChargeDetail = z.object({
  total_amount: DecimalString,
  currency: z.string(),
  items: z.array(OrderChargeItem),
});
export type OrderChargeDetail = z.infer<typeof OrderChargeDetail>;

export const CommissionFreeStatus = z.enum(["None", "Calculated", "Pending", "Ready"]);
export type CommissionFreeStatus = z.infer<typeof CommissionFreeStatus>;
export const DeductionStatus = z.enum(["NONE", "NO_DATA", "PENDING", "DONE"]);
export type DeductionStatus = z.infer<typeof DeductionStatus>;

/** An order with its history and charges. */
export const OrderDetail = Order.extend({
  free_status: CommissionFreeStatus,
  free_amount: DecimalString.nullable(),
  free_currency: z.string().nullable(),
  deductions_status: DeductionStatus,
  deductions_amount: DecimalString.nullable(),
  deductions_currency: z.string().nullable(),
  platform_deducted_status: DeductionStatus,
  platform_deducted_amount: DecimalString.nullable(),
  platform_deducted_currency: z.string().nullable(),
  history: z.array(OrderHistoryDetail).describe("Each step of the order: fills and status changes"),
  charge_detail: OrderChargeDetail.describe("Fees charged so far"),
}).meta({ id: "TradeOrderDetail" });
export type OrderDetail = z.infer<typeof OrderDetail>;

export interface EstimateMaxPurchaseQuantityOptions {
  symbol: string;
  order_type: OrderType;
  side: OrderSide;
  price?: DecimalString;
  currency?: string;
  /** The order being amended, when estimating for a replace. */
  order_id?: string;
  fractional_shares?: boolean;
}

export const EstimateMaxPurchaseQuantityResponse = z
  .object({
    /** Most shares buyable with cash. */
    cash_max_qty: DecimalString.describe("Most shares buyable with cash"),
    /** Most shares buyable with margin. */
    margin_max_qty: DecimalString.describe("Most shares buyable with margin"),
  })
  .meta({ id: "TradeMaxPurchase" });
export type EstimateMaxPurchaseQuantityResponse = z.infer<typeof EstimateMaxPurchaseQuantityResponse>;

export const CashInfo = z.object({
  withdraw_cash: DecimalString,
  available_cash: DecimalString,
  frozen_cash: DecimalString,
  settling_cash: DecimalString,
  currency: z.string(),
});
export type CashInfo = z.infer<typeof CashInfo>;

export const FrozenTransactionFee = z.object({
  currency: z.string(),
  frozen_transaction_fee: DecimalString,
});
export type FrozenTransactionFee = z.infer<typeof FrozenTransactionFee>;

/** Account balance in one currency. */
export const AccountBalance = z
  .object({
    /** Cash in this currency. */
    total_cash: DecimalString.describe("Cash in this currency"),
    max_finance_amount: DecimalString,
    remaining_finance_amount: DecimalString,
    risk_level: z.number().int(),
    margin_call: DecimalString,
    currency: z.string(),
    cash_infos: z.array(CashInfo),
    /** Net assets in this currency: cash plus holdings. */
    net_assets: DecimalString.describe("Net assets in this currency: cash plus holdings"),
    init_margin: DecimalString,
    maintenance_margin: DecimalString,
    /** Buying power in this currency. */
    buy_power: DecimalString.describe("Buying power in this currency"),
    frozen_transaction_fees: z.array(FrozenTransactionFee),
  })
  .meta({ id: "TradeAccountBalance" });
export type AccountBalance = z.infer<typeof AccountBalance>;

/** One holding (LongPort `StockPosition`). */
export const StockPosition = z.object({
  symbol: z.string(),
  symbol_name: z.string(),
  quantity: DecimalString,
  available_quantity: DecimalString,
  currency: z.string(),
  /** Average cost per share (LongPort: average or diluted, as the client chose; the paper broker: buy fees included). */
  cost_price: DecimalString,
  /** LongPort's market name: `US`, `HK`, `CN`, `SG`; others (`Crypto`, `Unknown`) pass through by name. */
  market: z.string(),
  /** Holding before the market opened, when the broker says. */
  init_quantity: DecimalString.nullable(),
});
export type StockPosition = z.infer<typeof StockPosition>;

/** The holdings of one account channel. */
export const StockPositionChannel = z.object({
  account_channel: z.string(),
  positions: z.array(StockPosition),
});
export type StockPositionChannel = z.infer<typeof StockPositionChannel>;

/** LongPort's `stockPositions()` answer: holdings by account channel. */
export const StockPositionsResponse = z.object({
  channels: z.array(StockPositionChannel),
});
export type StockPositionsResponse = z.infer<typeof StockPositionsResponse>;

export interface GetTodayOrdersOptions {
  symbol?: string;
  status?: OrderStatus[];
  side?: OrderSide;
  market?: Market;
  order_id?: string;
}

export interface GetHistoryOrdersOptions {
  symbol?: string;
  status?: OrderStatus[];
  side?: OrderSide;
  market?: Market;
  start_at?: IsoInstant;
  end_at?: IsoInstant;
}

export interface GetTodayExecutionsOptions {
  symbol?: string;
  order_id?: string;
}

export interface GetHistoryExecutionsOptions {
  symbol?: string;
  start_at?: IsoInstant;
  end_at?: IsoInstant;
}

/** Order entry and account queries (LongPort `TradeContext`); the paper broker and the LongPort adapter implement it. */
/** An order the broker changed, as pushed (LongPort's order-changed push on the trade socket's private topic). */
export interface OrderChangedEvent {
  order_id: string;
  status: OrderStatus;
  executed_quantity: DecimalString;
  remark: string;
}

export interface OrderGateway {
  /**
   * The broker's pushes of order changes, where it sends them (LongPort); a gateway without them
   * is polled. `null` removes the handler.
   */
  setOnOrderChanged?(handler: ((event: OrderChangedEvent) => void) | null): void;
  /**
   * About how long (ms) a call asked for now would wait for the account's rate limit (LongPort's
   * trade calls, paced by the process); absent or 0: at once. The session worker's step sends
   * nothing and reads nothing at a venue this busy (`VENUE_WAIT_MS`): it tries at a later step.
   */
  backlogMs?(): number;
  submitOrder(options: SubmitOrderOptions): Promise<SubmitOrderResponse>;
  replaceOrder(options: ReplaceOrderOptions): Promise<void>;
  cancelOrder(orderId: string): Promise<void>;
  todayExecutions(options?: GetTodayExecutionsOptions): Promise<Execution[]>;
  historyExecutions(options?: GetHistoryExecutionsOptions): Promise<Execution[]>;
  orderDetail(orderId: string): Promise<OrderDetail>;
  estimateMaxPurchaseQuantity(options: EstimateMaxPurchaseQuantityOptions): Promise<EstimateMaxPurchaseQuantityResponse>;
  accountBalance(currency?: string): Promise<AccountBalance[]>;
  /** Holdings across the account's channels; optionally only some symbols. */
  stockPositions(symbols?: string[]): Promise<StockPositionsResponse>;
  todayOrders(options?: GetTodayOrdersOptions): Promise<Order[]>;
  historyOrders(options?: GetHistoryOrdersOptions): Promise<Order[]>;
}

// ---- request schemas (shared by the HTTP layer and gateways) ----

/** A non-negative decimal given as a string (`"388.5"`) or a JSON number; yields the string. */
export const DecimalInput = z
  .union([
    z
      .string()
      .trim()
      .regex(/^\d+(\.\d+)?$/, "must be a decimal number such as 388.5"),
    z.number().finite().nonnegative(),
  ])
  .transform((value) => (typeof value === "number" ? String(value) : value));

/** A decimal greater than zero. */
export const PositiveDecimalInput = DecimalInput.refine((value) => Number(value) > 0, "must be greater than 0");

const IsoDateInput = CalendarDate;
const InstantInput = InstantInputWithOffset.or(IsoDateInput);

/** Body of a submit-order request. */
export const SubmitOrderRequest = z.object({
  symbol: z.string().min(1),
  order_type: OrderType,
  side: OrderSideInput,
  submitted_quantity: PositiveDecimalInput,
  time_in_force: TimeInForceInput,
  submitted_price: PositiveDecimalInput.optional(),
  trigger_price: PositiveDecimalInput.optional(),
  limit_offset: DecimalInput.optional(),
  trailing_amount: PositiveDecimalInput.optional(),
  trailing_percent: PositiveDecimalInput.optional(),
  expire_date: IsoDateInput.optional(),
  outside_rth: OutsideRthInput.optional(),
  remark: z.string().max(255).optional(),
});

/** Body of a replace-order request. */
export const ReplaceOrderRequest = z.object({
  order_id: Id,
  quantity: PositiveDecimalInput,
  price: PositiveDecimalInput.optional(),
  trigger_price: PositiveDecimalInput.optional(),
  limit_offset: DecimalInput.optional(),
  trailing_amount: PositiveDecimalInput.optional(),
  trailing_percent: PositiveDecimalInput.optional(),
  remark: z.string().max(255).optional(),
});

/** Body of an estimate-max-purchase request. */
export const EstimateMaxPurchaseRequest = z.object({
  symbol: z.string().min(1),
  order_type: OrderType,
  side: OrderSideInput,
  price: PositiveDecimalInput.optional(),
  currency: z.string().min(3).max(3).optional(),
  order_id: Id.optional(),
  fractional_shares: z.boolean().optional(),
});

/** Body of a today-orders request. */
export const TodayOrdersRequest = z.object({
  symbol: z.string().min(1).optional(),
  status: listInput(OrderStatus).optional(),
  side: OrderSideInput.optional(),
  market: MarketInput.optional(),
  order_id: Id.optional(),
});

/** Body of a history-orders request. */
export const HistoryOrdersRequest = z.object({
  symbol: z.string().min(1).optional(),
  status: listInput(OrderStatus).optional(),
  side: OrderSideInput.optional(),
  market: MarketInput.optional(),
  start_at: InstantInput.optional(),
  end_at: InstantInput.optional(),
});

/** Body of a today-executions request. */
export const TodayExecutionsRequest = z.object({
  symbol: z.string().min(1).optional(),
  order_id: Id.optional(),
});

/** Body of a history-executions request. */
export const HistoryExecutionsRequest = z.object({
  symbol: z.string().min(1).optional(),
  start_at: InstantInput.optional(),
  end_at: InstantInput.optional(),
});
