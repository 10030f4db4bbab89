import { badRequest } from "../errors";

/** Inclusive bounds of a numeric indicator parameter; the catalog publishes the same bounds. */
export interface ParameterBounds {
  readonly min: number;
  readonly max: number;
}

/** Window lengths in bars. */
export const PERIOD_BOUNDS: ParameterBounds = { min: 1, max: 10_000 };
/** Band widths in standard deviations or ATRs. */
export const MULTIPLIER_BOUNDS: ParameterBounds = { min: 0, max: 10 };
/** Parabolic SAR acceleration step and ceiling. */
export const ACCELERATION_BOUNDS: ParameterBounds = { min: 0.001, max: 1 };
/** Bar counts where zero is meaningful (VWAP window: 0 = since reset; Ichimoku shift: 0 = none). */
export const OPTIONAL_PERIOD_BOUNDS: ParameterBounds = { min: 0, max: 10_000 };

const invalid = (indicator: string, name: string, message: string, value: unknown) =>
  badRequest("INVALID_INDICATOR_PARAMETER", `${indicator} ${name} ${message} (got ${String(value)})`, {
    indicator,
    parameter: name,
    value,
  });

/** Returns `value` when it is an integer within `bounds`, otherwise throws INVALID_INDICATOR_PARAMETER. */
export const requireInteger = (indicator: string, name: string, value: number, bounds: ParameterBounds = PERIOD_BOUNDS): number => {
  if (!Number.isInteger(value) || value < bounds.min || value > bounds.max) {
    throw invalid(indicator, name, `must be an integer between ${bounds.min} and ${bounds.max}`, value);
  }
  return value;
};

/** Returns `value` when it is a finite number within `bounds`, otherwise throws INVALID_INDICATOR_PARAMETER. */
export const requireNumber = (indicator: string, name: string, value: number, bounds: ParameterBounds): number => {
  if (!Number.isFinite(value) || value < bounds.min || value > bounds.max) {
    throw invalid(indicator, name, `must be a number between ${bounds.min} and ${bounds.max}`, value);
  }
  return value;
};

/** Throws INVALID_INDICATOR_PARAMETER unless `smaller < larger`. */
export const requireLess = (indicator: string, smallerName: string, smaller: number, largerName: string, larger: number): void => {
  if (!(smaller < larger)) {
    throw invalid(indicator, smallerName, `must be less than ${largerName} (${larger})`, smaller);
  }
};

/** Throws INVALID_INDICATOR_PARAMETER unless `smaller <= larger`. */
export const requireAtMost = (indicator: string, smallerName: string, smaller: number, largerName: string, larger: number): void => {
  if (!(smaller <= larger)) {
    throw invalid(indicator, smallerName, `must not exceed ${largerName} (${larger})`, smaller);
  }
};

/** Returns the common length of the input series, or throws INDICATOR_INPUT_LENGTH_MISMATCH. */
export const requireSameLength = (indicator: string, ...series: Float64Array[]): number => {
  const length = series[0].length;
  for (const other of series) {
    if (other.length !== length) {
      throw badRequest("INDICATOR_INPUT_LENGTH_MISMATCH", `${indicator} inputs must have the same length (got ${series.map((s) => s.length).join(", ")})`, {
        indicator,
      });
    }
  }
  return length;
};

/** A Float64Array of `length` NaNs, the warm-up filler of every batch output. */
export const nanSeries = (length: number): Float64Array => new Float64Array(length).fill(NaN);

/**
 * A Float64Array of `length` whose first `warmUp` entries are NaN; the batch loop writes the rest.
 * Filling only the warm-up saves a full pass over memory on million-bar outputs.
 */
export const outputSeries = (length: number, warmUp: number): Float64Array => new Float64Array(length).fill(NaN, 0, Math.min(Math.max(warmUp, 0), length));
