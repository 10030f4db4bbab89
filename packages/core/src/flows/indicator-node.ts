import { Indicators } from "../indicators";
import { type ConfigIssue, issue, joinField } from "../risk/config-issue";
import { type ParameterDefinition, resolveParameters } from "../strategies/parameter";

// Indicators whose streaming class takes one value per bar; the others need high, low,
// close (and volume), so they can only be fed candles.
const SINGLE_INPUT = new Set(["sma", "ema", "wma", "rsi", "macd", "bollinger_bands", "roc"]);

// Rules between parameters that the indicator constructors enforce.
const ORDERED_PAIRS: Record<string, [smaller: string, larger: string, strict: boolean][]> = {
  macd: [["fast_period", "slow_period", true]],
  parabolic_sar: [["acceleration", "maximum", false]],
};

/** Ids of the indicators a node may use. */
export const indicatorIds = (): string[] => [...Indicators.ids];

/** Whether the indicator can be computed from a single series rather than candles. */
export const acceptsSeries = (id: string): boolean => SINGLE_INPUT.has(id);

/**
 * Checks an indicator node's parameters: `indicator` names a catalog entry, `output` one of its
 * output lines, and every other parameter is one of the indicator's own, within its bounds.
 */
export const checkIndicatorNode = (parameters: Record<string, unknown>, prefix: string): { errors: ConfigIssue[]; warnings: ConfigIssue[] } => {
  const { indicator, output, ...rest } = parameters;
  const field = joinField(prefix, "indicator");
  if (indicator === undefined || indicator === null || indicator === "") {
    return { errors: [issue("MISSING_PARAMETER", field, `${field} is required`)], warnings: [] };
  }
  if (typeof indicator !== "string" || !Indicators.ids.includes(indicator)) {
    return {
      errors: [issue("INDICATOR_NOT_FOUND", field, `${field}: indicator ${JSON.stringify(indicator)} does not exist`)],
      warnings: [],
    };
  }
  const metadata = Indicators.get(indicator);
  const definitions: ParameterDefinition[] = metadata.parameters.map((p) => ({
    name: p.name,
    type: p.type,
    default: p.default,
    min: p.min,
    max: p.max,
    description: p.description,
  }));
  const { values, errors } = resolveParameters(definitions, rest, prefix);
  if (output !== undefined && output !== null) {
    const outputs = metadata.outputs.map((o) => o.name);
    if (typeof output !== "string" || !outputs.includes(output)) {
      const outputField = joinField(prefix, "output");
      errors.push(issue("INVALID_VALUE", outputField, `${outputField} must be one of ${outputs.join(", ")} for ${indicator} (got ${JSON.stringify(output)})`));
    }
  }
  if (errors.length === 0) {
    for (const [smaller, larger, strict] of ORDERED_PAIRS[indicator] ?? []) {
      const a = values[smaller] as number;
      const b = values[larger] as number;
      if (strict ? !(a < b) : !(a <= b)) {
        const pairField = joinField(prefix, smaller);
        errors.push(issue("INVALID_PARAMETER_COMBINATION", pairField, `${pairField} (${a}) must be ${strict ? "less than" : "at most"} ${larger} (${b})`));
      }
    }
  }
  return { errors, warnings: [] };
};
