import { z } from "zod";
import { parseOrThrow } from "../errors";
import type { FeeConfig } from "./config";
import { Money } from "../money/money";
import { IsoDate, MoneyString, PositiveDecimalInput, RoundingRules, money, type RoundingRule } from "../money/decimal";
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

/**
 * The schedules compute in `Money` (exact: decimal.js's values, in safe integers when they fit,
 * decimal.js when not): the engine asks per fill, and the calculator answers the same numbers.
 */
const ZERO = Money.ZERO;

/** An amount rounded by one of the schedules' rules (`RoundingRules`). */
const rounded = (amount: Money, rule: RoundingRule) => {
  const [places, rounding] = RoundingRules[rule];
  return amount.round(places, rounding);
};

/** Holds a rounded charge at or under `cap`; a cap that falls between cents rounds down so it is never exceeded. */
const capped = (fee: Money, cap: Money | null) => (cap !== null && fee.compare(cap) > 0 ? rounded(cap, "downToCent") : fee);

/** A broker charge: raw amount lifted to its minimum, rounded to the cent, then capped at a share of trade value. */
const brokerCharge = (raw: Money, minimum: Money, maxRate: Money | null, tradeValue: Money) =>
  capped(rounded(Money.max(raw, minimum), "nearestCent"), maxRate === null ? null : tradeValue.times(maxRate));

/** An HK schedule entry with its numbers parsed. */
interface HkCharge {
  rate: Money;
  per_trade: Money;
  minimum: Money | null;
  maximum: Money | null;
}

/** An HK charge on trade value from its schedule entry: rate, rounding, minimum, maximum, fixed part. */
const hkCharge = (entry: HkCharge, tradeValue: Money, rule: RoundingRule) => {
  let fee = rounded(tradeValue.times(entry.rate), rule);
  if (entry.minimum !== null) fee = Money.max(fee, entry.minimum);
  fee = capped(fee, entry.maximum);
  return fee.plus(entry.per_trade);
};

const moneyOrNull = (value: string | null) => (value === null ? null : Money.of(value));

/** A dated schedule with each entry parsed once; the entry in force on the last date asked is kept (the engine asks per fill, day after day). */
function datedSchedule<T extends { effective_from: string | null }, P>(entries: readonly T[], parse: (entry: T) => P): (tradeDate: string) => P {
  const parsed = new Map(entries.map((entry) => [entry, parse(entry)]));
  let lastDate = "";
  let last: P | undefined;
  return (tradeDate) => {
    if (tradeDate !== lastDate || last === undefined) {
      last = parsed.get(inForce(entries, tradeDate))!;
      lastDate = tradeDate;
    }
    return last;
  };
}

/** A fee configuration with its decimal strings parsed once (configurations are values: each is parsed once). */
function parsedConfig(config: FeeConfig) {
  const us = config.us_fees;
  const hk = config.hk_fees;
  const hkEntry = (entry: HkChargeEntry): HkCharge => ({
    rate: Money.of(entry.rate),
    per_trade: Money.of(entry.per_trade),
    minimum: moneyOrNull(entry.minimum),
    maximum: moneyOrNull(entry.maximum),
  });
  return {
    us: {
      commission_per_share: Money.of(us.commission_per_share),
      commission_min_per_order: Money.of(us.commission_min_per_order),
      commission_max_rate: moneyOrNull(us.commission_max_rate),
      platform_fee_per_share: Money.of(us.platform_fee_per_share),
      platform_fee_min_per_order: Money.of(us.platform_fee_min_per_order),
      platform_fee_max_rate: moneyOrNull(us.platform_fee_max_rate),
      settlement_fee_per_share: Money.of(us.settlement_fee_per_share),
      settlement_fee_max_rate: moneyOrNull(us.settlement_fee_max_rate),
      cat_fee_per_share: Money.of(us.cat_fee_per_share),
      sec_fee: datedSchedule(us.sec_fee_schedule, (entry) => ({ rate: Money.of(entry.rate) })),
      finra_taf: datedSchedule(us.finra_taf_schedule, (entry) => ({ per_share: Money.of(entry.per_share), max_per_trade: Money.of(entry.max_per_trade) })),
    },
    hk: {
      commission_rate: Money.of(hk.commission_rate),
      commission_min_per_order: Money.of(hk.commission_min_per_order),
      platform_fee_per_order: Money.of(hk.platform_fee_per_order),
      stamp_duty: datedSchedule(hk.stamp_duty_schedule, hkEntry),
      sfc_levy: datedSchedule(hk.sfc_levy_schedule, hkEntry),
      afrc_levy: datedSchedule(hk.afrc_levy_schedule, hkEntry),
      exchange_trading_fee: datedSchedule(hk.exchange_trading_fee_schedule, hkEntry),
      settlement_fee: datedSchedule(hk.settlement_fee_schedule, hkEntry),
    },
  };
}
type ParsedConfig = ReturnType<typeof parsedConfig>;

const parsedConfigs = new WeakMap<FeeConfig, ParsedConfig>();
const parsedOf = (config: FeeConfig): ParsedConfig => {
  let parsed = parsedConfigs.get(config);
  if (!parsed) {
    parsed = parsedConfig(config);
    parsedConfigs.set(config, parsed);
  }
  return parsed;
};

