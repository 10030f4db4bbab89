import { z } from "zod";
import { notFound } from "../errors";
import { Markets, marketOf } from "../market/market";
import { type ConfigIssue, issue, joinField } from "../risk/config-issue";
import { Config as RiskConfigSchema, PresetName as RiskPresetName, preset as riskPreset, validate as validateRisk } from "../risk/risk";
import { Strategies } from "../strategies";
import { ParameterDefinition, resolveParameters } from "../strategies/parameter";
import { checkIndicatorNode, indicatorIds } from "./indicator-node";

/**
 * What travels along an edge:
 * - `bars`: OHLCV candles of one symbol and period;
 * - `series`: one number per bar (a price, an indicator line);
 * - `condition`: true or false per bar;
 * - `signal`: trade intents with a side (buy or sell) and a strength;
 * - `order`: orders ready for the gateway.
 */
export const PortKind = z.enum(["bars", "series", "condition", "signal", "order"]).meta({ id: "FlowPortKind" });
export type PortKind = z.infer<typeof PortKind>;

/** An input port; an edge may end here when its source port's kind is in `accepts`. */
export const InputPort = z
  .object({ name: z.string(), accepts: z.array(PortKind), required: z.boolean(), description: z.string() })
  .meta({ id: "FlowInputPort" });
export type InputPort = z.infer<typeof InputPort>;

/** An output port; any number of edges may start here. */
export const OutputPort = z.object({ name: z.string(), kind: PortKind, description: z.string() }).meta({ id: "FlowOutputPort" });
export type OutputPort = z.infer<typeof OutputPort>;

/**
 * One entry of the node-type catalog. `entry` nodes start a flow (they take no inputs);
 * `sink` nodes end it. When `extra_parameters` is set, the node takes further parameters
 * beyond `parameters`, defined by the catalog entry it names (an indicator, a strategy, a
 * risk configuration field).
 */
export const NodeTypeDefinition = z
  .object({
    type: z.string(),
    display_name: z.string(),
    category: z.enum(["source", "analysis", "logic", "strategy", "risk", "execution", "output"]),
    description: z.string(),
    entry: z.boolean(),
    sink: z.boolean(),
    inputs: z.array(InputPort),
    outputs: z.array(OutputPort),
    parameters: z.array(ParameterDefinition),
    extra_parameters: z.string().optional(),
  })
  .meta({ id: "FlowNodeType" });
export type NodeTypeDefinition = z.infer<typeof NodeTypeDefinition>;

/** Parameter problems of one node; `connected` names its input ports that have an edge. */
type NodeChecker = (parameters: Record<string, unknown>, connected: ReadonlySet<string>, prefix: string) => { errors: ConfigIssue[]; warnings: ConfigIssue[] };

const PERIODS = ["1m", "5m", "1h", "1d"];

const splitParameters = (parameters: Record<string, unknown>, fixed: readonly string[]) => {
  const own: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parameters)) (fixed.includes(key) ? own : rest)[key] = value;
  return { own, rest };
};

