import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { type FeeCalculateInput, FeeCalculateResponse, type HkTradingFee, type UsTradingFee } from "./calculate";
import type { FeeConfig } from "./config";
import { Fees } from "./index";
import { Money } from "../money/money";
import { Dec, Round } from "../money/decimal";

type Order = z.input<typeof FeeCalculateInput>;

const RUNS = { numRuns: 300 };

/** Decimal strings with up to `places` decimals between 0 and `max`. */
const decimal = (max: number, places: number) =>
  fc.integer({ min: 0, max: max * 10 ** places }).map((units) => new Dec(units).dividedBy(10 ** places).toFixed());

const cap = fc.option(decimal(0.05, 4), { nil: null });

/** A broker's own charges drawn at random over a preset, statutory schedules kept. */
const feeConfig: fc.Arbitrary<FeeConfig> = fc
  .record({
    brokerType: fc.constantFrom("longport", "futu", "paper"),
    us: fc.record({
      commission_per_share: decimal(0.02, 4),
      commission_min_per_order: decimal(5, 2),
      commission_max_rate: cap,
      platform_fee_per_share: decimal(0.02, 4),
      platform_fee_min_per_order: decimal(5, 2),
      platform_fee_max_rate: cap,
      settlement_fee_per_share: decimal(0.01, 4),
      settlement_fee_max_rate: cap,
      cat_fee_per_share: decimal(0.0001, 7),
    }),
    hk: fc.record({
      commission_rate: decimal(0.005, 5),
      commission_min_per_order: decimal(100, 2),
      platform_fee_per_order: decimal(50, 2),
    }),
    overrideUs: fc.boolean(),
    overrideHk: fc.boolean(),
  })
  .map(({ brokerType, us, hk, overrideUs, overrideHk }) =>
    Fees.resolve(brokerType, { ...(overrideUs && { us_fees: us }), ...(overrideHk && { hk_fees: hk }) }),
  );

const tradeDate = fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2029, 11, 31) }).map((ms) => new Date(ms).toISOString().slice(0, 10));

const order: fc.Arbitrary<Order> = fc.record({
  quantity: fc.integer({ min: 1, max: 2_000_000 }),
  price: decimal(2000, 3).filter((price) => new Dec(price).greaterThan(0)),
  side: fc.constantFrom("buy" as const, "sell" as const),
  market: fc.constantFrom("US" as const, "HK" as const),
});

const components = (fee: UsTradingFee | HkTradingFee) =>
  Object.entries(fee)
    .filter(([name]) => !["market", "currency", "side", "trade_date", "total"].includes(name))
    .map(([name, amount]) => [name, new Dec(amount as string)] as const);

describe("Fees.calculate properties", () => {
  it("totalFee (the engine's per-fill form) equals calculate's total", () => {
    fc.assert(
      fc.property(feeConfig, order, tradeDate, (config, input, date) => {
        const total = Fees.totalFee(config, input.market, input.side, Money.of(input.quantity), Money.of(input.price), date);
        expect(total.toFixed(2)).toBe(Fees.calculate(config, input, date).fee_details.total);
      }),
      RUNS,
    );
  });

  it("answers every charge as a non-negative two-place amount that sums to the total", () => {
    fc.assert(
      fc.property(feeConfig, order, tradeDate, (config, input, date) => {
        const result = Fees.calculate(config, input, date);
        const parts = components(result.fee_details);

        expect(FeeCalculateResponse.safeParse(result).success).toBe(true);
        for (const [, amount] of parts) expect(amount.isNegative()).toBe(false);
        const sum = parts.reduce((total, [, amount]) => total.plus(amount), new Dec(0));
        expect(sum.toFixed(2)).toBe(result.fee_details.total);
        expect(new Dec(result.trade_amount).plus(result.fee_details.total).toFixed(2)).toBe(result.total_cost);
      }),
      RUNS,
    );
  });

  it("never charges more than a cap allows", () => {
    fc.assert(
      fc.property(feeConfig, order, tradeDate, (config, input, date) => {
        const fee = Fees.calculate(config, input, date).fee_details;
        const value = new Dec(input.quantity).times(input.price);
        const atMost = (amount: string | undefined, limit: Dec) => expect(new Dec(amount ?? 0).lessThanOrEqualTo(limit)).toBe(true);

        if (fee.market === "US") {
          const us = config.us_fees;
          if (us.commission_max_rate !== null) atMost(fee.commission, value.times(us.commission_max_rate));
          if (us.platform_fee_max_rate !== null) atMost(fee.platform_fee, value.times(us.platform_fee_max_rate));
          if (us.settlement_fee_max_rate !== null) atMost(fee.settlement_fee, value.times(us.settlement_fee_max_rate));
          atMost(fee.finra_taf, new Dec(Fees.inForce(us.finra_taf_schedule, date).max_per_trade));
        } else {
          const settlement = Fees.inForce(config.hk_fees.settlement_fee_schedule, date);
          if (settlement.maximum !== null) atMost(fee.settlement_fee, new Dec(settlement.maximum).plus(settlement.per_trade));
        }
      }),
      RUNS,
    );
  });

  it("never lowers total fees when more shares are traded at the same price, side and date", () => {
    fc.assert(
      fc.property(feeConfig, order, fc.integer({ min: 0, max: 2_000_000 }), tradeDate, (config, smaller, extra, date) => {
        const larger = { ...smaller, quantity: Number(smaller.quantity) + extra };

        const small = new Dec(Fees.calculate(config, smaller, date).fee_details.total);
        const large = new Dec(Fees.calculate(config, larger, date).fee_details.total);

        expect(large.greaterThanOrEqualTo(small)).toBe(true);
      }),
      RUNS,
    );
  });

  it("charges SEC fee and TAF on US sells only, rounded up to a whole cent", () => {
    fc.assert(
      fc.property(feeConfig, order, tradeDate, (config, input, date) => {
        const fee = Fees.calculate(config, { ...input, market: "US" }, date).fee_details as UsTradingFee;

        if (input.side === "buy") {
          expect(fee.sec_fee).toBeUndefined();
          expect(fee.finra_taf).toBeUndefined();
        } else {
          const rate = Fees.inForce(config.us_fees.sec_fee_schedule, date).rate;
          const exact = new Dec(input.quantity).times(input.price).times(rate);
          expect(fee.sec_fee).toBe(Round.upToCent(exact).toFixed(2));
        }
      }),
      RUNS,
    );
  });
});
