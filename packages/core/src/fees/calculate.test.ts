import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { ValidationError } from "../errors";
import { type FeeCalculateInput, FeeCalculateResponse } from "./calculate";
import { Fees } from "./index";

type Order = z.input<typeof FeeCalculateInput>;

const usSell = (overrides: Partial<Order> = {}): Order => ({ quantity: 100, price: 190, side: "sell", market: "US", ...overrides });
const hkBuy = (overrides: Partial<Order> = {}): Order => ({ quantity: 1000, price: 400, side: "buy", market: "HK", ...overrides });
const config = (brokerType = "longport", stored?: unknown) => Fees.resolve(brokerType, stored);
/** Regulatory charges only: the broker's own commission and platform fee set to zero. */
const regulatoryOnly = () => config("longport", { hk_fees: { commission_rate: 0, commission_min_per_order: 0, platform_fee_per_order: 0 } });

describe("Fees.calculate, Hong Kong", () => {
  it.each([
    {
      situation: "buying 1,000 700.HK at HK$400 through LongPort after the 2025-06-30 settlement change",
      broker: "longport",
      order: hkBuy(),
      date: "2025-09-15",
      // value 1,000 × 400 = 400,000
      // commission 0; platform 15.00 per order
      // stamp 400,000 × 0.10% = 400.00; SFC × 0.0027% = 10.80; AFRC × 0.00015% = 0.60
      // trading fee × 0.00565% = 22.60; settlement × 0.0042% = 16.80
      // total 15 + 400 + 10.80 + 0.60 + 22.60 + 16.80 = 465.80
      expected: {
        commission: "0.00",
        platform_fee: "15.00",
        stamp_duty: "400.00",
        sfc_levy: "10.80",
        afrc_levy: "0.60",
        exchange_trading_fee: "22.60",
        settlement_fee: "16.80",
        total: "465.80",
      },
      tradeAmount: "400000.00",
      totalCost: "400465.80",
    },
    {
      situation: "the same buy through Futu pays 0.03% commission",
      broker: "futu",
      order: hkBuy(),
      date: "2025-09-15",
      // commission 400,000 × 0.03% = 120.00 (above the HK$3 minimum); the rest as above
      // total 120 + 15 + 400 + 10.80 + 0.60 + 22.60 + 16.80 = 585.80
      expected: { commission: "120.00", platform_fee: "15.00", total: "585.80" },
      tradeAmount: "400000.00",
      totalCost: "400585.80",
    },
    {
      situation: "the same buy on 2025-06-27 pays the old 0.002% settlement fee",
      broker: "longport",
      order: hkBuy(),
      date: "2025-06-27",
      // settlement 400,000 × 0.002% = 8.00, inside HK$2..HK$100
      // total 15 + 400 + 10.80 + 0.60 + 22.60 + 8.00 = 457.00
      expected: { settlement_fee: "8.00", total: "457.00" },
      tradeAmount: "400000.00",
      totalCost: "400457.00",
    },
    {
      situation: "the same buy in 2023 before 17 November pays 0.13% stamp duty",
      broker: "longport",
      order: hkBuy(),
      date: "2023-06-01",
      // stamp 400,000 × 0.13% = 520.00; trading fee already 0.00565% (from 2023-01-01) = 22.60
      // total 15 + 520 + 10.80 + 0.60 + 22.60 + 8.00 = 577.00
      expected: { stamp_duty: "520.00", exchange_trading_fee: "22.60", total: "577.00" },
      tradeAmount: "400000.00",
      totalCost: "400577.00",
    },
    {
      situation: "the same buy in 2022 pays the 0.005% trading fee plus the HK$0.50 trading tariff",
      broker: "longport",
      order: hkBuy(),
      date: "2022-06-01",
      // trading fee 400,000 × 0.005% = 20.00, + 0.50 tariff = 20.50
      // total 15 + 520 + 10.80 + 0.60 + 20.50 + 8.00 = 574.90
      expected: { exchange_trading_fee: "20.50", afrc_levy: "0.60", total: "574.90" },
      tradeAmount: "400000.00",
      totalCost: "400574.90",
    },
    {
      situation: "the same buy in June 2021 pays 0.10% stamp duty and no AFRC levy",
      broker: "longport",
      order: hkBuy(),
      date: "2021-06-01",
      // stamp 400.00; AFRC 0 (levy from 2022-01-01)
      // total 15 + 400 + 10.80 + 0 + 20.50 + 8.00 = 454.30
      expected: { stamp_duty: "400.00", afrc_levy: "0.00", total: "454.30" },
      tradeAmount: "400000.00",
      totalCost: "400454.30",
    },
    {
      situation: "stamp duty on HK$12,345 rounds up to the next whole dollar",
      broker: "longport",
      order: hkBuy({ quantity: 100, price: "123.45" }),
      date: "2025-09-15",
      // value 12,345; stamp 12.345 → 13.00 (any fraction of a dollar rounds up)
      // SFC 0.333315 → 0.33; AFRC 0.0185175 → 0.02; trading 0.6974925 → 0.70; settlement 0.51849 → 0.52
      // total 15 + 13 + 0.33 + 0.02 + 0.70 + 0.52 = 29.57
      expected: {
        stamp_duty: "13.00",
        sfc_levy: "0.33",
        afrc_levy: "0.02",
        exchange_trading_fee: "0.70",
        settlement_fee: "0.52",
        total: "29.57",
      },
      tradeAmount: "12345.00",
      totalCost: "12374.57",
    },
    {
      situation: "a small Futu order pays the HK$3 commission minimum",
      broker: "futu",
      order: hkBuy({ quantity: 100, price: 50, side: "sell" }),
      date: "2025-09-15",
      // value 5,000; commission 5,000 × 0.03% = 1.50 → minimum 3.00
      // stamp 5.00; SFC 0.135 → 0.14 (half up); AFRC 0.0075 → 0.01; trading 0.2825 → 0.28; settlement 0.21
      // total 3 + 15 + 5 + 0.14 + 0.01 + 0.28 + 0.21 = 23.64
      expected: {
        commission: "3.00",
        stamp_duty: "5.00",
        sfc_levy: "0.14",
        afrc_levy: "0.01",
        exchange_trading_fee: "0.28",
        settlement_fee: "0.21",
        total: "23.64",
      },
      tradeAmount: "5000.00",
      totalCost: "5023.64",
    },
    {
      situation: "a HK$10 trade pays the HK$0.01 floor on SFC levy and trading fee",
      broker: "longport",
      order: hkBuy({ quantity: 10, price: 1 }),
      date: "2025-09-15",
      // stamp 0.01 → 1.00; SFC 0.00027 → 0.00 → floor 0.01; AFRC 0.000015 → 0.00 (no floor)
      // trading 0.000565 → 0.00 → floor 0.01; settlement 0.00042 → 0.00
      // total 15 + 1 + 0.01 + 0 + 0.01 + 0 = 16.02
      expected: { stamp_duty: "1.00", sfc_levy: "0.01", afrc_levy: "0.00", exchange_trading_fee: "0.01", settlement_fee: "0.00", total: "16.02" },
      tradeAmount: "10.00",
      totalCost: "26.02",
    },
    {
      situation: "a HK$5,000 trade before 2025-06-30 pays the HK$2 settlement minimum",
      broker: "longport",
      order: hkBuy({ quantity: 100, price: 50 }),
      date: "2025-06-27",
      // settlement 5,000 × 0.002% = 0.10 → minimum 2.00
      // total 15 + 5 + 0.14 + 0.01 + 0.28 + 2.00 = 22.43
      expected: { settlement_fee: "2.00", total: "22.43" },
      tradeAmount: "5000.00",
      totalCost: "5022.43",
    },
    {
      situation: "a HK$10,000,000 trade before 2025-06-30 pays the HK$100 settlement maximum",
      broker: "longport",
      order: hkBuy({ quantity: 20000, price: 500 }),
      date: "2025-06-27",
      // settlement 10,000,000 × 0.002% = 200 → maximum 100.00
      // stamp 10,000; SFC 270.00; AFRC 15.00; trading 565.00
      // total 15 + 10,000 + 270 + 15 + 565 + 100 = 10,965.00
      expected: { settlement_fee: "100.00", stamp_duty: "10000.00", total: "10965.00" },
      tradeAmount: "10000000.00",
      totalCost: "10010965.00",
    },
  ])("$situation", ({ broker, order, date, expected, tradeAmount, totalCost }) => {
    const result = Fees.calculate(config(broker), order, date);

    expect(result.fee_details).toMatchObject({ market: "HK", currency: "HKD", side: order.side, trade_date: date, ...expected });
    expect(result.trade_amount).toBe(tradeAmount);
    expect(result.total_cost).toBe(totalCost);
  });

  it("reproduces the reference's HK$112.70 of charges on a HK$100,000 buy after 2025-06-30", () => {
    // 100,000 × (0.10% + 0.0027% + 0.00015% + 0.00565% + 0.0042%)
    // = 100.00 + 2.70 + 0.15 + 5.65 + 4.20 = 112.70
    const result = Fees.calculate(regulatoryOnly(), hkBuy({ quantity: 500, price: 200 }), "2025-07-02");

    expect(result.fee_details).toEqual({
      market: "HK",
      currency: "HKD",
      side: "buy",
      trade_date: "2025-07-02",
      commission: "0.00",
      platform_fee: "0.00",
      stamp_duty: "100.00",
      sfc_levy: "2.70",
      afrc_levy: "0.15",
      exchange_trading_fee: "5.65",
      settlement_fee: "4.20",
      total: "112.70",
    });
    expect(result.total_cost).toBe("100112.70");
  });

  it("charges a seller exactly what a buyer pays", () => {
    const buy = Fees.calculate(config(), hkBuy(), "2025-09-15");
    const sell = Fees.calculate(config(), hkBuy({ side: "sell" }), "2025-09-15");

    expect({ ...sell.fee_details, side: "buy" }).toEqual(buy.fee_details);
    expect(sell.total_cost).toBe(buy.total_cost);
  });
});

