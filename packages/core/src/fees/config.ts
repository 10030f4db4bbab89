import { z } from "zod";
import { parseOrThrow } from "../errors";
import { DecimalString, NonNegativeDecimalInput } from "../money/decimal";
import {
  FinraTafSchedule,
  FinraTafScheduleInput,
  HkChargeSchedule,
  HkChargeScheduleInput,
  SecFeeSchedule,
  SecFeeScheduleInput,
  statutorySchedules,
} from "./schedules";

/*
 * Rates (`*_rate`) are fractions of trade value (0.005 = 0.5%); per-share and per-order
 * amounts are in the market's currency (USD for US, HKD for HK). A `*_max_rate` of null
 * means no cap. Field-by-field meaning and sources: docs/fees.md.
 */

const Cap = DecimalString.nullable();

/** A broker's US stock charges, as answered: every field present, decimals as strings. */
export const UsFeeConfig = z
  .object({
    commission_per_share: DecimalString,
    commission_min_per_order: DecimalString,
    commission_max_rate: Cap,
    platform_fee_per_share: DecimalString,
    platform_fee_min_per_order: DecimalString,
    platform_fee_max_rate: Cap,
    settlement_fee_per_share: DecimalString,
    settlement_fee_max_rate: Cap,
    cat_fee_per_share: DecimalString,
    sec_fee_schedule: SecFeeSchedule,
    finra_taf_schedule: FinraTafSchedule,
  })
  .meta({ id: "USFeeConfig" });
export type UsFeeConfig = z.infer<typeof UsFeeConfig>;

/** A broker's HK stock charges, as answered: every field present, decimals as strings. */
export const HkFeeConfig = z
  .object({
    commission_rate: DecimalString,
    commission_min_per_order: DecimalString,
    platform_fee_per_order: DecimalString,
    stamp_duty_schedule: HkChargeSchedule,
    sfc_levy_schedule: HkChargeSchedule,
    afrc_levy_schedule: HkChargeSchedule,
    exchange_trading_fee_schedule: HkChargeSchedule,
    settlement_fee_schedule: HkChargeSchedule,
  })
  .meta({ id: "HKFeeConfig" });
export type HkFeeConfig = z.infer<typeof HkFeeConfig>;

/** A broker's effective fee configuration: its overrides laid over its broker type's defaults. */
export const FeeConfig = z.object({ us_fees: UsFeeConfig, hk_fees: HkFeeConfig }).meta({ id: "FeeConfig" });
export type FeeConfig = z.infer<typeof FeeConfig>;

const Amount = NonNegativeDecimalInput.optional();
const CapInput = NonNegativeDecimalInput.nullable().optional();

/** US charges as sent: every field optional (omitted = default), numbers or decimal strings. */
export const UsFeeConfigInput = z
  .object({
    commission_per_share: Amount,
    commission_min_per_order: Amount,
    commission_max_rate: CapInput,
    platform_fee_per_share: Amount,
    platform_fee_min_per_order: Amount,
    platform_fee_max_rate: CapInput,
    settlement_fee_per_share: Amount,
    settlement_fee_max_rate: CapInput,
    cat_fee_per_share: Amount,
    sec_fee_schedule: SecFeeScheduleInput.optional(),
    finra_taf_schedule: FinraTafScheduleInput.optional(),
  })
  .strict()
  .meta({ id: "USFeeConfigInput" });
export type UsFeeConfigInput = z.infer<typeof UsFeeConfigInput>;

/** HK charges as sent: every field optional (omitted = default), numbers or decimal strings. */
export const HkFeeConfigInput = z
  .object({
    commission_rate: Amount,
    commission_min_per_order: Amount,
    platform_fee_per_order: Amount,
    stamp_duty_schedule: HkChargeScheduleInput.optional(),
    sfc_levy_schedule: HkChargeScheduleInput.optional(),
    afrc_levy_schedule: HkChargeScheduleInput.optional(),
    exchange_trading_fee_schedule: HkChargeScheduleInput.optional(),
    settlement_fee_schedule: HkChargeScheduleInput.optional(),
  })
  .strict()
  .meta({ id: "HKFeeConfigInput" });
export type HkFeeConfigInput = z.infer<typeof HkFeeConfigInput>;

/**
 * The body of `PUT /brokers/{id}/fee-config`. Its parsed form (canonical decimal strings,
 * only the fields given) is also what is stored: the overrides of one broker.
 */
export const FeeConfigInput = z.object({ us_fees: UsFeeConfigInput.optional(), hk_fees: HkFeeConfigInput.optional() }).strict().meta({ id: "FeeConfigInput" });
export type FeeConfigInput = z.infer<typeof FeeConfigInput>;

