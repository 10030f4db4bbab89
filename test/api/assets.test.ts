import { beforeAll, describe, expect, it } from "vitest";
import type { PriceSource } from "../../packages/core/src/assets/index";
import { Dec, money } from "../../packages/core/src/money/decimal";
import { ManualClock } from "../../packages/core/src/provider/clock";
import { ADMIN, createTestApi, type TestApi } from "../support/harness";

let api: TestApi;
let admin: string;
beforeAll(async () => {
  // HKD at 8 per USD keeps the hand computations exact.
  api = await createTestApi({ FX_RATES_PER_USD: "HKD=8" });
  admin = await api.adminToken();
});

const position = (userId: string, overrides: Record<string, unknown> = {}) => ({
  user_id: userId,
  symbol: "AAPL.US",
  symbol_name: "Apple",
  asset_type: "stock",
  quantity: 10,
  available_quantity: "8",
  cost_price: "150.25",
  market: "US",
  currency: "USD",
  ...overrides,
});

describe("the real cash account", () => {
  it("is created once per user, read, updated and deleted, with or without the trailing slash", async () => {
    const user = await api.createUser();
    expect((await api.json("GET", "/api/v1/assets/", 404, { token: user.token })).error_code).toBe("ASSET_NOT_FOUND");
    const created = await api.json("POST", "/api/v1/assets/", 201, { token: user.token, body: { user_id: user.id, cash_assets: 100000.5 } });
    expect(created).toMatchObject({ user_id: user.id, cash_assets: "100000.5", currency: "USD", total_assets: null });
    expect((await api.json("POST", "/api/v1/assets", 409, { token: user.token, body: { user_id: user.id, cash_assets: 1 } })).error_code).toBe(
      "ASSET_ALREADY_EXISTS",
    );
    expect(await api.json("GET", "/api/v1/assets", 200, { token: user.token })).toEqual(created);

    const updated = await api.json("PUT", "/api/v1/assets/", 200, {
      token: user.token,
      body: { cash_assets: "-250.75", currency: "HKD", total_assets: "1000", today_pnl: -12.5 },
    });
    expect(updated).toMatchObject({ cash_assets: "-250.75", currency: "HKD", total_assets: "1000", today_pnl: "-12.5", position_assets: null });
    const cleared = await api.json("PUT", "/api/v1/assets", 200, { token: user.token, body: { total_assets: null } });
    expect(cleared.total_assets).toBeNull();

    const deleted = await api.json("DELETE", "/api/v1/assets/", 200, { token: user.token });
    expect(deleted).toEqual({ success: true, message: "Asset account deleted", id: created.id });
    await api.json("GET", "/api/v1/assets/", 404, { token: user.token });
    await api.json("DELETE", "/api/v1/assets/", 404, { token: user.token });
  });

  it("lets a user create only their own account; an administrator acts for others through user_id", async () => {
    const alice = await api.createUser();
    const bob = await api.createUser();
    await api.json("POST", "/api/v1/assets/", 403, { token: alice.token, body: { user_id: bob.id, cash_assets: 1 } });
    await api.json("POST", "/api/v1/assets/", 201, { token: admin, body: { user_id: bob.id, cash_assets: 7, currency: "CNY" } });
    expect((await api.json("GET", "/api/v1/assets/", 200, { token: bob.token })).currency).toBe("CNY");
    expect((await api.json("GET", `/api/v1/assets/?user_id=${bob.id}`, 200, { token: admin })).cash_assets).toBe("7");
    await api.json("GET", `/api/v1/assets/?user_id=${bob.id}`, 403, { token: alice.token });
  });

  it("lists every problem of a bad update in one 422 and never answers 500 to garbage", async () => {
    const user = await api.createUser();
    await api.json("POST", "/api/v1/assets/", 201, { token: user.token, body: { user_id: user.id, cash_assets: 1 } });
    const body = await api.json("PUT", "/api/v1/assets/", 422, {
      token: user.token,
      body: { cash_assets: "lots", currency: "EUR", today_pnl: "1e", total_assets: true },
    });
    expect(body.detail.map((issue: any) => issue.loc.join(".")).sort()).toEqual(["body.cash_assets", "body.currency", "body.today_pnl", "body.total_assets"]);
    for (const [method, path] of [
      ["POST", "/api/v1/assets/"],
      ["PUT", "/api/v1/assets/"],
      ["POST", "/api/v1/assets/simulated/"],
      ["PUT", "/api/v1/assets/simulated"],
      ["POST", "/api/v1/assets/positions"],
      ["POST", "/api/v1/assets/simulated/positions"],
      ["POST", "/api/v1/assets/sync"],
    ]) {
      for (const garbage of ["not json", "[]", "null", '"text"', '{"cash_assets": {}, "quantity": "NaN", "symbol": 5, "user_id": 7}']) {
        const response = await api.request(method, path, { token: user.token, body: garbage });
        expect(response.status, `${method} ${path} ${garbage}`).toBe(422);
      }
    }
  });
});