const DEFINITIONS: NodeTypeDefinition[] = [
  {
    type: "data_source",
    display_name: "Data source",
    category: "source",
    description: "Candles of one symbol and period; every flow starts from at least one.",
    entry: true,
    sink: false,
    inputs: [],
    outputs: [
      { name: "bars", kind: "bars", description: "OHLCV candles" },
      { name: "close", kind: "series", description: "Closing prices" },
      { name: "volume", kind: "series", description: "Traded volume" },
    ],
    parameters: [
      { name: "symbol", type: "string", default: null, required: true, description: "Symbol in ticker.region form, e.g. AAPL.US or 700.HK" },
      { name: "period", type: "enum", default: "1d", options: PERIODS, description: "Candle period" },
    ],
  },
  {
    type: "indicator",
    display_name: "Indicator",
    category: "analysis",
    description: "A technical indicator computed over the incoming candles or series.",
    entry: false,
    sink: false,
    inputs: [{ name: "input", accepts: ["bars", "series"], required: true, description: "Candles, or a series for single-input indicators" }],
    outputs: [{ name: "value", kind: "series", description: "The chosen output line of the indicator" }],
    parameters: [
      { name: "indicator", type: "enum", default: null, required: true, options: [], description: "Indicator id from the indicator catalog" },
      { name: "output", type: "string", default: null, description: "Output line to emit (e.g. histogram of macd); the first output when omitted" },
    ],
    extra_parameters: "the parameters of the chosen indicator, as listed by GET /api/v1/indicators/{indicator_id}",
  },
  {
    type: "condition",
    display_name: "Condition",
    category: "logic",
    description: "Compares a series with another series or with a threshold.",
    entry: false,
    sink: false,
    inputs: [
      { name: "left", accepts: ["series"], required: true, description: "Series on the left of the comparison" },
      { name: "right", accepts: ["series"], required: false, description: "Series on the right; the threshold is used when unconnected" },
    ],
    outputs: [{ name: "result", kind: "condition", description: "True on bars where the comparison holds" }],
    parameters: [
      {
        name: "operator",
        type: "enum",
        default: "gt",
        options: ["gt", "gte", "lt", "lte", "crosses_above", "crosses_below"],
        description: "Comparison; the crossing operators are true only on the bar of the cross",
      },
      { name: "threshold", type: "number", default: null, description: "Right-hand value when the right input is unconnected" },
    ],
  },
  {
    type: "logic_and",
    display_name: "AND",
    category: "logic",
    description: "True when both conditions are true.",
    entry: false,
    sink: false,
    inputs: [
      { name: "a", accepts: ["condition"], required: true, description: "First condition" },
      { name: "b", accepts: ["condition"], required: true, description: "Second condition" },
    ],
    outputs: [{ name: "result", kind: "condition", description: "a AND b" }],
    parameters: [],
  },
  {
    type: "logic_or",
    display_name: "OR",
    category: "logic",
    description: "True when either condition is true.",
    entry: false,
    sink: false,
    inputs: [
      { name: "a", accepts: ["condition"], required: true, description: "First condition" },
      { name: "b", accepts: ["condition"], required: true, description: "Second condition" },
    ],
    outputs: [{ name: "result", kind: "condition", description: "a OR b" }],
    parameters: [],
  },
  {
    type: "logic_not",
    display_name: "NOT",
    category: "logic",
    description: "True when the condition is false.",
    entry: false,
    sink: false,
    inputs: [{ name: "input", accepts: ["condition"], required: true, description: "Condition to negate" }],
    outputs: [{ name: "result", kind: "condition", description: "NOT input" }],
    parameters: [],
  },
  {
    type: "strategy",
    display_name: "Strategy",
    category: "strategy",
    description: "A catalog strategy run on the incoming candles, emitting buy and sell signals.",
    entry: false,
    sink: false,
    inputs: [{ name: "bars", accepts: ["bars"], required: true, description: "Candles to run the strategy on" }],
    outputs: [{ name: "signal", kind: "signal", description: "Buy and sell signals" }],
    parameters: [{ name: "strategy_name", type: "enum", default: null, required: true, options: [], description: "Strategy id from the strategy catalog" }],
    extra_parameters: "the parameters of the chosen strategy, as listed by GET /api/v1/strategies/{strategy_name}/parameters",
  },
  {
    type: "risk_check",
    display_name: "Risk check",
    category: "risk",
    description: "Passes signals that respect a risk configuration and diverts the others.",
    entry: false,
    sink: false,
    inputs: [{ name: "signal", accepts: ["signal"], required: true, description: "Signals to check" }],
    outputs: [
      { name: "approved", kind: "signal", description: "Signals within the limits" },
      { name: "rejected", kind: "signal", description: "Signals denied, with the reason" },
    ],
    parameters: [{ name: "preset", type: "enum", default: "default", options: [...RiskPresetName.options], description: "Risk preset the check starts from" }],
    extra_parameters: "any risk configuration field (see GET /api/v1/risk/default), overriding the preset",
  },
  {
    type: "order",
    display_name: "Order",
    category: "execution",
    description: "Turns signals or a condition into orders.",
    entry: false,
    sink: true,
    inputs: [{ name: "signal", accepts: ["signal", "condition"], required: true, description: "Signals, or a condition that triggers the order" }],
    outputs: [{ name: "order", kind: "order", description: "Orders submitted" }],
    parameters: [
      { name: "side", type: "enum", default: "auto", options: ["auto", "buy", "sell"], description: "Order side; auto follows the signal's side" },
      { name: "order_type", type: "enum", default: "market", options: ["market", "limit"], description: "Order type" },
      {
        name: "limit_offset_pct",
        type: "number",
        default: 0,
        min: 0,
        max: 0.2,
        description: "Limit price distance from the last price, as a fraction (limit orders)",
      },
      {
        name: "quantity_mode",
        type: "enum",
        default: "capital_fraction",
        options: ["capital_fraction", "shares", "notional"],
        description: "How quantity is read: fraction of capital, number of shares, or amount in the account currency",
      },
      { name: "quantity", type: "number", default: 0.1, min: 0, description: "Order size in the unit of quantity_mode" },
    ],
  },
  {
    type: "output",
    display_name: "Output",
    category: "output",
    description: "Shows a value in the session's outputs, for charts and debugging.",
    entry: false,
    sink: true,
    inputs: [{ name: "value", accepts: ["bars", "series", "condition", "signal", "order"], required: true, description: "Anything to display" }],
    outputs: [],
    parameters: [{ name: "label", type: "string", default: null, description: "Name shown next to the value" }],
  },
];

