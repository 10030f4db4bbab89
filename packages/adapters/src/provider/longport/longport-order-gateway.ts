import type { TradeContext } from "longport";
import { normalizeSymbol } from "@tp/core/market/market";
import type {
  AccountBalance,
  EstimateMaxPurchaseQuantityOptions,
  EstimateMaxPurchaseQuantityResponse,
  Execution,
  GetHistoryExecutionsOptions,
  GetHistoryOrdersOptions,
  GetTodayExecutionsOptions,
  GetTodayOrdersOptions,
  Order,
  OrderDetail,
  OrderChangedEvent,
  OrderGateway,
  ReplaceOrderOptions,
  StockPositionsResponse,
  SubmitOrderOptions,
  SubmitOrderResponse,
} from "@tp/core/provider/order-gateway";
import type { LongportSdk } from "./codec";
import { LongportConnection, type LongportConnectionOptions } from "./connection";

// The SDK declares its enums `const`, which isolated modules cannot read: the member is looked up on the loaded module.
const codecTopicPrivate = (sdk: LongportSdk) => (sdk as unknown as { TopicType: { Private: number } }).TopicType.Private as never;

const withSymbol = <T extends { symbol?: string }>(options: T): T =>
  options.symbol === undefined ? options : { ...options, symbol: normalizeSymbol(options.symbol) };

/**
 * `OrderGateway` over LongPort's TradeContext. LongPort does not throttle trade calls in the SDK,
 * so every call goes through the account's trade queue (30 per 30 s, 20 ms apart); a burst is
 * queued, not refused. Failures are DomainErrors (`PROVIDER_ERROR` with LongPort's code, ...).
 */
export class LongportOrderGateway implements OrderGateway {
  private readonly connection: LongportConnection<TradeContext>;
  private onOrderChanged: ((event: OrderChangedEvent) => void) | null = null;

  constructor(options: LongportConnectionOptions) {
    // Every trade socket (the first, and one opened again after a failure) listens to the account's order changes.
    this.connection = new LongportConnection<TradeContext>(
      options,
      async (sdk, config) => {
        const context = await sdk.TradeContext.new(config);
        await context.subscribe([codecTopicPrivate(sdk)]);
        return context;
      },
      (context, codec) =>
        context.setOnOrderChanged((error, event) => {
          if (error || !this.onOrderChanged) return;
          this.onOrderChanged({
            order_id: event.orderId,
            status: codec.orderStatus(event.status),
            executed_quantity: event.executedQuantity.toString(),
            remark: event.remark,
          });
        }),
    );
  }

  /** LongPort pushes every change of the account's orders on the trade socket's private topic; the socket opens on the first trade call. */
  setOnOrderChanged(handler: ((event: OrderChangedEvent) => void) | null): void {
    this.onOrderChanged = handler;
  }

  /** How long a trade call asked for now would wait in the account's pacing queue (30 calls per 30 s). */
  backlogMs(): number {
    return this.connection.backlogMs();
  }

  submitOrder(options: SubmitOrderOptions): Promise<SubmitOrderResponse> {
    return this.connection.call("submitOrder", async (ctx, codec) => {
      const response = await ctx.submitOrder(codec.submitOrder(withSymbol(options)));
      return { order_id: response.orderId };
    });
  }

  replaceOrder(options: ReplaceOrderOptions): Promise<void> {
    return this.connection.call("replaceOrder", async (ctx, codec) => {
      await ctx.replaceOrder(codec.replaceOrder(options));
    });
  }

  cancelOrder(orderId: string): Promise<void> {
    return this.connection.call("cancelOrder", (ctx) => ctx.cancelOrder(orderId));
  }

  todayExecutions(options: GetTodayExecutionsOptions = {}): Promise<Execution[]> {
    return this.connection.call("todayExecutions", async (ctx, codec) =>
      (await ctx.todayExecutions(codec.todayExecutionsOptions(withSymbol(options)))).map((execution) => codec.execution(execution)),
    );
  }

  historyExecutions(options: GetHistoryExecutionsOptions = {}): Promise<Execution[]> {
    return this.connection.call("historyExecutions", async (ctx, codec) =>
      (await ctx.historyExecutions(codec.historyExecutionsOptions(withSymbol(options)))).map((execution) => codec.execution(execution)),
    );
  }

  orderDetail(orderId: string): Promise<OrderDetail> {
    return this.connection.call("orderDetail", async (ctx, codec) => codec.orderDetail(await ctx.orderDetail(orderId)));
  }

  estimateMaxPurchaseQuantity(options: EstimateMaxPurchaseQuantityOptions): Promise<EstimateMaxPurchaseQuantityResponse> {
    return this.connection.call("estimateMaxPurchaseQuantity", async (ctx, codec) =>
      codec.maxPurchase(await ctx.estimateMaxPurchaseQuantity(codec.estimateMaxPurchaseOptions(withSymbol(options)))),
    );
  }

  accountBalance(currency?: string): Promise<AccountBalance[]> {
    return this.connection.call("accountBalance", async (ctx, codec) => (await ctx.accountBalance(currency)).map((balance) => codec.accountBalance(balance)));
  }

  stockPositions(symbols?: string[]): Promise<StockPositionsResponse> {
    return this.connection.call("stockPositions", async (ctx, codec) =>
      codec.stockPositions(await ctx.stockPositions(symbols?.map((symbol) => normalizeSymbol(symbol)))),
    );
  }

  todayOrders(options: GetTodayOrdersOptions = {}): Promise<Order[]> {
    return this.connection.call("todayOrders", async (ctx, codec) =>
      (await ctx.todayOrders(codec.todayOrdersOptions(withSymbol(options)))).map((order) => codec.order(order)),
    );
  }

  historyOrders(options: GetHistoryOrdersOptions = {}): Promise<Order[]> {
    return this.connection.call("historyOrders", async (ctx, codec) =>
      (await ctx.historyOrders(codec.historyOrdersOptions(withSymbol(options)))).map((order) => codec.order(order)),
    );
  }
}