describe("Fees.calculate, United States", () => {
  it.each([
    // Sell 100 × $190 = $19,000. Broker part is the same in every period:
    // commission 100 × 0.0049 = 0.49 → minimum 0.99; platform 100 × 0.005 = 0.50 → minimum 1.00;
    // settlement 100 × 0.003 = 0.30; broker part 2.29.
    // SEC 19,000 × $8.00/M = 0.152 → 0.16 (up); TAF 100 × 0.000166 = 0.0166 → 0.02; total 2.47
    { date: "2024-03-01", secFee: "0.16", taf: "0.02", total: "2.47" },
    { date: "2024-05-21", secFee: "0.16", taf: "0.02", total: "2.47" },
    // SEC 19,000 × $27.80/M = 0.5282 → 0.53; total 2.29 + 0.53 + 0.02 = 2.84
    { date: "2024-05-22", secFee: "0.53", taf: "0.02", total: "2.84" },
    { date: "2025-05-13", secFee: "0.53", taf: "0.02", total: "2.84" },
    // $0.00/M: no SEC fee and no $0.01 minimum; total 2.29 + 0.02 = 2.31
    { date: "2025-05-14", secFee: "0.00", taf: "0.02", total: "2.31" },
    { date: "2026-04-03", secFee: "0.00", taf: "0.02", total: "2.31" },
    // SEC 19,000 × $20.60/M = 0.3914 → 0.40; TAF 100 × 0.000195 = 0.0195 → 0.02; total 2.71
    { date: "2026-04-04", secFee: "0.40", taf: "0.02", total: "2.71" },
  ])("selling 100 AAPL.US at $190 on $date pays SEC fee $secFee", ({ date, secFee, taf, total }) => {
    const result = Fees.calculate(config(), usSell(), date);

    expect(result.fee_details).toEqual({
      market: "US",
      currency: "USD",
      side: "sell",
      trade_date: date,
      commission: "0.99",
      platform_fee: "1.00",
      settlement_fee: "0.30",
      cat_fee: "0.00",
      sec_fee: secFee,
      finra_taf: taf,
      total,
    });
    expect(result.trade_amount).toBe("19000.00");
    expect(result.total_cost).toBe((19000 + Number(total)).toFixed(2));
  });

  it("names no SEC fee or TAF on a buy", () => {
    // 0.99 + 1.00 + 0.30 = 2.29
    const result = Fees.calculate(config(), usSell({ side: "buy" }), "2024-08-01");

    expect(result.fee_details).toEqual({
      market: "US",
      currency: "USD",
      side: "buy",
      trade_date: "2024-08-01",
      commission: "0.99",
      platform_fee: "1.00",
      settlement_fee: "0.30",
      cat_fee: "0.00",
      total: "2.29",
    });
    expect(result.total_cost).toBe("19002.29");
  });

  it.each([
    // Sell 60,000 × $10 = $600,000 on 2025-03-03.
    // commission 294.00, platform 300.00, settlement 180.00 (all under their caps)
    // SEC 600,000 × $27.80/M = 16.68; TAF 60,000 × 0.000166 = 9.96 → cap 8.30
    // total 294 + 300 + 180 + 16.68 + 8.30 = 798.98
    { date: "2025-03-03", secFee: "16.68", taf: "8.30", total: "798.98" },
    // In 2026: SEC 600,000 × $20.60/M = 12.36; TAF 60,000 × 0.000195 = 11.70 → cap 9.79
    // total 294 + 300 + 180 + 12.36 + 9.79 = 796.15
    { date: "2026-06-01", secFee: "12.36", taf: "9.79", total: "796.15" },
  ])("a 60,000-share sale on $date hits the TAF cap of $taf", ({ date, secFee, taf, total }) => {
    const result = Fees.calculate(config(), usSell({ quantity: 60000, price: 10 }), date);

    expect(result.fee_details).toMatchObject({
      commission: "294.00",
      platform_fee: "300.00",
      settlement_fee: "180.00",
      sec_fee: secFee,
      finra_taf: taf,
      total,
    });
  });

  it("caps commission and platform fee at 0.5% of a $10 trade, below their minimums", () => {
    // 1 × $10: commission 0.0049 → minimum 0.99 → cap 0.05; platform 0.005 → 1.00 → cap 0.05
    // settlement 0.003 → 0.00 (nearest cent); total 0.10
    const result = Fees.calculate(config(), usSell({ quantity: 1, price: 10, side: "buy" }), "2025-08-01");

    expect(result.fee_details).toMatchObject({ commission: "0.05", platform_fee: "0.05", settlement_fee: "0.00", total: "0.10" });
  });

  it("rounds a cap that falls between cents down so the charge stays under it", () => {
    // 3 × $1.01 = $3.03; 0.5% cap = 0.01515 → 0.01 for commission and platform fee
    // settlement 3 × 0.003 = 0.009 → 0.01 (cap 1% = 0.0303); total 0.03
    const result = Fees.calculate(config(), usSell({ quantity: 3, price: "1.01", side: "buy" }), "2025-08-01");

    expect(result.fee_details).toMatchObject({ commission: "0.01", platform_fee: "0.01", settlement_fee: "0.01", total: "0.03" });
  });

  it("rounds a configured CAT fee up to the cent on buys and sells", () => {
    // 100 × 0.0000265 = 0.00265 → 0.01; buy total 2.29 + 0.01 = 2.30
    const withCat = config("longport", { us_fees: { cat_fee_per_share: "0.0000265" } });

    expect(Fees.calculate(withCat, usSell({ side: "buy" }), "2025-08-01").fee_details).toMatchObject({ cat_fee: "0.01", total: "2.30" });
    expect(Fees.calculate(withCat, usSell(), "2025-08-01").fee_details).toMatchObject({ cat_fee: "0.01", total: "2.32" });
  });

  it("lifts the commission cap when it is configured as null", () => {
    // 1 × $10 with no commission cap: minimum 0.99 stands; platform still capped at 0.05
    const uncapped = config("longport", { us_fees: { commission_max_rate: null } });

    const result = Fees.calculate(uncapped, usSell({ quantity: 1, price: 10, side: "buy" }), "2025-08-01");

    expect(result.fee_details).toMatchObject({ commission: "0.99", platform_fee: "0.05", total: "1.04" });
  });

  it("rounds the trade amount to the cent but prices fees on the exact value", () => {
    // 3 × $190.125 = 570.375 → trade_amount 570.38; buy fees 0.99 + 1.00 + 0.01 (0.009) = 2.00
    const result = Fees.calculate(config(), usSell({ quantity: "3", price: "190.125", side: "buy" }), "2025-08-01");

    expect(result.trade_amount).toBe("570.38");
    expect(result.fee_details.total).toBe("2.00");
    expect(result.total_cost).toBe("572.38");
  });

  it("uses a broker's own SEC schedule when one is configured", () => {
    // $100/M from 2025-01-01: 19,000 × 0.0001 = 1.90; total 2.29 + 1.90 + 0.02 = 4.21
    const custom = config("longport", { us_fees: { sec_fee_schedule: [{ effective_from: "2025-01-01", rate: 0.0001 }] } });

    expect(Fees.calculate(custom, usSell(), "2025-08-01").fee_details).toMatchObject({ sec_fee: "1.90", total: "4.21" });
  });
});