const ownParameters = (type: string) => DEFINITIONS.find((d) => d.type === type)!.parameters;

const CHECKERS: Record<string, NodeChecker> = {
  data_source: (parameters, _connected, prefix) => {
    const { errors } = resolveParameters(ownParameters("data_source"), parameters, prefix);
    const symbol = parameters.symbol;
    if (typeof symbol === "string" && symbol.trim() !== "") {
      const field = joinField(prefix, "symbol");
      try {
        const market = marketOf(symbol);
        if (!Markets[market].supported) {
          errors.push(issue("MARKET_NOT_SUPPORTED", field, `${field} '${symbol}' trades in ${market}; only US and HK have data`));
        }
      } catch {
        errors.push(issue("INVALID_VALUE", field, `${field} '${symbol}' is not in ticker.region form, e.g. AAPL.US or 700.HK`));
      }
    }
    return { errors, warnings: [] };
  },
  indicator: (parameters, _connected, prefix) => checkIndicatorNode(parameters, prefix),
  condition: (parameters, connected, prefix) => {
    const { errors } = resolveParameters(ownParameters("condition"), parameters, prefix);
    if (!connected.has("right") && (parameters.threshold === undefined || parameters.threshold === null)) {
      errors.push(issue("CONDITION_MISSING_OPERAND", joinField(prefix, "threshold"), "a condition needs its right input connected or a threshold"));
    }
    return { errors, warnings: [] };
  },
  strategy: (parameters, _connected, prefix) => {
    const { own, rest } = splitParameters(parameters, ["strategy_name"]);
    const name = own.strategy_name;
    const field = joinField(prefix, "strategy_name");
    if (typeof name !== "string" || name === "") {
      return { errors: [issue("MISSING_PARAMETER", field, `${field} is required`)], warnings: [] };
    }
    if (!Strategies.exists(name)) {
      return {
        errors: [issue("STRATEGY_NOT_FOUND", field, `${field}: strategy '${name}' does not exist`)],
        warnings: [],
      };
    }
    const result = Strategies.validate(name, rest, prefix);
    return { errors: result.errors, warnings: result.warnings };
  },
  risk_check: (parameters, _connected, prefix) => {
    const { own, rest } = splitParameters(parameters, ["preset"]);
    const { values, errors } = resolveParameters(ownParameters("risk_check"), own, prefix);
    const unknown = Object.keys(rest).filter((key) => !(key in RiskConfigSchema.shape));
    for (const key of unknown) {
      const keyField = joinField(prefix, key);
      errors.push(issue("UNKNOWN_PARAMETER", keyField, `${keyField} is neither preset nor a risk configuration field`));
    }
    const known = Object.fromEntries(Object.entries(rest).filter(([key]) => key in RiskConfigSchema.shape));
    const presetName = RiskPresetName.safeParse(values.preset);
    const base = presetName.success ? presetName.data : "default";
    const risk = validateRisk({ ...riskPreset(base).config, ...known }, prefix);
    return { errors: [...errors, ...risk.errors], warnings: risk.warnings };
  },
  order: (parameters, _connected, prefix) => {
    const { values, errors } = resolveParameters(ownParameters("order"), parameters, prefix);
    const quantity = values.quantity as number;
    const quantityField = joinField(prefix, "quantity");
    if (quantity <= 0) errors.push(issue("OUT_OF_RANGE", quantityField, `${quantityField} must be > 0 (got ${quantity})`));
    if (values.quantity_mode === "capital_fraction" && quantity > 1) {
      errors.push(issue("OUT_OF_RANGE", quantityField, `${quantityField} is a fraction of capital and must be <= 1 (got ${quantity})`));
    }
    if (values.quantity_mode === "shares" && !Number.isInteger(quantity)) {
      errors.push(issue("INVALID_TYPE", quantityField, `${quantityField} counts shares and must be an integer (got ${quantity})`));
    }
    return { errors, warnings: [] };
  },
};

