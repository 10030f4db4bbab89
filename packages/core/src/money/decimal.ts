import Decimal from "decimal.js";
import { z } from "zod";
import { CalendarDate } from "../util/time";

/**
 * A private Decimal constructor with room for large notionals times tiny rates
 * (1e14 × 1.5e-6 keeps every digit); cloning leaves the global Decimal settings alone.
 */
export const Dec = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP, toExpNeg: -40, toExpPos: 40 });
export type Dec = Decimal;

const DECIMAL_TEXT = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

/** A decimal given as a JSON number or a plain decimal string, canonicalised to a string like `"0.0049"`. */
export const DecimalInput = z
  .union([z.number().refine(Number.isFinite, "must be a finite number"), z.string().trim().regex(DECIMAL_TEXT, "must be a decimal number such as 12.5")])
  .transform((value) => new Dec(value).toFixed());

/** A non-negative decimal input (rates, per-share amounts, minimums, caps). */
export const NonNegativeDecimalInput = DecimalInput.refine((value) => !new Dec(value).isNegative(), "must be zero or more");

/** A strictly positive decimal input (quantity, price). */
export const PositiveDecimalInput = DecimalInput.refine((value) => new Dec(value).greaterThan(0), "must be greater than zero");

/** A non-negative decimal as it appears in responses and storage: plain notation, no exponent. */
export const DecimalString = z.string().regex(/^\d+(\.\d+)?$/);

/** A money amount in responses: non-negative, exactly two decimal places. */
export const MoneyString = z.string().regex(/^\d+\.\d{2}$/);

/** A calendar date `YYYY-MM-DD` that exists. */
export const IsoDate = CalendarDate;

/** Rounding rules named by who sets them, as decimal places and decimal.js rounding; every rule works on non-negative amounts. */
export const RoundingRules = {
  /** Nearest cent, halves up: HK levies and broker charges. */
  nearestCent: [2, Decimal.ROUND_HALF_UP],
  /** Up to the next cent: SEC Section 31 fee, FINRA TAF, CAT pass-through. */
  upToCent: [2, Decimal.ROUND_UP],
  /** Up to the next whole dollar: HK stamp duty ("2.01 → 3"). */
  upToDollar: [0, Decimal.ROUND_UP],
  /** Down to the cent, so a capped charge never exceeds its cap. */
  downToCent: [2, Decimal.ROUND_DOWN],
} as const;
export type RoundingRule = keyof typeof RoundingRules;

/** The rounding rules on decimal.js amounts (the paper broker's book); the fee schedules apply them to `Money`. */
export const Round = Object.fromEntries(
  Object.entries(RoundingRules).map(([rule, [places, rounding]]) => [rule, (amount: Dec) => amount.toDecimalPlaces(places, rounding)]),
) as Record<RoundingRule, (amount: Dec) => Dec>;

/** Formats a money amount with exactly two decimal places. */
export const money = (amount: Dec): string => amount.toFixed(2, Decimal.ROUND_HALF_UP);