describe("positions", () => {
  it("creates, lists, updates and deletes a position with decimal strings and option fields", async () => {
    const user = await api.createUser();
    const created = await api.json("POST", "/api/v1/assets/positions", 201, { token: user.token, body: position(user.id) });
    expect(created).toMatchObject({
      user_id: user.id,
      symbol: "AAPL.US",
      quantity: "10",
      available_quantity: "8",
      cost_price: "150.25",
      current_price: null,
      contract_multiplier: "1",
      option_type: null,
      strike_price: null,
      expiry_date: null,
    });
    const option = await api.json("POST", "/api/v1/assets/positions", 201, {
      token: user.token,
      body: position(user.id, {
        symbol: "AAPL260417C110000.US",
        symbol_name: "AAPL 260417 110.0 Call",
        asset_type: "option",
        quantity: 2,
        available_quantity: 2,
        cost_price: 5.1,
        current_price: "6.35",
        option_type: "call",
        strike_price: 110,
        expiry_date: "2026-04-17",
      }),
    });
    expect(option).toMatchObject({ contract_multiplier: "100", option_type: "call", strike_price: "110", expiry_date: "2026-04-17", current_price: "6.35" });

    const listed = await api.json("GET", "/api/v1/assets/positions", 200, { token: user.token });
    expect(listed.map((p: any) => p.symbol)).toEqual(["AAPL.US", "AAPL260417C110000.US"]);

    const updated = await api.json("PUT", `/api/v1/assets/positions/${created.id}`, 200, {
      token: user.token,
      body: { quantity: "12", available_quantity: 12, current_price: 181.2 },
    });
    expect(updated).toMatchObject({ quantity: "12", available_quantity: "12", current_price: "181.2", cost_price: "150.25", created_at: created.created_at });

    const response = await api.request("DELETE", `/api/v1/assets/positions/${created.id}`, { token: user.token });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
    expect((await api.json("GET", "/api/v1/assets/positions", 200, { token: user.token })).map((p: any) => p.id)).toEqual([option.id]);
  });

  it("normalises a bare ticker and an HK code with leading zeros", async () => {
    const user = await api.createUser();
    const hk = await api.json("POST", "/api/v1/assets/positions", 201, {
      token: user.token,
      body: position(user.id, { symbol: "00700", symbol_name: "Tencent", market: "HK", currency: "HKD", quantity: 100, available_quantity: 100 }),
    });
    expect(hk.symbol).toBe("700.HK");
  });

  it("answers 404 POSITION_NOT_FOUND for an unknown id and for a real id under the simulated path", async () => {
    const user = await api.createUser();
    const real = await api.json("POST", "/api/v1/assets/positions", 201, { token: user.token, body: position(user.id) });
    for (const [method, path, body] of [
      ["PUT", "/api/v1/assets/positions/unknown", { quantity: 1 }],
      ["DELETE", "/api/v1/assets/positions/unknown", undefined],
      ["PUT", `/api/v1/assets/simulated/positions/${real.id}`, { quantity: 1 }],
      ["DELETE", `/api/v1/assets/simulated/positions/${real.id}`, undefined],
    ] as const) {
      expect((await api.json(method, path, 404, { token: user.token, body })).error_code, `${method} ${path}`).toBe("POSITION_NOT_FOUND");
    }
  });

  it("answers 403 to another user on every position and account endpoint", async () => {
    const owner = await api.createUser();
    const other = await api.createUser();
    const real = await api.json("POST", "/api/v1/assets/positions", 201, { token: owner.token, body: position(owner.id) });
    const simulated = await api.json("POST", "/api/v1/assets/simulated/positions", 201, {
      token: owner.token,
      body: { symbol: "MSFT.US", symbol_name: "Microsoft", quantity: 1, cost_price: 400, market: "US", currency: "USD" },
    });
    for (const [method, path, body] of [
      ["PUT", `/api/v1/assets/positions/${real.id}`, { quantity: 1 }],
      ["DELETE", `/api/v1/assets/positions/${real.id}`, undefined],
      ["PUT", `/api/v1/assets/simulated/positions/${simulated.id}`, { quantity: 1 }],
      ["DELETE", `/api/v1/assets/simulated/positions/${simulated.id}`, undefined],
      ["POST", "/api/v1/assets/positions", position(owner.id)],
      ["GET", `/api/v1/assets/positions?user_id=${owner.id}`, undefined],
      ["GET", `/api/v1/assets/simulated/positions?user_id=${owner.id}`, undefined],
      ["GET", `/api/v1/assets/overview?user_id=${owner.id}`, undefined],
      ["POST", "/api/v1/assets/sync", { user_id: owner.id }],
      ["POST", `/api/v1/assets/sync-to-simulated?user_id=${owner.id}`, undefined],
    ] as const) {
      expect((await api.json(method, path, 403, { token: other.token, body })).error_code, `${method} ${path}`).toBe("ACCESS_DENIED");
    }
    // The administrator may.
    await api.json("PUT", `/api/v1/assets/positions/${real.id}`, 200, { token: admin, body: { symbol_name: "Apple Inc." } });
  });

  it("lists every problem of a bad position in one 422, including the cross-field rules", async () => {
    const user = await api.createUser();
    const body = await api.json("POST", "/api/v1/assets/positions", 422, {
      token: user.token,
      body: position(user.id, {
        symbol: "700.HK",
        quantity: 5,
        available_quantity: 6,
        cost_price: -1,
        currency: "EUR",
        option_type: "call",
        expiry_date: "2026-02-30",
      }),
    });
    expect(body.detail.map((issue: any) => issue.loc.join(".")).sort()).toEqual([
      "body.available_quantity",
      "body.cost_price",
      "body.currency",
      "body.expiry_date", // not a real date
      "body.expiry_date", // and a stock has none
      "body.option_type",
      "body.symbol", // 700.HK is not a US symbol
    ]);
    const missing = await api.json("POST", "/api/v1/assets/simulated/positions", 422, { token: user.token, body: {} });
    expect(missing.detail.map((issue: any) => issue.loc.join(".")).sort()).toEqual([
      "body.cost_price",
      "body.currency",
      "body.market",
      "body.quantity",
      "body.symbol",
      "body.symbol_name",
    ]);
    const created = await api.json("POST", "/api/v1/assets/positions", 201, { token: user.token, body: position(user.id) });
    const update = await api.json("PUT", `/api/v1/assets/positions/${created.id}`, 422, { token: user.token, body: { quantity: 3, strike_price: 5 } });
    expect(update.detail.map((issue: any) => issue.loc.join(".")).sort()).toEqual(["body.available_quantity", "body.strike_price"]);
  });
});

