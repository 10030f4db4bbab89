import { z } from "zod";
import type { FeeConfig, HkFeeConfig, UsFeeConfig } from "./config";
import { Dec, IsoDate, MoneyString, PositiveDecimalInput, Round, money, parseOrThrow } from "./money";
import { type HkChargeEntry, inForce } from "./schedules";

/** Body of `POST /brokers/{id}/fee-config/calculate`; HK quantities are not checked against board lots here. */
export const FeeCalculateInput = z
  .object({
    quantity: PositiveDecimalInput,
    price: PositiveDecimalInput,
    side: z.enum(["buy", "sell"]),
    market: z.enum(["US", "HK"]),
  })
  .meta({ id: "FeeCalculateInput" });
export type FeeCalculateInput = z.infer<typeof FeeCalculateInput>;

const Common = {
  side: FeeCalculateInput.shape.side,
  trade_date: IsoDate,
  commission: MoneyString,
  platform_fee: MoneyString,
  settlement_fee: MoneyString,
  total: MoneyString,
};

/** US breakdown: SEC fee and FINRA TAF appear on sells only. */
export const UsTradingFee = z
  .object({
    market: z.literal("US"),
    currency: z.literal("USD"),
    ...Common,
    cat_fee: MoneyString,
    sec_fee: MoneyString.optional(),
    finra_taf: MoneyString.optional(),
  })
  .meta({ id: "USTradingFee" });
export type UsTradingFee = z.infer<typeof UsTradingFee>;

/** HK breakdown: buyer and seller pay the same charges. */
export const HkTradingFee = z
  .object({
    market: z.literal("HK"),
    currency: z.literal("HKD"),
    ...Common,
    stamp_duty: MoneyString,
    sfc_levy: MoneyString,
    afrc_levy: MoneyString,
    exchange_trading_fee: MoneyString,
  })
  .meta({ id: "HKTradingFee" });
export type HkTradingFee = z.infer<typeof HkTradingFee>;

/** Every charge on one order, each rounded as its regulator or broker rounds it, and their total. */
export const TradingFee = z.discriminatedUnion("market", [UsTradingFee, HkTradingFee]).meta({ id: "TradingFee" });
export type TradingFee = z.infer<typeof TradingFee>;

/** Answer of the calculator: `total_cost` is `trade_amount` plus `fee_details.total`, for buys and sells alike. */
export const FeeCalculateResponse = z
  .object({ fee_details: TradingFee, trade_amount: MoneyString, total_cost: MoneyString })
  .meta({ id: "FeeCalculateResponse" });
export type FeeCalculateResponse = z.infer<typeof FeeCalculateResponse>;

const ZERO = new Dec(0);

/** Holds a rounded charge at or under `cap`; a cap that falls between cents rounds down so it is never exceeded. */
const capped = (fee: Dec, cap: Dec | null) => (cap !== null && fee.greaterThan(cap) ? Round.downToCent(cap) : fee);

/** A broker charge: raw amount lifted to its minimum, rounded to the cent, then capped at a share of trade value. */
const brokerCharge = (raw: Dec, minimum: string, maxRate: string | null, tradeValue: Dec) =>
  capped(Round.nearestCent(Dec.max(raw, minimum)), maxRate === null ? null : tradeValue.times(maxRate));

/** An HK charge on trade value from its schedule entry: rate, rounding, minimum, maximum, fixed part. */
const hkCharge = (entry: HkChargeEntry, tradeValue: Dec, round: (amount: Dec) => Dec) => {
  let fee = round(tradeValue.times(entry.rate));
  if (entry.minimum !== null) fee = Dec.max(fee, entry.minimum);
  fee = capped(fee, entry.maximum === null ? null : new Dec(entry.maximum));
  return fee.plus(entry.per_trade);
};

const usCharges = (config: UsFeeConfig, quantity: Dec, tradeValue: Dec, side: "buy" | "sell", tradeDate: string) => {
  const charges: Record<string, Dec> = {
    commission: brokerCharge(
      quantity.times(config.commission_per_share),
      config.commission_min_per_order,
      config.commission_max_rate,
      tradeValue,
    ),
    platform_fee: brokerCharge(
      quantity.times(config.platform_fee_per_share),
      config.platform_fee_min_per_order,
      config.platform_fee_max_rate,
      tradeValue,
    ),
    settlement_fee: brokerCharge(
      quantity.times(config.settlement_fee_per_share),
      "0",
      config.settlement_fee_max_rate,
      tradeValue,
    ),
    cat_fee: Round.upToCent(quantity.times(config.cat_fee_per_share)),
  };
  if (side === "sell") {
    // Rounding up to the cent also gives the $0.01 minimum, and a $0/M period stays at zero.
    charges.sec_fee = Round.upToCent(tradeValue.times(inForce(config.sec_fee_schedule, tradeDate).rate));
    const taf = inForce(config.finra_taf_schedule, tradeDate);
    charges.finra_taf = capped(Round.upToCent(quantity.times(taf.per_share)), new Dec(taf.max_per_trade));
  }
  return charges;
};

