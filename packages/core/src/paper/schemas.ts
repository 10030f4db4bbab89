import { z } from "zod";
import { Id } from "../util/bounds";
import { DomainError } from "../errors";
import { Market, marketOf, normalizeSymbol } from "../market/market";
import {
  AccountBalance,
  EstimateMaxPurchaseRequest,
  Execution,
  HistoryExecutionsRequest,
  HistoryOrdersRequest,
  Order,
  ReplaceOrderRequest,
  SubmitOrderRequest,
  TodayExecutionsRequest,
  TodayOrdersRequest,
} from "../provider/order-gateway";
import { checkOrderRules, OrderType } from "../provider/order-types";

/**
 * Bodies and answers of the trade pass-through endpoints (`/api/v1/api-test/trade/*`), as zod
 * schemas: the HTTP layer validates with them and the OpenAPI document is generated from them.
 * The results themselves (`Order`, `OrderDetail`, `Execution`, `AccountBalance`,
 * `EstimateMaxPurchaseQuantityResponse`) are the `OrderGateway` port's schemas.
 */

const ALLOWED =
  "order_type: LO, ELO, MO, AO, ALO, ODD, LIT, MIT, TSLPAMT, TSLPPCT, SLO (US: LO, MO, LIT, MIT, TSLPAMT, TSLPPCT); " +
  "side: Buy, Sell (also buy/sell/BUY/SELL); time_in_force: Day, GTC, GTD (GTD needs expire_date; also GoodTilCanceled, GoodTilDate); " +
  "outside_rth (US only): RTH_ONLY, ANY_TIME, OVERNIGHT (also RTHOnly, AnyTime, Overnight). " +
  "Decimals are strings or numbers. Required per order_type: GET /api/v1/api-test/trade/order-type-fields/{order_type}.";

/**
 * A submit-order body: LongPort's fields, the symbol in `ticker.region` form, and the order-type
 * table's rules for the symbol's market (type offered there, its required fields, `expire_date`
 * with `GTD`, `outside_rth` for US only). Each broken rule is one 422 issue at its field.
 */
export const SubmitOrderBody = SubmitOrderRequest.superRefine((order, ctx) => {
  let market: Market;
  try {
    market = marketOf(normalizeSymbol(order.symbol));
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    ctx.addIssue({ code: "custom", path: ["symbol"], message: error.message });
    return;
  }
  for (const problem of checkOrderRules(market, order)) {
    ctx.addIssue({ code: "custom", path: problem.field ? [problem.field] : [], message: `${problem.code}: ${problem.message}` });
  }
}).meta({ id: "TradeSubmitOrderRequest", description: `Submit an order. ${ALLOWED}` });

export const ReplaceOrderBody = ReplaceOrderRequest.meta({
  id: "TradeReplaceOrderRequest",
  description: "Amend a working order: `quantity` is the new total; which price fields may change depends on the order type (SLO cannot be replaced).",
});
export const OrderIdBody = z.object({ order_id: Id }).meta({ id: "TradeOrderIdRequest" });
export const TodayExecutionsBody = TodayExecutionsRequest.meta({ id: "TradeTodayExecutionsRequest" });
export const HistoryExecutionsBody = HistoryExecutionsRequest.meta({
  id: "TradeHistoryExecutionsRequest",
  description: "`start_at`/`end_at`: ISO instants, or dates (whole UTC days, the end inclusive); default the last 90 days.",
});
export const EstimateMaxPurchaseBody = EstimateMaxPurchaseRequest.meta({
  id: "TradeEstimateMaxPurchaseRequest",
  description: `Without \`price\`: the best ask. \`order_id\`: the working order being amended (what it holds counts as free). ${ALLOWED}`,
});
export const AccountBalanceBody = z
  .object({
    currency: z
      .string()
      .trim()
      .regex(/^[A-Za-z]{3}$/, "must be a 3-letter currency code such as USD")
      .optional(),
  })
  .meta({ id: "TradeAccountBalanceRequest", description: "Paper accounts hold USD and HKD; omit `currency` for both." });
export const TodayOrdersBody = TodayOrdersRequest.meta({
  id: "TradeTodayOrdersRequest",
  description: "`status`: OrderStatus wire names, an array or a comma-separated string; `market`: US, HK, CN, SG.",
});
export const HistoryOrdersBody = HistoryOrdersRequest.meta({
  id: "TradeHistoryOrdersRequest",
  description: "`start_at`/`end_at`: ISO instants, or dates (whole UTC days, the end inclusive); default the last 90 days.",
});

export const OrderTypeInfo = z
  .object({
    order_type: OrderType,
    name: z.string(),
    description: z.string(),
    markets: z.array(Market),
    required_fields: z.array(z.string()).describe("every field the order type needs, the always-required ones included"),
    conditional_fields: z.array(z.object({ field: z.string(), required_when: z.string() })),
    optional_fields: z.array(z.string()),
    replaceable: z.boolean(),
    replaceable_fields: z.array(z.string()).describe("fields replace-order may change besides quantity"),
  })
  .meta({ id: "TradeOrderTypeInfo" });

export const SupportedOrderTypesData = z.object({ market: Market, order_types: z.array(OrderTypeInfo) }).meta({ id: "TradeSupportedOrderTypes" });

export const OrderIdData = z.object({ order_id: z.string() }).meta({ id: "TradeOrderId" });
export const OrdersData = z.object({ orders: z.array(Order), total: z.number().int() }).meta({ id: "TradeOrders" });
export const ExecutionsData = z.object({ executions: z.array(Execution), total: z.number().int() }).meta({ id: "TradeExecutions" });
export const BalancesData = z.object({ balances: z.array(AccountBalance) }).meta({ id: "TradeAccountBalances" });

/** A broker's refusal: its code (e.g. `INSUFFICIENT_CASH`), message and the numbers behind it. */
export const TradeError = z
  .object({
    code: z
      .string()
      .describe(
        "MARKET_CLOSED, INSUFFICIENT_CASH, INSUFFICIENT_POSITION, INVALID_LOT_SIZE, INVALID_ODD_LOT_QUANTITY, INVALID_TICK_SIZE, INVALID_QUANTITY, ORDER_NOT_FOUND, ORDER_NOT_REPLACEABLE, ORDER_NOT_CANCELLABLE, FIELD_NOT_REPLACEABLE, QUANTITY_BELOW_EXECUTED, SYMBOL_NOT_FOUND, ...",
      ),
    message: z.string(),
    status: z.number().int().describe("the HTTP status the same failure has on the service's other endpoints"),
  })
  .catchall(z.unknown())
  .describe("extra fields when known: `order_id` (a refused order kept as RejectedStatus), `required`/`available`/`currency`, `problems`")
  .meta({ id: "TradeError" });

/** The envelope of every trade endpoint: a refusal is `success: false` with `error`, HTTP 200. */
export function tradeTestResponse<T extends z.ZodType>(data: T, id: string) {
  return z
    .object({
      success: z.boolean(),
      message: z.string().describe("human-readable result"),
      data: data.nullable().optional(),
      error: TradeError.nullable().optional(),
    })
    .meta({ id });
}