describe("overviews", () => {
  it("values the simulated account per currency and in the base currency after a holding is edited", async () => {
    // Quotes stand in for the market for one symbol; the other is valued at its cost.
    const quotes: PriceSource = { lastPrices: async (symbols): Promise<Record<string, string>> => (symbols.includes("700.HK") ? { "700.HK": "320" } : {}) };
    const priced = await createTestApi({ FX_RATES_PER_USD: "HKD=8" }, { brokerAdapters: { prices: quotes } });
    const user = await priced.createUser();
    await priced.json("PUT", "/api/v1/assets/simulated/", 200, { token: user.token, body: { cash_assets: "10000", currency: "USD" } });
    const apple = await priced.json("POST", "/api/v1/assets/simulated/positions", 201, {
      token: user.token,
      body: { symbol: "AAPL.US", symbol_name: "Apple", quantity: 10, cost_price: "150", market: "US", currency: "USD" },
    });
    expect(apple).toMatchObject({ id: `${user.id}:AAPL.US`, quantity: "10", cost_price: "150", asset_type: "stock", current_price: null });
    expect(apple).not.toHaveProperty("available_quantity");
    await priced.json("POST", "/api/v1/assets/simulated/positions", 201, {
      token: user.token,
      body: { symbol: "700.HK", symbol_name: "Tencent", quantity: 100, cost_price: 300, market: "HK", currency: "HKD" },
    });
    // The simulated account is the paper broker's, which holds stocks only.
    const option = await priced.json("POST", "/api/v1/assets/simulated/positions", 422, {
      token: user.token,
      body: { symbol: "AAPL260417C110000.US", symbol_name: "AAPL call", quantity: 2, cost_price: 5, market: "US", currency: "USD", option_type: "call" },
    });
    expect(option.detail.map((issue: any) => issue.loc.join("."))).toEqual(["body.asset_type"]);
    // The edit under test: Apple's holding grows from 10 to 20 shares at the same cost per share.
    await priced.json("PUT", `/api/v1/assets/simulated/positions/${apple.id}`, 200, { token: user.token, body: { quantity: 20 } });

    const overview = await priced.json("GET", "/api/v1/assets/simulated/overview", 200, { token: user.token });
    // USD: cash 10,000; Apple 20 × 150 = 3,000 at cost (no quote).
    // HKD: Tencent 100 × 320 (quoted) = 32,000 (cost 30,000), i.e. 4,000 (cost 3,750) at 8 HKD per USD.
    expect(overview).toMatchObject({
      user_id: user.id,
      mode: "simulated",
      base_currency: "USD",
      has_account: true,
      cash: "10000.00",
      positions_value: "7000.00",
      cost_value: "6750.00",
      total_assets: "17000.00",
      unrealized_pnl: "250.00",
      unrealized_pnl_ratio: "0.0370",
      position_count: 2,
    });
    expect(overview.by_currency).toEqual([
      { currency: "USD", cash: "10000.00", positions_value: "3000.00", cost_value: "3000.00", unrealized_pnl: "0.00", total_assets: "13000.00", fx_rate: "1" },
      {
        currency: "HKD",
        cash: "0.00",
        positions_value: "32000.00",
        cost_value: "30000.00",
        unrealized_pnl: "2000.00",
        total_assets: "32000.00",
        fx_rate: "0.125",
      },
    ]);
    const bySymbol = Object.fromEntries(overview.positions.map((p: any) => [p.symbol, p]));
    expect(bySymbol["AAPL.US"]).toMatchObject({ quantity: "20", price: "150", price_source: "cost", market_value: "3000.00" });
    expect(bySymbol["700.HK"]).toMatchObject({ price: "320", price_source: "quote", market_value: "32000.00" });

    const inHkd = await priced.json("GET", "/api/v1/assets/simulated/overview?currency=HKD&include_positions=false", 200, { token: user.token });
    expect(inHkd).toMatchObject({ base_currency: "HKD", cash: "80000.00", positions_value: "56000.00", total_assets: "136000.00" });
    expect(inHkd).not.toHaveProperty("positions");
  });

  it("prices positions at the selected market's quotes by default, and symbols it does not know at their stored price", async () => {
    const frozen = Date.now(); // the simulated market moves with the clock; tokens still check real time
    const market = await createTestApi({}, { now: () => frozen });
    const user = await market.createUser();
    for (const [symbol, currency, marketName] of [
      ["AAPL.US", "USD", "US"],
      ["ZZZZ.US", "USD", "US"],
    ]) {
      await market.json("POST", "/api/v1/assets/positions", 201, {
        token: user.token,
        body: position(user.id, { symbol, currency, market: marketName, quantity: 3, available_quantity: 3, cost_price: 100, current_price: 101 }),
      });
    }
    const [quote] = await (await market.services.marketData()).quote(["AAPL.US"]);
    const overview = await market.json("GET", "/api/v1/assets/overview", 200, { token: user.token });
    const bySymbol = Object.fromEntries(overview.positions.map((p: any) => [p.symbol, p]));
    expect(bySymbol["AAPL.US"]).toMatchObject({ price: new Dec(quote.last_done).toFixed(), price_source: "quote" });
    expect(bySymbol["AAPL.US"].market_value).toBe(new Dec(quote.last_done).times(3).toFixed(2));
    expect(bySymbol["ZZZZ.US"]).toMatchObject({ price: "101", price_source: "stored", market_value: "303.00" });
  });

  it("answers an empty overview for a user with nothing, and 422 for a bad query", async () => {
    const user = await api.createUser();
    const overview = await api.json("GET", "/api/v1/assets/overview", 200, { token: user.token });
    expect(overview).toMatchObject({ has_account: false, cash: "0.00", total_assets: "0.00", position_count: 0, by_currency: [], positions: [] });
    const bad = await api.json("GET", "/api/v1/assets/overview?currency=EUR&include_positions=maybe", 422, { token: user.token });
    expect(bad.detail.map((issue: any) => issue.loc.join(".")).sort()).toEqual(["query.currency", "query.include_positions"]);
  });
});