type BrokerCharges = {
  us: Omit<UsFeeConfig, "sec_fee_schedule" | "finra_taf_schedule">;
  hk: Pick<HkFeeConfig, "commission_rate" | "commission_min_per_order" | "platform_fee_per_order">;
};

// Futu HK's published US stock schedule (S16); settlement pass-through $0.003/share (S17),
// capped at 1% of trade value as moomoo AU does (S18). Futu does not list a CAT charge.
const futuStyleUs: BrokerCharges["us"] = {
  commission_per_share: "0.0049",
  commission_min_per_order: "0.99",
  commission_max_rate: "0.005",
  platform_fee_per_share: "0.005",
  platform_fee_min_per_order: "1",
  platform_fee_max_rate: "0.005",
  settlement_fee_per_share: "0.003",
  settlement_fee_max_rate: "0.01",
  cat_fee_per_share: "0",
};

const brokerCharges: Record<"longport" | "futu", BrokerCharges> = {
  // LongPort publishes no schedule. HK follows the one third-party calculator found
  // (HK$0 commission + HK$15/order); US borrows the comparable Futu schedule so estimates
  // err towards charging. Reconcile against the order's `charge_detail` after each fill.
  longport: {
    us: futuStyleUs,
    hk: { commission_rate: "0", commission_min_per_order: "0", platform_fee_per_order: "15" },
  },
  // Futu HK, HK stocks (S3): 0.03% commission, min HK$3; fixed-plan platform fee HK$15/order.
  futu: {
    us: futuStyleUs,
    hk: { commission_rate: "0.0003", commission_min_per_order: "3", platform_fee_per_order: "15" },
  },
};

/** Which preset a broker type gets: Futu/moomoo brokers the Futu schedule, everything else LongPort's. */
export const presetFor = (brokerType: string): keyof typeof brokerCharges => (/^(futu|moomoo)/i.test(brokerType.trim()) ? "futu" : "longport");

/** Default fee configuration for a broker type (`longport`, `futu`, `paper`, `simulated`, …). */
export const defaults = (brokerType: string): FeeConfig => {
  const charges = brokerCharges[presetFor(brokerType)];
  const statutory = statutorySchedules();
  return {
    us_fees: { ...charges.us, sec_fee_schedule: statutory.us.sec_fee, finra_taf_schedule: statutory.us.finra_taf },
    hk_fees: {
      ...charges.hk,
      stamp_duty_schedule: statutory.hk.stamp_duty,
      sfc_levy_schedule: statutory.hk.sfc_levy,
      afrc_levy_schedule: statutory.hk.afrc_levy,
      exchange_trading_fee_schedule: statutory.hk.exchange_trading_fee,
      settlement_fee_schedule: statutory.hk.settlement_fee,
    },
  };
};

/** Structural equality of parsed JSON values, ignoring key order. */
const same = (a: unknown, b: unknown): boolean => {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  return keysA.length === keysB.length && keysA.every((key) => same((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
};

const without = <T extends object>(given: T | undefined, base: object): Partial<T> | undefined => {
  if (!given) return undefined;
  const kept = Object.entries(given).filter(([key, value]) => value !== undefined && !same(value, (base as Record<string, unknown>)[key]));
  return kept.length ? (Object.fromEntries(kept) as Partial<T>) : undefined;
};

/**
 * Parses a `PUT` body into the overrides to store for a broker, or throws a 422. Values equal
 * to the broker type's defaults are dropped, so a GET-edit-PUT round trip pins nothing and
 * later corrections to the statutory schedules still reach the broker. PUT replaces: fields
 * left out go back to their defaults.
 */
export const overrides = (brokerType: string, input: unknown, loc: (string | number)[] = ["body"]): FeeConfigInput => {
  const parsed = parseOrThrow(FeeConfigInput, input ?? {}, loc);
  const base = defaults(brokerType);
  const us = without(parsed.us_fees, base.us_fees);
  const hk = without(parsed.hk_fees, base.hk_fees);
  return { ...(us && { us_fees: us }), ...(hk && { hk_fees: hk }) };
};

/** The effective configuration of a broker: stored overrides (if any) laid over its type's defaults. */
export const resolve = (brokerType: string, stored?: unknown): FeeConfig => {
  const base = defaults(brokerType);
  const given = parseOrThrow(FeeConfigInput, stored ?? {}, ["fee_config"]);
  const defined = <T extends object>(values: T | undefined) => Object.fromEntries(Object.entries(values ?? {}).filter(([, value]) => value !== undefined));
  return {
    us_fees: { ...base.us_fees, ...defined(given.us_fees) },
    hk_fees: { ...base.hk_fees, ...defined(given.hk_fees) },
  };
};
