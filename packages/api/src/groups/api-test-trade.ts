import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { DomainError, ValidationError } from "@tp/core/errors";
import { MarketInput } from "@tp/core/market/market";
import {
  AccountBalanceBody,
  BalancesData,
  EstimateMaxPurchaseBody,
  ExecutionsData,
  HistoryExecutionsBody,
  HistoryOrdersBody,
  OrderIdBody,
  OrderIdData,
  OrdersData,
  OrderTypeInfo,
  ReplaceOrderBody,
  SubmitOrderBody,
  SupportedOrderTypesData,
  TodayExecutionsBody,
  TodayOrdersBody,
  tradeTestResponse,
} from "@tp/core/paper/schemas";
import { EstimateMaxPurchaseQuantityResponse, OrderDetail, type OrderGateway } from "@tp/core/provider/order-gateway";
import { ALWAYS_REQUIRED_FIELDS, OrderType, OrderTypeSpecs, SupportedOrderTypes } from "@tp/core/provider/order-types";
import { KILL_SWITCH_CONFLICT } from "@tp/core/kill-switch";
import { bearer, createGroup, errorResponse, errorResponses, json, jsonBody, requireAuth, type AppEnv, type GroupServices } from "../http/group";

const tags = ["api-test-trade"];
const BASE = "/api/v1/api-test/trade";

/** A JSON body that may be left out entirely (then it is `{}`). */
function optionalJsonBody<T>(schema: T) {
  return { body: { required: false, content: { "application/json": { schema } } } };
}

interface TradeTestResult<T> {
  success: boolean;
  message: string;
  data: T | null;
  error: ({ code: string; message: string; status: number } & Record<string, unknown>) | null;
}

/**
 * Runs one broker call and wraps its outcome as TradeTestResponse. A broker refusal (a domain
 * error: market closed, buying power, lot, unknown order...) is data, `success: false`; invalid
 * input was answered 422 before the call and faults still become 500s.
 */
async function passThrough<T>(call: () => Promise<T>, message: (data: T) => string): Promise<TradeTestResult<T>> {
  try {
    const data = await call();
    return { success: true, message: message(data), data, error: null };
  } catch (error) {
    if (error instanceof DomainError && !(error instanceof ValidationError)) {
      return { success: false, message: error.message, data: null, error: { ...error.extra, code: error.code, message: error.message, status: error.status } };
    }
    throw error;
  }
}

/** What one order type is and needs, as the order-type table says. */
function orderTypeInfo(orderType: OrderType): z.infer<typeof OrderTypeInfo> {
  const spec = OrderTypeSpecs[orderType];
  return {
    order_type: spec.order_type,
    name: spec.name,
    description: spec.description,
    markets: spec.markets,
    required_fields: [...ALWAYS_REQUIRED_FIELDS, ...spec.required_fields],
    conditional_fields: [{ field: "expire_date", required_when: "time_in_force=GTD" }],
    optional_fields: spec.optional_fields,
    replaceable: spec.replaceable,
    replaceable_fields: spec.replaceable_fields,
  };
}

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
const refusalNote =
  "A broker refusal (market closed, insufficient buying power or position, bad lot or tick, unknown order...) answers 200 with `success: false` and `error: {code, message, status, ...}`: " +
  "the paper broker's code, or LongPort's as docs/provider-settings.md \"Errors\" maps it: PROVIDER_REFUSED (422, `provider_code` and `provider_message`), PROVIDER_RATE_LIMITED (429, `retry_after`), PROVIDER_TOKEN_EXPIRED (503), " +
  "PROVIDER_DUPLICATE_REQUEST (409), PROVIDER_AUTH_FAILED and PROVIDER_ERROR (502), PROVIDER_UNAVAILABLE (503), PROVIDER_TIMEOUT (504).";

/**
 * Trade pass-through endpoints: each forwards one call to the selected provider's order gateway
 * (the caller's paper-broker account, id = user id, while the simulated market is selected) and
 * wraps the outcome as `{success, message, data, error}`.
 */