describe("sync", () => {
  it("copies the real account and positions into the simulated portfolio, replacing what it held", async () => {
    const user = await api.createUser();
    await api.json("POST", "/api/v1/assets/", 201, { token: user.token, body: { user_id: user.id, cash_assets: "5000", currency: "HKD" } });
    await api.json("POST", "/api/v1/assets/positions", 201, { token: user.token, body: position(user.id, { current_price: "170" }) });
    await api.json("POST", "/api/v1/assets/positions", 201, {
      token: user.token,
      body: position(user.id, {
        symbol: "700.HK",
        symbol_name: "Tencent",
        market: "HK",
        currency: "HKD",
        quantity: 200,
        available_quantity: 100,
        cost_price: 310,
      }),
    });
    const stale = await api.json("POST", "/api/v1/assets/simulated/positions", 201, {
      token: user.token,
      body: { symbol: "TSLA.US", symbol_name: "Tesla", quantity: 1, cost_price: 200, market: "US", currency: "USD" },
    });

    const result = await api.json("POST", "/api/v1/assets/sync-to-simulated", 200, { token: user.token });
    expect(result).toMatchObject({
      success: true,
      synced_positions: 2,
      synced_assets: { cash_assets: "5000.00", currency: "HKD", user_id: user.id, cash_by_currency: { USD: "0.00", HKD: "5000.00" } },
    });
    expect(await api.json("GET", "/api/v1/assets/simulated/", 200, { token: user.token })).toMatchObject({ cash_assets: "5000.00", currency: "HKD" });
    const copied = await api.json("GET", "/api/v1/assets/simulated/positions", 200, { token: user.token });
    // Copied together, so listed by symbol.
    expect(copied.map((p: any) => [p.symbol, p.quantity, p.cost_price, p.current_price])).toEqual([
      ["700.HK", "200", "310", null],
      ["AAPL.US", "10", "150.25", null],
    ]);
    expect(copied.map((p: any) => p.id)).not.toContain(stale.id);

    // Copying again keeps the simulated positions' identities.
    await api.json("POST", "/api/v1/assets/sync-to-simulated", 200, { token: user.token });
    expect((await api.json("GET", "/api/v1/assets/simulated/positions", 200, { token: user.token })).map((p: any) => p.id)).toEqual(
      copied.map((p: any) => p.id),
    );
  });

  it("answers 404 ASSET_NOT_FOUND when there is no real account to copy", async () => {
    const user = await api.createUser();
    expect((await api.json("POST", "/api/v1/assets/sync-to-simulated", 404, { token: user.token })).error_code).toBe("ASSET_NOT_FOUND");
  });

  it("answers success false for a futu broker and for a LongPort broker it cannot reach, changing nothing", async () => {
    const user = await api.createUser();
    const futu = await api.json("POST", "/api/v1/brokers", 201, {
      token: user.token,
      body: { name: "Futu", code: "F", type: "futu", user_id: user.id, config: { host: "127.0.0.1", port: 11111 } },
    });
    const unsupported = await api.json("POST", "/api/v1/assets/sync", 200, { token: user.token, body: { user_id: user.id, broker_id: futu.id } });
    expect(unsupported).toMatchObject({ success: false, synced_assets: null, synced_positions: null, message: expect.stringContaining("type futu") });
    await api.json("POST", "/api/v1/brokers", 201, {
      token: user.token,
      body: {
        name: "LP",
        code: "LP",
        type: "longport",
        user_id: user.id,
        config: { app_key: "k-0123456789", app_secret: "s-0123456789", access_token: "t-0123456789" },
      },
    });
    // Without broker_id the first broker that can report an account is chosen: the LongPort one.
    const offline = await api.json("POST", "/api/v1/assets/sync", 200, { token: user.token, body: { user_id: user.id } });
    expect(offline).toMatchObject({
      success: false,
      synced_assets: null,
      message: expect.stringContaining("Could not read the account of broker 'LP': LongPort"),
    });
    await api.json("GET", "/api/v1/assets/", 404, { token: user.token });
  });
});