const hkCharges = (config: HkFeeConfig, tradeValue: Dec, tradeDate: string) => ({
  commission: brokerCharge(tradeValue.times(config.commission_rate), config.commission_min_per_order, null, tradeValue),
  platform_fee: new Dec(config.platform_fee_per_order),
  stamp_duty: hkCharge(inForce(config.stamp_duty_schedule, tradeDate), tradeValue, Round.upToDollar),
  sfc_levy: hkCharge(inForce(config.sfc_levy_schedule, tradeDate), tradeValue, Round.nearestCent),
  afrc_levy: hkCharge(inForce(config.afrc_levy_schedule, tradeDate), tradeValue, Round.nearestCent),
  exchange_trading_fee: hkCharge(inForce(config.exchange_trading_fee_schedule, tradeDate), tradeValue, Round.nearestCent),
  settlement_fee: hkCharge(inForce(config.settlement_fee_schedule, tradeDate), tradeValue, Round.nearestCent),
});

const chargesOf = (config: FeeConfig, market: "US" | "HK", side: "buy" | "sell", quantity: Dec, tradeValue: Dec, tradeDate: string): Record<string, Dec> =>
  market === "US" ? usCharges(config.us_fees, quantity, tradeValue, side, tradeDate) : hkCharges(config.hk_fees, tradeValue, tradeDate);

const sum = (charges: Record<string, Dec>) => Object.values(charges).reduce((total, amount) => total.plus(amount), ZERO);

/**
 * The total of `calculate` for input already known to be valid (whole shares, positive price,
 * an ISO trade date), without building the response: what the trading engine books per fill.
 */
export const totalFee = (config: FeeConfig, market: "US" | "HK", side: "buy" | "sell", quantity: Dec, price: Dec, tradeDate: string): Dec =>
  sum(chargesOf(config, market, side, quantity, quantity.times(price), tradeDate));

const formatted = (charges: Record<string, Dec>) =>
  Object.fromEntries(Object.entries(charges).map(([name, amount]) => [name, money(amount)]));

/**
 * Estimates the charges on one order priced at `tradeDate` (YYYY-MM-DD in the exchange's own
 * calendar; see `tradeDateOf`). Charges are computed on the unrounded trade value; the
 * answer's `trade_amount` is that value to the cent and `total_cost` adds the fees to it.
 */
export const calculate = (config: FeeConfig, input: z.input<typeof FeeCalculateInput>, tradeDate: string): FeeCalculateResponse => {
  const order = parseOrThrow(FeeCalculateInput, input, ["body"]);
  const date = parseOrThrow(IsoDate, tradeDate, ["trade_date"]);
  const quantity = new Dec(order.quantity);
  const tradeValue = quantity.times(order.price);
  const charges = chargesOf(config, order.market, order.side, quantity, tradeValue, date);
  const total = sum(charges);
  const tradeAmount = Round.nearestCent(tradeValue);
  const common = { side: order.side, trade_date: date };
  const feeDetails =
    order.market === "US"
      ? ({ market: "US", currency: "USD", ...common, ...formatted(charges), total: money(total) } as UsTradingFee)
      : ({ market: "HK", currency: "HKD", ...common, ...formatted(charges), total: money(total) } as HkTradingFee);
  return { fee_details: feeDetails, trade_amount: money(tradeAmount), total_cost: money(tradeAmount.plus(total)) };
};

const exchangeTimeZone = { US: "America/New_York", HK: "Asia/Hong_Kong" } as const;

/** The calendar date of `instant` at the market's exchange, the date its fee schedules are chosen by. */
export const tradeDateOf = (market: "US" | "HK", instant: Date): string => {
  const parts = new Intl.DateTimeFormat("en-CA", {
    timeZone: exchangeTimeZone[market],
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).formatToParts(instant);
  const part = (type: string) => parts.find((p) => p.type === type)?.value;
  return `${part("year")}-${part("month")}-${part("day")}`;
};
