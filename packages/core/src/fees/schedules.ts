import { z } from "zod";
import { DecimalString, IsoDate, NonNegativeDecimalInput } from "../money/decimal";

/*
 * Regulatory charges change by date, so each is a schedule of entries chosen by trade date:
 * the entry in force is the last one whose `effective_from` is on or before the trade date.
 * `effective_from: null` (first entry only) means "in force before our records start";
 * a trade date before every entry uses the first entry, because an old rate is a better
 * estimate than none. Sources for every number: docs/fees.md.
 */

/** Checks ordering shared by every schedule: only the first entry may be open-ended; dates strictly ascend. */
const checkOrder = (entries: { effective_from: string | null }[], ctx: z.RefinementCtx) => {
  entries.forEach((entry, index) => {
    if (index === 0) return;
    const previous = entries[index - 1].effective_from;
    if (entry.effective_from === null) {
      ctx.addIssue({ code: "custom", path: [index, "effective_from"], message: "only the first entry may omit effective_from" });
    } else if (previous !== null && entry.effective_from <= previous) {
      ctx.addIssue({
        code: "custom",
        path: [index, "effective_from"],
        message: `must be later than the previous entry's ${previous}`,
      });
    }
  });
};

const schedule = <T extends z.ZodType<{ effective_from: string | null }>>(entry: T) => z.array(entry).min(1).superRefine(checkOrder);

const EffectiveFrom = IsoDate.nullable();

/** SEC Section 31 fee in force from a date: `rate` is a fraction of sale proceeds ($27.80 per million = 0.0000278). */
export const SecFeeEntry = z.object({ effective_from: EffectiveFrom, rate: DecimalString }).meta({ id: "SecFeeEntry" });
export type SecFeeEntry = z.infer<typeof SecFeeEntry>;
export const SecFeeEntryInput = z.object({ effective_from: EffectiveFrom, rate: NonNegativeDecimalInput });

/** FINRA Trading Activity Fee in force from a date: dollars per share sold, capped per trade. */
export const FinraTafEntry = z.object({ effective_from: EffectiveFrom, per_share: DecimalString, max_per_trade: DecimalString }).meta({ id: "FinraTafEntry" });
export type FinraTafEntry = z.infer<typeof FinraTafEntry>;
export const FinraTafEntryInput = z.object({
  effective_from: EffectiveFrom,
  per_share: NonNegativeDecimalInput,
  max_per_trade: NonNegativeDecimalInput,
});

/**
 * A Hong Kong charge on trade value in force from a date: `rate` (fraction of value), rounded
 * as the charge requires, then held between `minimum` and `maximum` (null = none), plus a
 * fixed `per_trade` amount (the HK$0.50 trading tariff before 2023).
 */
export const HkChargeEntry = z
  .object({
    effective_from: EffectiveFrom,
    rate: DecimalString,
    per_trade: DecimalString,
    minimum: DecimalString.nullable(),
    maximum: DecimalString.nullable(),
  })
  .meta({ id: "HkChargeEntry" });
export type HkChargeEntry = z.infer<typeof HkChargeEntry>;
export const HkChargeEntryInput = z.object({
  effective_from: EffectiveFrom,
  rate: NonNegativeDecimalInput,
  per_trade: NonNegativeDecimalInput.default("0"),
  minimum: NonNegativeDecimalInput.nullable().default(null),
  maximum: NonNegativeDecimalInput.nullable().default(null),
});

export const SecFeeSchedule = schedule(SecFeeEntry);
export const SecFeeScheduleInput = schedule(SecFeeEntryInput);
export const FinraTafSchedule = schedule(FinraTafEntry);
export const FinraTafScheduleInput = schedule(FinraTafEntryInput);
export const HkChargeSchedule = schedule(HkChargeEntry);
export const HkChargeScheduleInput = schedule(HkChargeEntryInput);

/** The entry of a schedule in force on `tradeDate` (YYYY-MM-DD); dates before every entry get the first. */
export const inForce = <T extends { effective_from: string | null }>(entries: readonly T[], tradeDate: string): T => {
  let current = entries[0];
  for (const entry of entries) {
    if (entry.effective_from === null || entry.effective_from <= tradeDate) current = entry;
  }
  return current;
};

const hk = (effective_from: string | null, rate: string, extra: Partial<Omit<HkChargeEntry, "effective_from" | "rate">> = {}): HkChargeEntry => ({
  effective_from,
  rate,
  per_trade: extra.per_trade ?? "0",
  minimum: extra.minimum ?? null,
  maximum: extra.maximum ?? null,
});

/** Statutory and exchange schedules as published; a broker's fee config may replace any of them. */
export const statutorySchedules = () => ({
  us: {
    sec_fee: [
      { effective_from: null, rate: "0.000008" },
      { effective_from: "2024-05-22", rate: "0.0000278" },
      // The SEC had collected its FY2025 budget, so sales paid nothing until the FY2026 rate began.
      { effective_from: "2025-05-14", rate: "0" },
      { effective_from: "2026-04-04", rate: "0.0000206" },
    ] satisfies SecFeeEntry[],
    finra_taf: [
      { effective_from: "2024-01-01", per_share: "0.000166", max_per_trade: "8.3" },
      { effective_from: "2026-01-01", per_share: "0.000195", max_per_trade: "9.79" },
      { effective_from: "2027-01-01", per_share: "0.000232", max_per_trade: "11.61" },
      { effective_from: "2028-01-01", per_share: "0.00024", max_per_trade: "12.05" },
    ] satisfies FinraTafEntry[],
  },
  hk: {
    stamp_duty: [hk(null, "0.001"), hk("2021-08-01", "0.0013"), hk("2023-11-17", "0.001")],
    // The HK$0.01 floor is Futu's stated practice; applying it everywhere errs towards charging.
    sfc_levy: [hk("2014-11-01", "0.000027", { minimum: "0.01" })],
    afrc_levy: [hk(null, "0"), hk("2022-01-01", "0.0000015")],
    exchange_trading_fee: [hk(null, "0.00005", { per_trade: "0.5", minimum: "0.01" }), hk("2023-01-01", "0.0000565", { minimum: "0.01" })],
    settlement_fee: [hk(null, "0.00002", { minimum: "2", maximum: "100" }), hk("2025-06-30", "0.000042")],
  },
});
