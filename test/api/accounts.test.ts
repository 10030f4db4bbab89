import { describe, expect, it } from "vitest";
import { Dec } from "../../packages/core/src/money/decimal";
import type { SessionWorker } from "../../packages/worker/src/session-worker";
import { WorkerHarness } from "../support/worker-harness";

/**
 * One book per account (docs/accounts.md): a simulation session takes its capital out of its
 * owner's simulated account, trades it through the paper broker, and the account, the session and
 * the api-test trade endpoints agree to the cent after every fill.
 */
let worker: SessionWorker;
let user: { id: string; token: string };
const h = WorkerHarness.forSuite("2024-03-15T13:30:00Z", {
  async setup(h) {
    user = await h.api.createUser();
    worker = await h.newWorker();
  },
});

const as = (method: string, path: string, status: number, body?: unknown) => h.api.json(method, path, status, { token: user.token, body });
// A crossover too slow to signal in these minutes: only the orders placed here trade. Ford's price lets an
// order of 20,000 sweep more than one level of the book; a position may take most of the equity.
const SYMBOL = "F.US";
const config = {
  strategy_name: "ma_crossover",
  parameters: { fast_period: 50, slow_period: 100 },
  symbols: [SYMBOL],
  timeframe: "1m",
  risk_config: { max_position_size: 0.95, max_loss_per_trade: 0.05 },
};
const newSession = (name: string, capital: string) =>
  as("POST", "/api/v1/trading/sessions", 201, { session_name: name, trading_mode: "simulation", asset_mode: "simulated", initial_capital: capital, config });
const account = () => as("GET", "/api/v1/assets/simulated/", 200);
const fillsOf = async (sessionId: string) =>
  (await h.api.services.trading.sessions.runs.events(sessionId, { limit: 1000 })).items.filter((e) => e.type === "order_filled");

