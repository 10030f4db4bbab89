import { describe, expect, it } from "vitest";
import type { AccountBalance, CashInfo, StockPosition } from "../provider/order-gateway";
import { cashOf, heldToPositions } from "./sync";

const cashLine = (currency: string, available: string, frozen = "0"): CashInfo => ({
  withdraw_cash: available,
  available_cash: available,
  frozen_cash: frozen,
  settling_cash: "0",
  currency,
});

const balance = (currency: string, cashInfos: CashInfo[]): AccountBalance => ({
  total_cash: "0",
  max_finance_amount: "0",
  remaining_finance_amount: "0",
  risk_level: 0,
  margin_call: "0",
  currency,
  cash_infos: cashInfos,
  net_assets: "0",
  init_margin: "0",
  maintenance_margin: "0",
  buy_power: "0",
  frozen_transaction_fees: [],
});

const holding = (fields: Partial<StockPosition> & Pick<StockPosition, "symbol">): StockPosition => ({
  symbol_name: fields.symbol,
  quantity: "100",
  available_quantity: "100",
  currency: "USD",
  cost_price: "10",
  market: "US",
  init_quantity: null,
  ...fields,
});

describe("cash of an account", () => {
  it("adds available and frozen cash per currency, counting each currency once across balance entries", () => {
    // The paper broker answers one entry per currency, each listing every currency's line.
    const lines = [cashLine("USD", "9800.50", "199.50"), cashLine("HKD", "125000")];
    expect(cashOf([balance("USD", lines), balance("HKD", lines)])).toEqual({ cash: { USD: "10000", HKD: "125000" }, skipped: [] });
  });

  it("leaves out empty lines and reports currencies the service does not know", () => {
    const lines = [cashLine("USD", "0"), cashLine("CNH", "320.5"), cashLine("SGD", "-12.25"), cashLine("EUR", "0")];
    expect(cashOf([balance("HKD", lines)])).toEqual({ cash: { SGD: "-12.25" }, skipped: ["320.5 CNH"] });
  });
});

describe("holdings as positions", () => {
  it("merges a symbol held in two channels, averaging its cost by quantity", () => {
    const { kept, skipped } = heldToPositions("user-1", {
      channels: [
        { account_channel: "cash", positions: [holding({ symbol: "AAPL.US", quantity: "30", available_quantity: "30", cost_price: "150" })] },
        { account_channel: "margin", positions: [holding({ symbol: "AAPL.US", quantity: "10", available_quantity: "4", cost_price: "170.01" })] },
      ],
    });
    expect(skipped).toEqual([]);
    // (30 × 150 + 10 × 170.01) / 40 = 155.0025
    expect(kept).toEqual([
      expect.objectContaining({
        symbol: "AAPL.US",
        quantity: "40",
        available_quantity: "34",
        cost_price: "155.0025",
        market: "US",
        currency: "USD",
        asset_type: "stock",
      }),
    ]);
  });

  it("spells HK codes without leading zeros, reads option terms from US option symbols and skips unknown markets", () => {
    const { kept, skipped } = heldToPositions("user-1", {
      channels: [
        {
          account_channel: "lb",
          positions: [
            holding({ symbol: "00005.HK", symbol_name: "HSBC", market: "HK", currency: "HKD", quantity: "400", available_quantity: "0", cost_price: "65.2" }),
            holding({ symbol: "AAPL260417P100000.US", quantity: "1", available_quantity: "1", cost_price: "2.5" }),
            holding({ symbol: "BTCUSD.HAS", market: "Crypto" }),
            // A market the binding reports as Unknown falls back to the symbol's suffix.
            holding({ symbol: "D05.SG", market: "Unknown", currency: "SGD" }),
          ],
        },
      ],
    });
    expect(skipped).toEqual(["BTCUSD.HAS"]);
    expect(kept.map((position) => [position.symbol, position.market, position.currency, position.quantity, position.available_quantity])).toEqual([
      ["5.HK", "HK", "HKD", "400", "0"],
      ["AAPL260417P100000.US", "US", "USD", "1", "1"],
      ["D05.SG", "SG", "SGD", "100", "100"],
    ]);
    expect(kept[1]).toMatchObject({ asset_type: "option", option_type: "put", strike_price: "100", expiry_date: "2026-04-17", contract_multiplier: "100" });
    expect(kept[0]).toMatchObject({ asset_type: "stock", option_type: null, contract_multiplier: "1", user_id: "user-1", mode: "real" });
  });
});