describe("Fees.calculate, input", () => {
  it("answers in the FeeCalculateResponse shape", () => {
    const result = Fees.calculate(config(), usSell(), "2025-08-01");

    expect(FeeCalculateResponse.parse(result)).toEqual(result);
  });

  it("rejects a non-positive quantity and a malformed price with a 422 naming both fields", () => {
    const attempt = () => Fees.calculate(config(), usSell({ quantity: 0, price: "12,5" }), "2025-08-01");

    expect(attempt).toThrow(ValidationError);
    try {
      attempt();
    } catch (error) {
      expect((error as ValidationError).issues.map((issue) => issue.loc)).toEqual([
        ["body", "quantity"],
        ["body", "price"],
      ]);
    }
  });

  it("rejects a trade date that is not a calendar date", () => {
    expect(() => Fees.calculate(config(), usSell(), "2025-02-30")).toThrow(ValidationError);
  });
});

describe("Fees.tradeDateOf", () => {
  it.each([
    // 2025-03-04T02:00Z is 21:00 on the 3rd in New York and 10:00 on the 4th in Hong Kong
    { market: "US" as const, instant: "2025-03-04T02:00:00Z", expected: "2025-03-03" },
    { market: "HK" as const, instant: "2025-03-04T02:00:00Z", expected: "2025-03-04" },
    // 2025-03-03T17:00Z is 12:00 in New York and 01:00 on the 4th in Hong Kong
    { market: "US" as const, instant: "2025-03-03T17:00:00Z", expected: "2025-03-03" },
    { market: "HK" as const, instant: "2025-03-03T17:00:00Z", expected: "2025-03-04" },
  ])("dates $instant as $expected on the $market exchange", ({ market, instant, expected }) => {
    expect(Fees.tradeDateOf(market, new Date(instant))).toBe(expected);
  });
});
