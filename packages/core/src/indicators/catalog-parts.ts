/**
 * The pieces every indicator catalog entry is built from: the catalog's version and the builders of
 * an entry's parameters (`integer`, `number`, with their bounds) and outputs (`single`, `bands`).
 * The entries themselves live by category in catalog-trend.ts, catalog-momentum.ts,
 * catalog-volatility.ts and catalog-volume.ts; catalog.ts lists them in presentation order.
 */
import type { IndicatorParameter } from "./metadata";
import { PERIOD_BOUNDS, type ParameterBounds } from "./parameters";

/** Catalog entries describe the code in this folder; bump when a formula or warm-up changes. */
export const VERSION = "1.0.0";

export const integer = (name: string, defaultValue: number, description: string, bounds: ParameterBounds = PERIOD_BOUNDS): IndicatorParameter => ({
  name,
  type: "integer",
  default: defaultValue,
  ...bounds,
  description,
});

export const number = (name: string, defaultValue: number, description: string, bounds: ParameterBounds): IndicatorParameter => ({
  name,
  type: "number",
  default: defaultValue,
  ...bounds,
  description,
});

export const single = (description: string) => [{ name: "value", description }];

export const bands = (upper: string, middle: string, lower: string) => [
  { name: "upper", description: upper },
  { name: "middle", description: middle },
  { name: "lower", description: lower },
];
