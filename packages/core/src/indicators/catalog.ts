/**
 * The indicator catalog: every indicator the platform computes, in presentation order, frozen, with
 * lookups by id. The entries live by category (catalog-trend.ts, catalog-momentum.ts,
 * catalog-volatility.ts, catalog-volume.ts), built from the pieces in catalog-parts.ts.
 */
import { notFound } from "../errors";
import type { IndicatorMetadata } from "./metadata";
import * as momentum from "./catalog-momentum";
import * as trend from "./catalog-trend";
import * as volatility from "./catalog-volatility";
import * as volume from "./catalog-volume";

const entries: IndicatorMetadata[] = [
  trend.sma,
  trend.ema,
  trend.wma,
  momentum.rsi,
  momentum.macd,
  volatility.bollingerBands,
  volatility.atr,
  momentum.stochastic,
  trend.adx,
  momentum.cci,
  volume.obv,
  volume.vwap,
  volume.mfi,
  momentum.williamsR,
  momentum.roc,
  volatility.keltnerChannels,
  volatility.donchianChannels,
  trend.parabolicSar,
  trend.ichimoku,
  trend.supertrend,
];

const deepFreeze = <T>(value: T): T => {
  if (value !== null && typeof value === "object") {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
};

/** Every indicator the platform computes, in presentation order. */
export const catalog: readonly IndicatorMetadata[] = deepFreeze(entries);

const byId = new Map(catalog.map((entry) => [entry.id, entry]));

/** Identifiers of every indicator in the catalog. */
export const ids: readonly string[] = Object.freeze(catalog.map((entry) => entry.id));

/** The catalog entry for `id`; throws INDICATOR_NOT_FOUND (404) for an unknown id. */
export const get = (id: string): IndicatorMetadata => {
  const entry = byId.get(id);
  if (!entry) throw notFound("INDICATOR_NOT_FOUND", `Indicator '${id}' not found; known indicators: ${ids.join(", ")}`);
  return entry;
};