/**
 * Extra check of an order node fed by a condition, which carries no side. Separate from the
 * parameter checkers because it depends on the kind of the incoming edge, which only
 * `validate` knows.
 */
export const checkOrderSide = (parameters: Record<string, unknown>, prefix: string): ConfigIssue[] => {
  const side = parameters.side ?? "auto";
  return side === "auto" ? [issue("ORDER_SIDE_REQUIRED", joinField(prefix, "side"), "an order triggered by a condition needs side buy or sell")] : [];
};

/** The node-type catalog with dynamic enum options filled in (indicator and strategy ids). */
export const nodeTypes = (): NodeTypeDefinition[] =>
  DEFINITIONS.map((definition) => ({
    ...definition,
    inputs: definition.inputs.map((p) => ({ ...p, accepts: [...p.accepts] })),
    outputs: definition.outputs.map((p) => ({ ...p })),
    parameters: definition.parameters.map((p) => {
      if (definition.type === "indicator" && p.name === "indicator") return { ...p, options: indicatorIds() };
      if (definition.type === "strategy" && p.name === "strategy_name") return { ...p, options: Strategies.ids() };
      return p.options ? { ...p, options: [...p.options] } : { ...p };
    }),
  }));

/** One node type by name; 404 `NODE_TYPE_NOT_FOUND` when unknown. */
export const nodeType = (type: string): NodeTypeDefinition => {
  const found = nodeTypes().find((d) => d.type === type);
  if (!found) throw notFound("NODE_TYPE_NOT_FOUND", `Flow node type '${type}' does not exist`);
  return found;
};

/** The definition of a node type, or undefined for an unknown type. */
export const findNodeType = (type: string): NodeTypeDefinition | undefined => DEFINITIONS.find((d) => d.type === type);

/** Checks the parameters of a node of a known type. */
export const checkNodeParameters = (
  type: string,
  parameters: Record<string, unknown>,
  connected: ReadonlySet<string>,
  prefix: string,
): { errors: ConfigIssue[]; warnings: ConfigIssue[] } => {
  const checker = CHECKERS[type];
  if (checker) return checker(parameters, connected, prefix);
  return { errors: resolveParameters(ownParameters(type), parameters, prefix).errors, warnings: [] };
};