describe("a simulation session trading the simulated account", () => {
  let sessionId: string;
  let second: string;

  it("opens the account with its cash and sets a started session's capital aside, refusing a session it cannot fund", async () => {
    const opened = await as("POST", "/api/v1/assets/simulated/", 201, { user_id: user.id, cash_assets: "50000", currency: "USD" });
    expect(opened).toMatchObject({ user_id: user.id, cash_assets: "50000.00", currency: "USD", free_cash_by_currency: { USD: "50000.00", HKD: "0.00" } });
    expect((await as("POST", "/api/v1/assets/simulated/", 409, { user_id: user.id, cash_assets: "1", currency: "USD" })).error_code).toBe(
      "ASSET_ALREADY_EXISTS",
    );

    sessionId = (await newSession("takes 20,000", "20000")).id;
    await as("POST", `/api/v1/trading/sessions/${sessionId}/start`, 200);
    expect(await account()).toMatchObject({
      cash_assets: "50000.00",
      free_cash_by_currency: { USD: "30000.00" },
      in_sessions_by_currency: { USD: "20000.00" },
    });

    second = (await newSession("asks 40,000", "40000")).id;
    const refused = await as("POST", `/api/v1/trading/sessions/${second}/start`, 409);
    expect(refused).toMatchObject({ error_code: "INSUFFICIENT_FREE_CASH", currency: "USD", required: "40000.00", free_cash: "30000.00" });
    expect(refused.detail).toContain("30000.00 USD free");
    expect((await as("GET", `/api/v1/trading/sessions/${second}`, 200)).status).toBe("created");
    // Cash the session holds cannot be withdrawn.
    const withdrawal = await as("PUT", "/api/v1/assets/simulated/", 409, { cash_assets: "10000", currency: "USD" });
    expect(withdrawal).toMatchObject({ error_code: "CASH_HELD", held: "20000.00" });
  });

  it("books every fill once: the account's cash, positions and fees are the session's, to the cent", async () => {
    await h.minutes(worker, 2);
    // A market buy larger than the first ask level sweeps two: it fills in parts.
    h.clock += 30_000;
    const market = await h.api.services.marketData();
    const firstLevel = Number((await market.depth(SYMBOL)).asks[0]!.volume);
    const bought = firstLevel + 50;
    const buy = await as("POST", "/api/v1/trading/orders", 201, { session_id: sessionId, symbol: SYMBOL, side: "buy", quantity: String(bought) });
    await worker.tick();
    const buyOrder = await as("GET", `/api/v1/trading/orders/${buy.id}`, 200);
    expect(buyOrder, JSON.stringify(buyOrder.denials)).toMatchObject({ status: "filled", filled_quantity: String(bought) });
    const paper = h.api.services.paperBroker(user.id);
    const [atBroker] = (await paper.todayOrders({ symbol: SYMBOL })).filter((o) => o.remark === buy.id);
    expect((await paper.todayExecutions({ order_id: atBroker!.order_id })).length).toBe(2);

    // A limit sell below the bid is marketable: it sweeps the bids.
    h.clock += 30_000;
    const [quote] = await market.quote([SYMBOL]);
    const limit = new Dec(quote!.last_done).times("0.98").toDecimalPlaces(2);
    const sold = 150;
    const sell = await as("POST", "/api/v1/trading/orders", 201, {
      session_id: sessionId,
      symbol: SYMBOL,
      side: "sell",
      order_type: "limit",
      price: limit.toFixed(),
      quantity: String(sold),
    });
    await worker.tick();
    expect(await as("GET", `/api/v1/trading/orders/${sell.id}`, 200)).toMatchObject({ status: "filled", filled_quantity: String(sold) });
    const remaining = String(bought - sold);

    // Cash: 50,000 less every buy's value (to the cent) and fees, plus every sale's value less fees.
    const fills = await fillsOf(sessionId);
    let cash = new Dec(50000);
    let fees = new Dec(0);
    for (const fill of fills) {
      const value = new Dec(fill.data.price as string).times(fill.data.quantity as number).toDecimalPlaces(2);
      const commission = new Dec(fill.data.commission as string);
      cash = fill.data.side === "buy" ? cash.minus(value).minus(commission) : cash.plus(value).minus(commission);
      fees = fees.plus(commission);
    }
    const after = await account();
    expect(after.cash_by_currency.USD).toBe(cash.toFixed(2));
    // The fees the session booked are the ones the broker charged, order by order.
    const charged = await Promise.all(
      (await paper.todayOrders({ symbol: SYMBOL })).map(async (o) => new Dec((await paper.orderDetail(o.order_id)).charge_detail.total_amount)),
    );
    expect(fees.toFixed(2)).toBe(charged.reduce((sum, fee) => sum.plus(fee), new Dec(0)).toFixed(2));
    const performance = await as("GET", `/api/v1/trading/sessions/${sessionId}/performance`, 200);
    expect(performance.session.fees_paid).toBe(fees.toFixed(2));
    // Positions: the account holds what the session holds.
    const held = await as("GET", "/api/v1/assets/simulated/positions", 200);
    const latest = await as("GET", `/api/v1/trading/sessions/${sessionId}/positions/latest`, 200);
    expect(held.map((p: any) => [p.symbol, p.quantity])).toEqual([[SYMBOL, remaining]]);
    expect(latest.positions.map((p: any) => [p.symbol, p.quantity])).toEqual([[SYMBOL, remaining]]);
    // The api-test trade endpoints read the same account.
    const balance = await as("POST", "/api/v1/api-test/trade/account-balance", 200, { currency: "USD" });
    expect(balance.data.balances[0]).toMatchObject({ currency: "USD", total_cash: cash.toFixed(2) });
    // The session's sleeve agrees with its own books, so no reconciliation alert was raised.
    const alerts = (await h.api.services.trading.sessions.runs.events(sessionId, { limit: 1000 })).items.filter((e) => e.type === "alert");
    expect(alerts).toEqual([]);
  });

  it("gives the unused capital back when the session stops and leaves its holdings in the account", async () => {
    const [heldBefore] = await as("GET", "/api/v1/assets/simulated/positions", 200);
    await as("POST", `/api/v1/trading/sessions/${sessionId}/stop`, 200);
    await worker.tick();
    const after = await account();
    expect(after.in_sessions_by_currency.USD).toBe("0.00");
    expect(after.free_cash_by_currency.USD).toBe(after.cash_by_currency.USD);
    const held = await as("GET", "/api/v1/assets/simulated/positions", 200);
    expect(held).toEqual([expect.objectContaining({ id: `${user.id}:${SYMBOL}`, symbol: SYMBOL, quantity: heldBefore.quantity })]);
    // The holding is the account's now: it can be set by hand, as a recorded adjustment.
    expect(await as("PUT", `/api/v1/assets/simulated/positions/${user.id}:${SYMBOL}`, 200, { quantity: "5" })).toMatchObject({ quantity: "5" });
    // The stocks bought took some of the cash for good: 40,000 needs a deposit first, a recorded adjustment.
    const free = new Dec(after.free_cash_by_currency.USD);
    expect(free.lt(40000)).toBe(true);
    expect((await as("POST", `/api/v1/trading/sessions/${second}/start`, 409)).free_cash).toBe(free.toFixed(2));
    const deposited = await as("PUT", "/api/v1/assets/simulated/", 200, {
      cash_assets: new Dec(after.cash_by_currency.USD).plus(10000).toFixed(2),
      currency: "USD",
    });
    expect(deposited.free_cash_by_currency.USD).toBe(free.plus(10000).toFixed(2));
    await as("POST", `/api/v1/trading/sessions/${second}/start`, 200);
    expect(await account()).toMatchObject({
      in_sessions_by_currency: { USD: "40000.00" },
      free_cash_by_currency: { USD: free.plus(10000).minus(40000).toFixed(2) },
    });
  });
});

describe("a live session", () => {
  it("starts only when the account at the selected provider has the buying power for its capital, and sets nothing aside", async () => {
    // Under the simulated provider a live session trades the user's paper account, without a sleeve.
    const trader = await h.api.createUser();
    const call = (method: string, path: string, status: number, body?: unknown) => h.api.json(method, path, status, { token: trader.token, body });
    await call("POST", "/api/v1/assets/simulated/", 201, { user_id: trader.id, cash_assets: "10000", currency: "USD" });
    const live = (capital: string) =>
      call("POST", "/api/v1/trading/sessions", 201, {
        session_name: `live ${capital}`,
        trading_mode: "live",
        asset_mode: "real",
        initial_capital: capital,
        config,
      });
    const large = await live("20000");
    const refused = await call("POST", `/api/v1/trading/sessions/${large.id}/start`, 409);
    expect(refused).toMatchObject({ error_code: "INSUFFICIENT_BUYING_POWER", currency: "USD", required: "20000.00", buying_power: "10000.00" });
    expect((await call("GET", `/api/v1/trading/sessions/${large.id}`, 200)).status).toBe("created");
    const small = await live("5000");
    expect((await call("POST", `/api/v1/trading/sessions/${small.id}/start`, 200)).status).toBe("running");
    expect((await call("GET", "/api/v1/assets/simulated/", 200)).in_sessions_by_currency.USD).toBe("0.00");
    await call("POST", `/api/v1/trading/sessions/${small.id}/stop`, 200);
  });
});
