import { Fees, type FeeConfig } from "@tp/core/fees/index";
import { Dec } from "@tp/core/money/decimal";
import { PaperBroker, type PaperBrokerDeps } from "@tp/core/paper/broker";
import { valueOrThrow } from "@tp/core/paper/rules";
import { PaperCurrencies, type PaperCurrency } from "@tp/core/paper/types";
import type { Clock } from "@tp/core/provider/clock";
import type { MarketData } from "@tp/core/provider/market-data";
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
  OrderGateway,
  ReplaceOrderOptions,
  StockPositionsResponse,
  SubmitOrderOptions,
  SubmitOrderResponse,
} from "@tp/core/provider/order-gateway";
import type { Db } from "../../dynamo/db";
import { SimulatedUniverse } from "../simulated/universe";
import { DynamoPaperAccountStore, paperOrderId } from "./dynamo-paper-store";

/**
 * The paper broker behind the `OrderGateway` port, for one account: LongPort's order types and
 * account queries, filled against the market-data provider, state in the table. The port answers
 * a refusal by throwing it (as LongPort's gateway does), so the broker's refusals, data inside,
 * are thrown here as their domain errors.
 */
export class PaperOrderGateway implements OrderGateway {
  constructor(
    private readonly deps: PaperBrokerDeps,
    readonly accountId: string,
    /** The session whose sleeve this gateway's new orders trade (docs/accounts.md); absent: the account's free cash and shares. */
    readonly sleeve?: string,
  ) {}

  async submitOrder(options: SubmitOrderOptions): Promise<SubmitOrderResponse> {
    return valueOrThrow(await PaperBroker.submitOrder(this.deps, this.accountId, options, this.sleeve));
  }

  async replaceOrder(options: ReplaceOrderOptions): Promise<void> {
    valueOrThrow(await PaperBroker.replaceOrder(this.deps, this.accountId, options));
  }

  async cancelOrder(orderId: string): Promise<void> {
    valueOrThrow(await PaperBroker.cancelOrder(this.deps, this.accountId, orderId));
  }

  todayExecutions(options?: GetTodayExecutionsOptions): Promise<Execution[]> {
    return PaperBroker.todayExecutions(this.deps, this.accountId, options);
  }

  historyExecutions(options?: GetHistoryExecutionsOptions): Promise<Execution[]> {
    return PaperBroker.historyExecutions(this.deps, this.accountId, options);
  }

  orderDetail(orderId: string): Promise<OrderDetail> {
    return PaperBroker.orderDetail(this.deps, this.accountId, orderId);
  }

  estimateMaxPurchaseQuantity(options: EstimateMaxPurchaseQuantityOptions): Promise<EstimateMaxPurchaseQuantityResponse> {
    return PaperBroker.estimateMaxPurchaseQuantity(this.deps, this.accountId, options);
  }

  accountBalance(currency?: string): Promise<AccountBalance[]> {
    return PaperBroker.accountBalance(this.deps, this.accountId, currency);
  }

  todayOrders(options?: GetTodayOrdersOptions): Promise<Order[]> {
    return PaperBroker.todayOrders(this.deps, this.accountId, options);
  }

  historyOrders(options?: GetHistoryOrdersOptions): Promise<Order[]> {
    return PaperBroker.historyOrders(this.deps, this.accountId, options);
  }

  stockPositions(symbols?: string[]): Promise<StockPositionsResponse> {
    return PaperBroker.stockPositions(this.deps, this.accountId, symbols);
  }
}

/** Cash of a new paper account when `PAPER_INITIAL_CASH` is not set. */
export const DEFAULT_PAPER_INITIAL_CASH = "USD=1000000,HKD=1000000";

/**
 * Parses `PAPER_INITIAL_CASH` (`USD=1000000,HKD=1000000`): amounts per currency; currencies left
 * out start at zero. A malformed value stops start-up rather than opening accounts with the wrong cash.
 */
export function parsePaperInitialCash(text: string = DEFAULT_PAPER_INITIAL_CASH): Record<PaperCurrency, string> {
  const cash = Object.fromEntries(PaperCurrencies.map((currency) => [currency, "0"])) as Record<PaperCurrency, string>;
  for (const entry of text
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean)) {
    const match = /^([A-Za-z]{3})\s*=\s*(\d+(?:\.\d+)?)$/.exec(entry);
    const currency = match?.[1].toUpperCase() as PaperCurrency | undefined;
    if (!match || !currency || !PaperCurrencies.includes(currency)) {
      throw new Error(`PAPER_INITIAL_CASH: '${entry}' is not CURRENCY=AMOUNT with a currency of ${PaperCurrencies.join(", ")}`);
    }
    cash[currency] = new Dec(match[2]).toFixed();
  }
  return cash;
}

// HK exchange-traded products use HKEX's ETP spread table; static info does not tell them apart.
const exchangeTradedProducts = new Set(SimulatedUniverse.filter((spec) => spec.etp).map((spec) => spec.symbol));

export interface PaperBrokerOptions {
  clock: Clock;
  marketData: () => Promise<MarketData>;
  /** `PAPER_INITIAL_CASH`; default 1,000,000 USD and 1,000,000 HKD. */
  initialCash?: string;
  /** Default: `Fees.resolve("paper")` (LongPort's schedule). */
  fees?: FeeConfig;
}

/** The paper broker on the table: a gateway per account (and session sleeve), and the deps its account operations take. */
export type PaperBrokerHandle = ((accountId: string, sleeve?: string) => PaperOrderGateway) & { readonly deps: PaperBrokerDeps };

/**
 * The paper broker's deps on the table: what its account operations (`PaperAccounts`, the
 * simulated account and sessions' sleeves) need without the order gateway, which functions that
 * only fund sessions leave out of their bundles.
 */
export function paperBrokerDeps(db: Db, options: PaperBrokerOptions): PaperBrokerDeps {
  return {
    store: new DynamoPaperAccountStore(db),
    marketData: options.marketData,
    clock: options.clock,
    fees: options.fees ?? Fees.resolve("paper"),
    initialCash: parsePaperInitialCash(options.initialCash),
    isExchangeTradedProduct: (symbol) => exchangeTradedProducts.has(symbol),
    newOrderId: paperOrderId,
  };
}

/** The paper broker over `deps`: a gateway per account id (the api-test endpoints and simulated accounts use the user's id). */
export function createPaperBroker(deps: PaperBrokerDeps): PaperBrokerHandle {
  return Object.assign((accountId: string, sleeve?: string) => new PaperOrderGateway(deps, accountId, sleeve), { deps });
}