export function apiTestTradeGroup(services: GroupServices<"providers" | "killSwitch">) {
  const app = createGroup();
  app.use(`${BASE}/*`, requireAuth(services));
  /** One call on the caller's gateway of the selected provider: their paper account while the simulated market is selected, LongPort's otherwise. */
  const call = <T>(c: Context<AppEnv>, run: (gateway: OrderGateway) => Promise<T>, message: (data: T) => string) =>
    passThrough(async () => run(await services.providers.orderGateway(c.get("principal").user.id)), message);

  app.openapi(
    createRoute({
      method: "get",
      path: `${BASE}/supported-order-types/{market}`,
      tags,
      summary: "Order types accepted in a market (US, HK; CN and SG: none)",
      security: bearer,
      request: { params: z.object({ market: MarketInput }) },
      responses: {
        200: json(tradeTestResponse(SupportedOrderTypesData, "TradeSupportedOrderTypesResponse"), "The market's order types"),
        ...errorResponses({ auth: true }),
      },
    }),
    async (c) => {
      const { market } = c.req.valid("param");
      const types = SupportedOrderTypes[market];
      const message = types.length
        ? `${count(types.length, "order type")} accepted in ${market}`
        : `${market} is not traded through the service: no order types`;
      return c.json({ success: true, message, data: { market, order_types: types.map(orderTypeInfo) }, error: null }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: `${BASE}/order-type-fields/{order_type}`,
      tags,
      summary: "Fields an order type requires, allows and may replace",
      security: bearer,
      request: { params: z.object({ order_type: OrderType }) },
      responses: {
        200: json(tradeTestResponse(OrderTypeInfo, "TradeOrderTypeFieldsResponse"), "The order type"),
        ...errorResponses({ auth: true }),
      },
    }),
    async (c) => {
      const info = orderTypeInfo(c.req.valid("param").order_type);
      return c.json({ success: true, message: `${info.order_type} (${info.name}) requires ${info.required_fields.join(", ")}`, data: info, error: null }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: `${BASE}/submit-order`,
      tags,
      summary: "Submit an order (to the caller's paper account while the simulated market is selected)",
      description: `Missing or ill-typed fields, unknown enum values and broken order-type rules answer 422. ${refusalNote} A refused order that reached the broker is kept as \`RejectedStatus\` (its id is in \`error.order_id\`).`,
      security: bearer,
      request: jsonBody(SubmitOrderBody),
      responses: {
        200: json(tradeTestResponse(OrderIdData, "TradeSubmitOrderResponse"), "Submitted, or refused"),
        409: errorResponse(KILL_SWITCH_CONFLICT),
        ...errorResponses({ auth: true }),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      await services.killSwitch.guard.check(c.get("principal").user.id);
      return c.json(
        await call(
          c,
          (gateway) => gateway.submitOrder(body),
          (r) => `Order ${r.order_id} submitted`,
        ),
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: `${BASE}/replace-order`,
      tags,
      summary: "Replace (amend) a working order's quantity and prices",
      description: refusalNote,
      security: bearer,
      request: jsonBody(ReplaceOrderBody),
      responses: {
        200: json(tradeTestResponse(OrderIdData, "TradeReplaceOrderResponse"), "Replaced, or refused"),
        409: errorResponse(KILL_SWITCH_CONFLICT),
        ...errorResponses({ auth: true }),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      await services.killSwitch.guard.check(c.get("principal").user.id);
      const result = await call(
        c,
        async (gateway) => {
          await gateway.replaceOrder(body);
          return { order_id: body.order_id };
        },
        (r) => `Order ${r.order_id} replaced`,
      );
      return c.json(result, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: `${BASE}/cancel-order`,
      tags,
      summary: "Cancel a working order",
      description: refusalNote,
      security: bearer,
      request: jsonBody(OrderIdBody),
      responses: { 200: json(tradeTestResponse(OrderIdData, "TradeCancelOrderResponse"), "Cancelled, or refused"), ...errorResponses({ auth: true }) },
    }),
    async (c) => {
      const { order_id } = c.req.valid("json");
      const result = await call(
        c,
        async (gateway) => {
          await gateway.cancelOrder(order_id);
          return { order_id };
        },
        (r) => `Order ${r.order_id} cancelled`,
      );
      return c.json(result, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: `${BASE}/today-executions`,
      tags,
      summary: "Today's fills (exchange-local day of each fill's market), oldest first",
      security: bearer,
      request: optionalJsonBody(TodayExecutionsBody),
      responses: { 200: json(tradeTestResponse(ExecutionsData, "TradeTodayExecutionsResponse"), "Fills"), ...errorResponses({ auth: true }) },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const result = await call(
        c,
        async (gateway) => {
          const executions = await gateway.todayExecutions(body);
          return { executions, total: executions.length };
        },
        (r) => `${count(r.total, "execution")} today`,
      );
      return c.json(result, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: `${BASE}/history-executions`,
      tags,
      summary: "Fills in a time range (default the last 90 days), oldest first",
      security: bearer,
      request: optionalJsonBody(HistoryExecutionsBody),
      responses: { 200: json(tradeTestResponse(ExecutionsData, "TradeHistoryExecutionsResponse"), "Fills"), ...errorResponses({ auth: true }) },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const result = await call(
        c,
        async (gateway) => {
          const executions = await gateway.historyExecutions(body);
          return { executions, total: executions.length };
        },
        (r) => count(r.total, "execution"),
      );
      return c.json(result, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: `${BASE}/order-detail`,
      tags,
      summary: "An order with its history and charges",
      description: refusalNote,
      security: bearer,
      request: jsonBody(OrderIdBody),
      responses: { 200: json(tradeTestResponse(OrderDetail, "TradeOrderDetailResponse"), "The order"), ...errorResponses({ auth: true }) },
    }),
    async (c) => {
      const { order_id } = c.req.valid("json");
      const result = await call(
        c,
        (gateway) => gateway.orderDetail(order_id),
        (r) => `Order ${r.order_id}: ${r.status}`,
      );
      return c.json(result, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: `${BASE}/estimate-max-purchase`,
      tags,
      summary: "Most shares the account can buy (free cash, fees included) or sell (free holding), in whole lots",
      description: refusalNote,
      security: bearer,
      request: jsonBody(EstimateMaxPurchaseBody),
      responses: {
        200: json(tradeTestResponse(EstimateMaxPurchaseQuantityResponse, "TradeEstimateMaxPurchaseResponse"), "The estimate"),
        ...errorResponses({ auth: true }),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const result = await call(
        c,
        (gateway) => gateway.estimateMaxPurchaseQuantity(body),
        (r) => `At most ${r.cash_max_qty} shares`,
      );
      return c.json(result, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: `${BASE}/account-balance`,
      tags,
      summary: "Cash, frozen cash, buying power and net assets per currency (USD, HKD)",
      security: bearer,
      request: optionalJsonBody(AccountBalanceBody),
      responses: { 200: json(tradeTestResponse(BalancesData, "TradeAccountBalanceResponse"), "Balances"), ...errorResponses({ auth: true }) },
    }),
    async (c) => {
      const { currency } = c.req.valid("json");
      const result = await call(
        c,
        async (gateway) => ({ balances: await gateway.accountBalance(currency) }),
        (r) => count(r.balances.length, "balance"),
      );
      return c.json(result, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: `${BASE}/today-orders`,
      tags,
      summary: "Orders submitted today (exchange-local day of each order's market) and every order still working, oldest first",
      security: bearer,
      request: optionalJsonBody(TodayOrdersBody),
      responses: { 200: json(tradeTestResponse(OrdersData, "TradeTodayOrdersResponse"), "Orders"), ...errorResponses({ auth: true }) },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const result = await call(
        c,
        async (gateway) => {
          const orders = await gateway.todayOrders(body);
          return { orders, total: orders.length };
        },
        (r) => `${count(r.total, "order")} today`,
      );
      return c.json(result, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: `${BASE}/history-orders`,
      tags,
      summary: "Orders submitted in a time range (default the last 90 days), oldest first",
      security: bearer,
      request: optionalJsonBody(HistoryOrdersBody),
      responses: { 200: json(tradeTestResponse(OrdersData, "TradeHistoryOrdersResponse"), "Orders"), ...errorResponses({ auth: true }) },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const result = await call(
        c,
        async (gateway) => {
          const orders = await gateway.historyOrders(body);
          return { orders, total: orders.length };
        },
        (r) => count(r.total, "order"),
      );
      return c.json(result, 200);
    },
  );

  return app;
}
