import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Dec } from "../money/decimal";
import type { AssetRecord, Position } from "./portfolio";
import { valuePortfolio } from "./overview";

const perUsd = { USD: "1", HKD: "8", CNY: "7", SGD: "1.25" } as const;

const account = (cash: string, currency: AssetRecord["currency"] = "USD"): AssetRecord => ({
  id: "a",
  user_id: "u",
  mode: "real",
  cash_assets: cash,
  currency,
  total_assets: null,
  position_assets: null,
  today_pnl: null,
  created_at: "",
  updated_at: "",
});

const holding = (fields: Partial<Position>): Position => ({
  id: fields.symbol ?? "p",
  user_id: "u",
  mode: "real",
  symbol: "AAPL.US",
  symbol_name: "",
  asset_type: "stock",
  quantity: "1",
  available_quantity: "1",
  cost_price: "1",
  current_price: null,
  market: "US",
  currency: "USD",
  contract_multiplier: "1",
  option_type: null,
  strike_price: null,
  expiry_date: null,
  created_at: "",
  updated_at: "",
  ...fields,
});

const value = (overrides: Partial<Parameters<typeof valuePortfolio>[0]>) =>
  valuePortfolio({ userId: "u", mode: "real", positions: [], quotes: {}, perUsd, fxSource: "test", includePositions: true, asOf: "t", ...overrides });

describe("valuePortfolio", () => {
  it("prefers a quote over the stored price over the cost", () => {
    const overview = value({
      positions: [
        holding({ symbol: "A.US", quantity: "2", cost_price: "10", current_price: "11" }),
        holding({ symbol: "B.US", quantity: "2", cost_price: "10", current_price: "11" }),
        holding({ symbol: "C.US", quantity: "2", cost_price: "10" }),
      ],
      quotes: { "A.US": "12.5" },
    });
    expect(overview.positions!.map((p) => [p.symbol, p.price, p.price_source, p.market_value])).toEqual([
      ["A.US", "12.5", "quote", "25.00"],
      ["B.US", "11", "stored", "22.00"],
      ["C.US", "10", "cost", "20.00"],
    ]);
    expect(overview.unrealized_pnl).toBe("7.00");
  });

  it("converts each currency into the base through the per-USD rates, base currency first", () => {
    const overview = value({
      asset: account("100", "HKD"),
      positions: [
        holding({ quantity: "3", cost_price: "2", current_price: "4" }),
        holding({ symbol: "D05.SG", market: "SG", currency: "SGD", quantity: "10", cost_price: "1", current_price: "1.25" }),
      ],
    });
    // Base HKD (the account's): cash 100; 12 USD = 96 HKD; 12.5 SGD = 10 USD = 80 HKD.
    expect(overview.base_currency).toBe("HKD");
    expect(overview.by_currency.map((entry) => [entry.currency, entry.fx_rate])).toEqual([
      ["HKD", "1"],
      ["SGD", "6.4"],
      ["USD", "8"],
    ]);
    expect([overview.cash, overview.positions_value, overview.total_assets]).toEqual(["100.00", "176.00", "276.00"]);
  });

  it("always totals to cash plus positions value, within a cent of rounding", () => {
    const amount = fc.integer({ min: 0, max: 10_000_000 }).map((cents) => new Dec(cents).dividedBy(100).toFixed());
    fc.assert(
      fc.property(
        amount,
        fc.array(fc.tuple(amount, amount, fc.constantFrom("USD", "HKD", "CNY") as fc.Arbitrary<Position["currency"]>), { maxLength: 6 }),
        (cash, rows) => {
          const overview = value({
            asset: account(cash),
            positions: rows.map(([quantity, price, currency], index) =>
              holding({ symbol: `S${index}.US`, quantity, cost_price: price, current_price: price, currency }),
            ),
          });
          const sum = new Dec(overview.cash).plus(overview.positions_value);
          expect(sum.minus(overview.total_assets).abs().lessThanOrEqualTo("0.01")).toBe(true);
          expect(overview.unrealized_pnl).toBe("0.00");
        },
      ),
    );
  });
});
