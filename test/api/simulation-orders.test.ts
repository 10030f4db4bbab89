import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../packages/core/src/provider/clock";
import { createTestApi, type TestApi } from "../support/harness";

/** Tuesday 13 April 2027, 10:35:30 in New York: the US regular session (after real time, so tokens issued now stay valid). */
const US_OPEN = "2027-04-13T14:35:30Z";
const SATURDAY = "2027-04-17T15:00:00Z";
const PATH = "/api/v1/trading/simulation/orders";

const clock = new ManualClock(US_OPEN);
let api: TestApi;
let user: { id: string; username: string; password: string };
let token: string;

beforeAll(async () => {
  api = await createTestApi({}, { now: () => clock.now() });
  user = await api.createUser();
});
beforeEach(async () => {
  clock.set(US_OPEN);
  token = await api.login(user.username, user.password);
});

describe("POST /trading/simulation/orders", () => {
  it("fills a market buy on the caller's paper account at once, with its fees, and the paper account shows it", async () => {
    const order = await api.json("POST", PATH, 201, { token, body: { symbol: "aapl.us", side: "buy", quantity: "10" } });
    expect(order).toMatchObject({
      session_id: null,
      venue: "paper",
      account_id: user.id,
      symbol: "AAPL.US",
      side: "buy",
      order_type: "market",
      provider_order_type: "MO",
      quantity: "10",
      status: "filled",
      filled_quantity: "10",
      provider_status: "FilledStatus",
    });
    expect(Number(order.filled_price)).toBeGreaterThan(0);
    expect(Number(order.commission)).toBeGreaterThan(0);
    expect(order.trading_fee).toMatchObject({ total_amount: order.commission, currency: "USD" });
    // The same order through the trade pass-through (the same paper account).
    const detail = await api.json("POST", "/api/v1/api-test/trade/order-detail", 200, { token, body: { order_id: order.id } });
    expect(detail.data).toMatchObject({ order_id: order.id, status: "FilledStatus", executed_quantity: "10", executed_price: order.filled_price });
  });

  it("rests a limit below the market and a stop above it as pending orders", async () => {
    const limit = await api.json("POST", PATH, 201, {
      token,
      body: { symbol: "AAPL.US", side: "buy", order_type: "limit", price: "1", quantity: "1", time_in_force: "gtc" },
    });
    expect(limit).toMatchObject({ order_type: "limit", provider_order_type: "LO", price: "1", status: "pending", filled_at: null, commission: null });
    const stop = await api.json("POST", PATH, 201, { token, body: { symbol: "AAPL.US", side: "buy", order_type: "stop", price: "100000", quantity: "1" } });
    expect(stop).toMatchObject({ order_type: "stop", provider_order_type: "MIT", price: "100000", status: "pending" });
  });

  it("refuses bad bodies with every problem, and the broker's refusals with its code", async () => {
    const bad = await api.json("POST", PATH, 422, { token, body: { symbol: "AAPL.US", side: "hold", order_type: "limit", quantity: "-1" } });
    expect(bad.detail.map((issue: { loc: string[] }) => issue.loc.join(".")).sort()).toEqual(["body.price", "body.quantity", "body.side"]);
    await api.json("POST", PATH, 422, { token, body: { symbol: "AAPL.US", side: "buy", price: "10", quantity: "1" } });
    // The board lot of 700.HK is 100 shares.
    expect(
      (await api.json("POST", PATH, 400, { token, body: { symbol: "700.HK", side: "buy", order_type: "limit", price: "300", quantity: "7" } })).error_code,
    ).toBe("INVALID_LOT_SIZE");
    clock.set(SATURDAY);
    token = await api.login(user.username, user.password);
    expect((await api.json("POST", PATH, 400, { token, body: { symbol: "AAPL.US", side: "buy", quantity: "1" } })).error_code).toBe("MARKET_CLOSED");
    const response = await api.request("POST", PATH, { body: { symbol: "AAPL.US", side: "buy", quantity: "1" } });
    expect(response.status).toBe(401);
  });
});