describe("sync from the paper account", () => {
  /** Tuesday 13 April 2027, 10:00:30 in Hong Kong: its regular session. (After real time, so tokens issued "now" stay valid.) */
  const HK_OPEN = "2027-04-13T02:00:30Z";
  /** The same Tuesday, 10:35:30 in New York. */
  const US_OPEN = "2027-04-13T14:35:30Z";
  const clock = new ManualClock(HK_OPEN);
  let paper: TestApi;
  beforeAll(async () => {
    paper = await createTestApi({ FX_RATES_PER_USD: "HKD=8" }, { now: () => clock.now() });
  });

  const trade = (token: string, path: string, body: unknown) => paper.json("POST", `/api/v1/api-test/trade/${path}`, 200, { token, body });

  /** Buys at market through the trade pass-through endpoints; answers the cash the fills moved (each to the cent) and the fees. */
  async function buyAtMarket(token: string, symbol: string, quantity: number): Promise<{ amount: Dec; fee: Dec }> {
    const submitted = await trade(token, "submit-order", { symbol, order_type: "MO", side: "Buy", submitted_quantity: quantity, time_in_force: "Day" });
    expect(submitted).toMatchObject({ success: true, error: null });
    const { order_id } = submitted.data;
    const detail = (await trade(token, "order-detail", { order_id })).data;
    expect(detail).toMatchObject({ status: "FilledStatus", executed_quantity: String(quantity) });
    const fills: { quantity: string; price: string }[] = (await trade(token, "today-executions", { order_id })).data.executions;
    const amount = fills.reduce((sum, fill) => sum.plus(new Dec(fill.quantity).times(fill.price).toDecimalPlaces(2)), new Dec(0));
    return { amount, fee: new Dec(detail.charge_detail.total_amount) };
  }
  /** The paper broker's cost per share: what the shares cost, buy fees included, to 4 places. */
  const costPerShare = (buy: { amount: Dec; fee: Dec }, quantity: number) => buy.amount.plus(buy.fee).div(quantity).toDecimalPlaces(4).toFixed();

  it("syncs the paper account into real assets, copies them to simulated, and an edited simulated position changes the overview; another user gets 403", async () => {
    clock.set(HK_OPEN);
    // Users are created while the administrator's first token is fresh; later requests log in again.
    const owner = await paper.createUser();
    const intruderAccount = await paper.createUser();
    const tencent = await buyAtMarket(owner.token, "700.HK", 100);
    clock.set(US_OPEN);
    // Tokens last 8 hours of service time and the clock moved 12.5.
    const token = await paper.login(owner.username, owner.password);
    const apple = await buyAtMarket(token, "AAPL.US", 10);
    const usd = new Dec(1_000_000).minus(apple.amount).minus(apple.fee);
    const hkd = new Dec(1_000_000).minus(tencent.amount).minus(tencent.fee);

    const synced = await paper.json("POST", "/api/v1/assets/sync-from-provider", 200, { token });
    expect(synced).toMatchObject({ success: true, synced_positions: 2, message: expect.stringContaining("from your paper account") });
    expect(synced.synced_assets).toMatchObject({
      user_id: owner.id,
      currency: "USD",
      cash_by_currency: { USD: usd.toFixed(), HKD: hkd.toFixed() },
      cash_assets: usd.plus(hkd.div(8)).toDecimalPlaces(2).toFixed(),
    });
    const real = await paper.json("GET", "/api/v1/assets/positions", 200, { token });
    expect(real.map((p: any) => [p.symbol, p.quantity, p.available_quantity, p.cost_price, p.currency, p.market, p.asset_type])).toEqual([
      ["700.HK", "100", "100", costPerShare(tencent, 100), "HKD", "HK", "stock"],
      ["AAPL.US", "10", "10", costPerShare(apple, 10), "USD", "US", "stock"],
    ]);
    const overview = await paper.json("GET", "/api/v1/assets/overview", 200, { token });
    expect(overview.by_currency.map((c: any) => [c.currency, c.cash])).toEqual([
      ["USD", money(usd)],
      ["HKD", money(hkd)],
    ]);
    // The reported totals are the overview's at the moment of the sync (the clock has not moved).
    expect(synced.synced_assets).toMatchObject({
      total_assets: new Dec(overview.total_assets).toFixed(),
      position_assets: new Dec(overview.positions_value).toFixed(),
    });

    // A paper broker of the owner reads the same account; matched positions keep their ids.
    const broker = await paper.json("POST", "/api/v1/brokers", 201, {
      token,
      body: { name: "Paper", code: "P", type: "paper", user_id: owner.id, config: {} },
    });
    const again = await paper.json("POST", "/api/v1/assets/sync", 200, { token, body: { user_id: owner.id, broker_id: broker.id } });
    expect(again).toMatchObject({
      success: true,
      synced_positions: 2,
      message: expect.stringContaining("broker 'Paper'"),
      synced_assets: { cash_by_currency: synced.synced_assets.cash_by_currency },
    });
    expect((await paper.json("GET", "/api/v1/assets/positions", 200, { token })).map((p: any) => p.id)).toEqual(real.map((p: any) => p.id));

    const copied = await paper.json("POST", "/api/v1/assets/sync-to-simulated", 200, { token });
    expect(copied).toMatchObject({
      success: true,
      synced_positions: 2,
      synced_assets: { cash_assets: money(usd), cash_by_currency: { USD: money(usd), HKD: money(hkd) } },
    });
    const simulated = await paper.json("GET", "/api/v1/assets/simulated/positions", 200, { token });
    expect(simulated.map((p: any) => [p.symbol, p.quantity, p.cost_price])).toEqual(real.map((p: any) => [p.symbol, p.quantity, p.cost_price]));
    const before = await paper.json("GET", "/api/v1/assets/simulated/overview", 200, { token });
    expect(before).toMatchObject({ cash: overview.cash, positions_value: overview.positions_value, total_assets: overview.total_assets });

    const simulatedApple = simulated.find((p: any) => p.symbol === "AAPL.US");
    await paper.json("PUT", `/api/v1/assets/simulated/positions/${simulatedApple.id}`, 200, { token, body: { quantity: 25 } });
    const after = await paper.json("GET", "/api/v1/assets/simulated/overview", 200, { token });
    const price = new Dec(after.positions.find((p: any) => p.symbol === "AAPL.US").price);
    expect(after.positions.find((p: any) => p.symbol === "AAPL.US")).toMatchObject({ quantity: "25", market_value: money(price.times(25)) });
    expect(after.by_currency[0]).toMatchObject({ currency: "USD", cash: money(usd), positions_value: money(price.times(25)) });
    expect(new Dec(after.total_assets).minus(before.total_assets).toFixed(2)).toBe(price.times(15).toFixed(2));
    // The real portfolio is untouched.
    expect((await paper.json("GET", "/api/v1/assets/overview", 200, { token })).total_assets).toBe(overview.total_assets);

    const intruder = { ...intruderAccount, token: await paper.login(intruderAccount.username, intruderAccount.password) };
    for (const [method, path, body] of [
      ["POST", "/api/v1/assets/sync", { user_id: owner.id }],
      ["POST", "/api/v1/assets/sync", { user_id: intruder.id, broker_id: broker.id }],
      ["POST", `/api/v1/assets/sync-to-simulated?user_id=${owner.id}`, undefined],
      ["PUT", `/api/v1/assets/simulated/positions/${simulatedApple.id}`, { quantity: 1 }],
      ["GET", `/api/v1/assets/simulated/overview?user_id=${owner.id}`, undefined],
      ["GET", `/api/v1/assets/simulated/positions?user_id=${owner.id}`, undefined],
      ["GET", `/api/v1/assets/overview?user_id=${owner.id}`, undefined],
      ["GET", `/api/v1/assets/positions?user_id=${owner.id}`, undefined],
    ] as const) {
      expect((await paper.json(method, path, 403, { token: intruder.token, body })).error_code, `${method} ${path}`).toBe("ACCESS_DENIED");
    }
    // An administrator may sync for anyone, but only from that user's own brokers.
    const refused = await paper.json("POST", "/api/v1/assets/sync", 422, {
      token: await paper.login(ADMIN.username, ADMIN.password),
      body: { user_id: intruder.id, broker_id: broker.id },
    });
    expect(refused.detail.map((issue: any) => issue.loc.join("."))).toEqual(["body.broker_id"]);
  });

  it("keeps a synced cash breakdown through other edits, and an edit of the cash makes it one line again", async () => {
    clock.set(HK_OPEN);
    const user = await paper.createUser();
    const synced = await paper.json("POST", "/api/v1/assets/sync-from-provider", 200, { token: user.token });
    // A new paper account: PAPER_INITIAL_CASH's default, 1,000,000 USD and 1,000,000 HKD (125,000 USD at 8).
    expect(synced).toMatchObject({
      success: true,
      synced_positions: 0,
      synced_assets: { cash_assets: "1125000", cash_by_currency: { USD: "1000000", HKD: "1000000" } },
    });
    const noted = await paper.json("PUT", "/api/v1/assets/", 200, { token: user.token, body: { today_pnl: "12.5" } });
    expect(noted.cash_by_currency).toEqual({ USD: "1000000", HKD: "1000000" });
    const edited = await paper.json("PUT", "/api/v1/assets/", 200, { token: user.token, body: { cash_assets: "500" } });
    expect(edited).toMatchObject({ cash_assets: "500", currency: "USD", cash_by_currency: null });
    const overview = await paper.json("GET", "/api/v1/assets/overview", 200, { token: user.token });
    expect(overview.by_currency.map((c: any) => [c.currency, c.cash])).toEqual([["USD", "500.00"]]);
  });

  it("answers success false when LongPort is selected and unreachable, while a paper broker still reads the paper account", async () => {
    // Provider settings are service-wide: this test has its own service.
    const local = await createTestApi({ FX_RATES_PER_USD: "HKD=8" });
    const user = await local.createUser();
    await local.json("PUT", "/api/v1/settings/data-source", 200, {
      token: await local.adminToken(),
      body: {
        type: "longport",
        provider_config: { app_key: "lp-app-key-0123456789", app_secret: "lp-app-secret-abcdefghij", access_token: "lp-access-token-ZYXWVU" },
      },
    });
    const offline = await local.json("POST", "/api/v1/assets/sync-from-provider", 200, { token: user.token });
    expect(offline).toMatchObject({
      success: false,
      synced_assets: null,
      synced_positions: null,
      message: expect.stringContaining("Could not read the LongPort account of the provider settings: LongPort"),
    });
    await local.json("GET", "/api/v1/assets/", 404, { token: user.token });

    const broker = await local.json("POST", "/api/v1/brokers", 201, {
      token: user.token,
      body: { name: "Paper", code: "P", type: "paper", user_id: user.id, config: {} },
    });
    const synced = await local.json("POST", "/api/v1/assets/sync", 200, { token: user.token, body: { user_id: user.id, broker_id: broker.id } });
    expect(synced).toMatchObject({
      success: true,
      synced_positions: 0,
      synced_assets: { cash_assets: "1125000", cash_by_currency: { USD: "1000000", HKD: "1000000" } },
    });
  });
});
