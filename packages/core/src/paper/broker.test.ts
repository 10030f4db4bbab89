import { describe, expect, it } from "vitest";
import { DomainError } from "../errors";
import { Fees } from "../fees/index";
import { ManualClock } from "../provider/clock";
import type { MarketData } from "../provider/market-data";
import type { SubmitOrderOptions } from "../provider/order-gateway";
import { PaperBroker, type PaperAccountStore, type PaperBrokerDeps, type PaperCommit } from "./broker";
import { valueOrThrow } from "./rules";
import type { PaperAccount, PaperOrder } from "./types";

/** Tuesday 13 April 2027, 10:35:30 in New York: the US regular session. */
const US_OPEN = "2027-04-13T14:35:30Z";

/** The account kept in memory, with every commit it was asked to write. */
function memoryStore() {
  let account: PaperAccount | undefined;
  const orders = new Map<string, PaperOrder>();
  const commits: PaperCommit[] = [];
  const store: PaperAccountStore = {
    async load() {
      return account && { account: structuredClone(account), working: account.working.map((id) => structuredClone(orders.get(id)!)) };
    },
    async getOrder(_accountId, orderId) {
      const order = orders.get(orderId);
      return order && structuredClone(order);
    },
    async ordersSubmittedBetween() {
      return [...orders.values()];
    },
    async executionsBetween() {
      return [];
    },
    async commit(change) {
      if ((account?.version ?? 0) !== change.expectedVersion) return false;
      commits.push(structuredClone(change));
      account = structuredClone(change.account);
      for (const order of change.orders) orders.set(order.order_id, structuredClone(order));
      return true;
    },
  };
  return { store, orders, commits };
}

/** A market where AAPL.US last traded at 190 and shows one ask; no minute has completed since. */
const market = {
  staticInfo: async (symbols: string[]) => symbols.map((symbol) => ({ symbol, name_en: "Apple Inc.", lot_size: 1 })),
  tradingSession: async () => [],
  trades: async () => [{ price: "190" }],
  depth: async () => ({ asks: [{ position: 1, price: "190.01", volume: 100, order_num: 1 }], bids: [] }),
  historyCandlesticksByDate: async () => [],
} as unknown as MarketData;

function brokerDeps(store: PaperAccountStore): PaperBrokerDeps {
  let sequence = 0;
  return {
    store,
    marketData: async () => market,
    clock: new ManualClock(US_OPEN),
    fees: Fees.resolve("paper"),
    initialCash: { USD: "1000", HKD: "0" },
    isExchangeTradedProduct: () => false,
    newOrderId: (now) => `${now}${String(++sequence).padStart(6, "0")}`,
  };
}

const limitOrder = (overrides: Partial<SubmitOrderOptions> = {}): SubmitOrderOptions => ({
  symbol: "AAPL.US",
  order_type: "LO",
  side: "Buy",
  submitted_quantity: "1",
  submitted_price: "189",
  time_in_force: "Day",
  ...overrides,
});

describe("paper broker refusals", () => {
  it("answers a sell beyond the free shares with INSUFFICIENT_POSITION as data and keeps the order as rejected", async () => {
    const { store, orders } = memoryStore();
    const result = await PaperBroker.submitOrder(brokerDeps(store), "account", limitOrder({ side: "Sell", submitted_quantity: "5" }));

    expect(result).toMatchObject({ ok: false, refusal: { status: 400, code: "INSUFFICIENT_POSITION", details: { available_quantity: "0" } } });
    const orderId = !result.ok && (result.refusal.details.order_id as string);
    expect(orders.get(orderId as string)).toMatchObject({ status: "RejectedStatus", msg: expect.stringMatching(/^INSUFFICIENT_POSITION: /) });
  });

  it("answers a buy beyond the free cash with INSUFFICIENT_CASH and the amounts behind it", async () => {
    const { store } = memoryStore();
    const result = await PaperBroker.submitOrder(brokerDeps(store), "account", limitOrder({ submitted_quantity: "10" }));

    expect(result).toMatchObject({ ok: false, refusal: { code: "INSUFFICIENT_CASH", details: { available: "1000.00", currency: "USD" } } });
  });

  it("answers an order breaking its type's rules with every problem, before the account is read", async () => {
    const { store } = memoryStore();
    const deps = { ...brokerDeps(store), marketData: () => Promise.reject(new Error("the market is not asked")) };
    const result = await PaperBroker.submitOrder(deps, "account", limitOrder({ order_type: "TSLPPCT", trailing_percent: "100", limit_offset: "0.01" }));

    expect(result).toMatchObject({
      ok: false,
      refusal: { status: 400, code: "INVALID_TRAILING_PERCENT", details: { problems: [{ field: "trailing_percent" }] } },
    });
  });

  it("answers a cancel of an ended order with ORDER_NOT_CANCELLABLE as data and writes nothing", async () => {
    const { store, commits } = memoryStore();
    const deps = brokerDeps(store);
    // A working order too, matched an hour later: an operation that wrote would write how far it is matched.
    valueOrThrow(await PaperBroker.submitOrder(deps, "account", limitOrder()));
    const submitted = await PaperBroker.submitOrder(deps, "account", limitOrder({ side: "Sell" }));
    const orderId = !submitted.ok && (submitted.refusal.details.order_id as string);
    const written = commits.length;
    (deps.clock as ManualClock).set("2027-04-13T15:40:00Z");

    const result = await PaperBroker.cancelOrder(deps, "account", orderId as string);
    expect(result).toEqual({
      ok: false,
      refusal: {
        status: 400,
        code: "ORDER_NOT_CANCELLABLE",
        message: `order ${orderId} is RejectedStatus and can no longer be cancelled`,
        details: { order_id: orderId, status: "RejectedStatus" },
      },
    });
    expect(commits.length).toBe(written);
  });

  it("answers an unknown order with ORDER_NOT_FOUND (404) as data, and a working order's cancel with ok", async () => {
    const { store } = memoryStore();
    const deps = brokerDeps(store);
    expect(await PaperBroker.replaceOrder(deps, "account", { order_id: "404", quantity: "1", price: "189" })).toMatchObject({
      ok: false,
      refusal: { status: 404, code: "ORDER_NOT_FOUND", details: { order_id: "404" } },
    });

    const { order_id } = valueOrThrow(await PaperBroker.submitOrder(deps, "account", limitOrder()));
    expect(await PaperBroker.cancelOrder(deps, "account", order_id)).toEqual({ ok: true, value: undefined });
  });

  it("throws a refusal as the domain error with its status, code, message and details only where asked to", async () => {
    const { store } = memoryStore();
    const result = await PaperBroker.cancelOrder(brokerDeps(store), "account", "404");
    let thrown: unknown;
    try {
      valueOrThrow(result);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DomainError);
    expect(thrown).toMatchObject({ status: 404, code: "ORDER_NOT_FOUND", message: "order 404 does not exist in this account", extra: { order_id: "404" } });
  });
});