const usCharges = (config: ParsedConfig["us"], quantity: Money, tradeValue: Money, side: "buy" | "sell", tradeDate: string) => {
  const charges: Record<string, Money> = {
    commission: brokerCharge(quantity.times(config.commission_per_share), config.commission_min_per_order, config.commission_max_rate, tradeValue),
    platform_fee: brokerCharge(quantity.times(config.platform_fee_per_share), config.platform_fee_min_per_order, config.platform_fee_max_rate, tradeValue),
    settlement_fee: brokerCharge(quantity.times(config.settlement_fee_per_share), ZERO, config.settlement_fee_max_rate, tradeValue),
    cat_fee: rounded(quantity.times(config.cat_fee_per_share), "upToCent"),
  };
  if (side === "sell") {
    // Rounding up to the cent also gives the $0.01 minimum, and a $0/M period stays at zero.
    charges.sec_fee = rounded(tradeValue.times(config.sec_fee(tradeDate).rate), "upToCent");
    const taf = config.finra_taf(tradeDate);
    charges.finra_taf = capped(rounded(quantity.times(taf.per_share), "upToCent"), taf.max_per_trade);
  }
  return charges;
};

const hkCharges = (config: ParsedConfig["hk"], tradeValue: Money, tradeDate: string) => ({
  commission: brokerCharge(tradeValue.times(config.commission_rate), config.commission_min_per_order, null, tradeValue),
  platform_fee: config.platform_fee_per_order,
  stamp_duty: hkCharge(config.stamp_duty(tradeDate), tradeValue, "upToDollar"),
  sfc_levy: hkCharge(config.sfc_levy(tradeDate), tradeValue, "nearestCent"),
  afrc_levy: hkCharge(config.afrc_levy(tradeDate), tradeValue, "nearestCent"),
  exchange_trading_fee: hkCharge(config.exchange_trading_fee(tradeDate), tradeValue, "nearestCent"),
  settlement_fee: hkCharge(config.settlement_fee(tradeDate), tradeValue, "nearestCent"),
});

const chargesOf = (
  config: FeeConfig,
  market: "US" | "HK",
  side: "buy" | "sell",
  quantity: Money,
  tradeValue: Money,
  tradeDate: string,
): Record<string, Money> => {
  const parsed = parsedOf(config);
  return market === "US" ? usCharges(parsed.us, quantity, tradeValue, side, tradeDate) : hkCharges(parsed.hk, tradeValue, tradeDate);
};

const sum = (charges: Record<string, Money>) => Object.values(charges).reduce((total, amount) => total.plus(amount), ZERO);

/**
 * The total of `calculate` for input already known to be valid (whole shares, positive price,
 * an ISO trade date), without building the response: what the trading engine books per fill.
 */
export const totalFee = (config: FeeConfig, market: "US" | "HK", side: "buy" | "sell", quantity: Money, price: Money, tradeDate: string): Money =>
  sum(chargesOf(config, market, side, quantity, quantity.times(price), tradeDate));

const formatted = (charges: Record<string, Money>) => Object.fromEntries(Object.entries(charges).map(([name, amount]) => [name, money(amount.toDec())]));

/**
 * The charges of an order that has executed `quantity` shares worth `value` in all, at
 * `tradeDate`: the one fee rule of an order filled in parts (docs/accounts.md, "Fees and the cash of a fill"). Each part
 * is charged the difference from what the order was charged before, so a per-order minimum is
 * charged once per order. The paper broker and the engine both price fills with it.
 */
export const chargesOn = (
  config: FeeConfig,
  market: "US" | "HK",
  side: "buy" | "sell",
  quantity: Money,
  value: Money,
  tradeDate: string,
): { total: Money; details: TradingFee } => {
  const charges = chargesOf(config, market, side, quantity, value, tradeDate);
  const total = sum(charges);
  const common = { side, trade_date: tradeDate };
  const details =
    market === "US"
      ? ({ market: "US", currency: "USD", ...common, ...formatted(charges), total: money(total.toDec()) } as UsTradingFee)
      : ({ market: "HK", currency: "HKD", ...common, ...formatted(charges), total: money(total.toDec()) } as HkTradingFee);
  return { total, details };
};

/**
 * Estimates the charges on one order priced at `tradeDate` (YYYY-MM-DD in the exchange's own
 * calendar; see `tradeDateOf`). Charges are computed on the unrounded trade value; the
 * answer's `trade_amount` is that value to the cent and `total_cost` adds the fees to it.
 */
export const calculate = (config: FeeConfig, input: z.input<typeof FeeCalculateInput>, tradeDate: string): FeeCalculateResponse => {
  const order = parseOrThrow(FeeCalculateInput, input, ["body"]);
  const date = parseOrThrow(IsoDate, tradeDate, ["trade_date"]);
  const quantity = Money.of(order.quantity);
  const tradeValue = quantity.times(Money.of(order.price));
  const { total, details } = chargesOn(config, order.market, order.side, quantity, tradeValue, date);
  const tradeAmount = rounded(tradeValue, "nearestCent");
  return { fee_details: details, trade_amount: money(tradeAmount.toDec()), total_cost: money(tradeAmount.plus(total).toDec()) };
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
