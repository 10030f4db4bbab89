import { describe, expect, it } from "vitest";
import { Flows } from "./index";

const node = (id: string, type: string, parameters: Record<string, unknown> = {}) => ({ id, type, parameters });
const edge = (source: string, target: string, ports: { source_port?: string; target_port?: string; id?: string } = {}) => ({
  source,
  target,
  ...ports,
});

/** RSI below 30 buys AAPL: source → rsi → condition → order. */
const rsiFlow = () => ({
  name: "RSI dip buyer",
  nodes: [
    node("src", "data_source", { symbol: "AAPL.US", period: "1d" }),
    node("rsi", "indicator", { indicator: "rsi", period: 14 }),
    node("dip", "condition", { operator: "lt", threshold: 30 }),
    node("buy", "order", { side: "buy", quantity: 0.1 }),
  ],
  edges: [
    edge("src", "rsi", { id: "e1", source_port: "close", target_port: "input" }),
    edge("rsi", "dip", { id: "e2", target_port: "left" }),
    edge("dip", "buy", { id: "e3" }),
  ],
});

/** A catalog strategy behind a risk check: source → strategy → risk_check → order. */
const strategyFlow = () => ({
  name: "Checked crossover",
  nodes: [
    node("src", "data_source", { symbol: "700.HK" }),
    node("cross", "strategy", { strategy_name: "ma_crossover", fast_period: 10, slow_period: 30 }),
    node("risk", "risk_check", { preset: "conservative", max_position_size: 0.04 }),
    node("order", "order"),
  ],
  edges: [edge("src", "cross"), edge("cross", "risk"), edge("risk", "order", { source_port: "approved" })],
});

const codes = (issues: { code: string }[]) => issues.map((i) => i.code);

describe("Flows.validate on sound flows", () => {
  it("accepts the RSI flow and gives its execution order", () => {
    const result = Flows.validate(rsiFlow());
    expect(result).toEqual({
      valid: true,
      errors: [],
      warnings: [],
      summary: { node_count: 4, edge_count: 3, entry_nodes: ["src"], sink_nodes: ["buy"] },
      execution_order: ["src", "rsi", "dip", "buy"],
    });
  });

  it("accepts a strategy behind a risk check, with ports taken by default where unnamed", () => {
    expect(Flows.validate(strategyFlow())).toMatchObject({ valid: true, errors: [], warnings: [] });
  });

  it("accepts two sources joined by AND, ordering both sources before the join", () => {
    const flow = {
      nodes: [
        node("a", "data_source", { symbol: "AAPL.US" }),
        node("b", "data_source", { symbol: "MSFT.US" }),
        node("ca", "condition", { operator: "gt", threshold: 100 }),
        node("cb", "condition", { operator: "crosses_above", threshold: 300 }),
        node("and", "logic_and"),
        node("out", "output", { label: "both strong" }),
      ],
      edges: [
        edge("a", "ca", { source_port: "close" }),
        edge("b", "cb", { source_port: "close" }),
        edge("ca", "and", { target_port: "a" }),
        edge("cb", "and", { target_port: "b" }),
        edge("and", "out"),
      ],
    };
    const result = Flows.validate(flow);
    expect(result.valid).toBe(true);
    const order = result.execution_order!;
    expect(order.indexOf("and")).toBeGreaterThan(order.indexOf("ca"));
    expect(order.indexOf("and")).toBeGreaterThan(order.indexOf("cb"));
    expect(order.at(-1)).toBe("out");
  });
});

describe("Flows.validate errors", () => {
  it("rejects an unknown node type", () => {
    const flow = rsiFlow();
    flow.nodes[2] = node("dip", "crystal_ball");
    const result = Flows.validate(flow);
    expect(result.valid).toBe(false);
    expect(result.errors).toContainEqual({
      code: "UNKNOWN_NODE_TYPE",
      message: `node 'dip' has unknown type "crystal_ball"`,
      node_id: "dip",
      field: "nodes.2.type",
    });
    expect(result.execution_order).toBeUndefined();
  });

  it("rejects duplicate node ids", () => {
    const flow = rsiFlow();
    flow.nodes.push(node("rsi", "output"));
    expect(Flows.validate(flow).errors).toContainEqual(expect.objectContaining({ code: "DUPLICATE_NODE_ID", node_id: "rsi", field: "nodes.4.id" }));
  });

  it("rejects edges to and from missing nodes", () => {
    const flow = rsiFlow();
    flow.edges.push(edge("ghost", "buy", { id: "e4" }), edge("dip", "void", { id: "e5" }));
    const result = Flows.validate(flow);
    expect(result.errors.map((e) => [e.code, e.edge_id])).toEqual([
      ["EDGE_SOURCE_NOT_FOUND", "e4"],
      ["EDGE_TARGET_NOT_FOUND", "e5"],
    ]);
  });

  it("rejects ports the node type does not have, listing the ones it has", () => {
    const flow = rsiFlow();
    flow.edges[1] = edge("rsi", "dip", { id: "e2", source_port: "histogram", target_port: "left" });
    const [error] = Flows.validate(flow).errors;
    expect(error).toMatchObject({ code: "EDGE_UNKNOWN_PORT", edge_id: "e2", field: "edges.1.source_port" });
    expect(error.message).toContain("outputs: value");
  });

  it("rejects an edge whose kinds do not fit: candles into a condition", () => {
    const flow = rsiFlow();
    flow.edges[1] = edge("src", "dip", { id: "e2", source_port: "bars", target_port: "left" });
    expect(codes(Flows.validate(flow).errors)).toContain("EDGE_TYPE_MISMATCH");
  });

  it("rejects a second edge into the same input", () => {
    const flow = rsiFlow();
    flow.edges.push(edge("src", "dip", { id: "e4", source_port: "close", target_port: "left" }));
    expect(Flows.validate(flow).errors).toEqual([expect.objectContaining({ code: "INPUT_ALREADY_CONNECTED", node_id: "dip", edge_id: "e4" })]);
  });

  it("rejects duplicate edge ids", () => {
    const flow = rsiFlow();
    flow.edges[2] = { ...flow.edges[2], id: "e1" };
    expect(codes(Flows.validate(flow).errors)).toEqual(["DUPLICATE_EDGE_ID"]);
  });

  it("rejects a cycle and names the nodes around it", () => {
    const flow = {
      nodes: [
        node("src", "data_source", { symbol: "AAPL.US" }),
        node("x", "condition", { threshold: 1 }),
        node("y", "logic_and"),
        node("z", "logic_not"),
        node("out", "output"),
      ],
      edges: [
        edge("src", "x", { source_port: "close" }),
        edge("x", "y", { target_port: "a" }),
        edge("y", "z"),
        edge("z", "y", { target_port: "b" }),
        edge("y", "out"),
      ],
    };
    const result = Flows.validate(flow);
    expect(result.errors).toEqual([{ code: "CYCLE_DETECTED", message: "cycle: y → z → y", node_id: "y" }]);
  });

  it("rejects a node wired to itself as a cycle", () => {
    const flow = {
      nodes: [node("src", "data_source", { symbol: "AAPL.US" }), node("n", "logic_or"), node("out", "output")],
      edges: [edge("n", "n", { target_port: "a" }), edge("n", "out")],
    };
    expect(codes(Flows.validate(flow).errors)).toContain("CYCLE_DETECTED");
  });

  it("rejects a flow without an entry node, including an empty one", () => {
    expect(codes(Flows.validate({ nodes: [], edges: [] }).errors)).toEqual(["NO_ENTRY_NODE"]);
    const flow = rsiFlow();
    flow.nodes.shift();
    flow.edges.shift();
    expect(codes(Flows.validate(flow).errors)).toEqual(["NO_ENTRY_NODE"]);
  });

  it("rejects invalid parameters with the node and the parameter path", () => {
    const flow = rsiFlow();
    flow.nodes[1] = node("rsi", "indicator", { indicator: "rsi", period: 0 });
    flow.nodes[0] = node("src", "data_source", { symbol: "AAPL", period: "2h" });
    const result = Flows.validate(flow);
    expect(result.errors.map((e) => [e.code, e.node_id, e.field])).toEqual([
      ["INVALID_VALUE", "src", "nodes.0.parameters.period"],
      ["INVALID_VALUE", "src", "nodes.0.parameters.symbol"],
      ["OUT_OF_RANGE", "rsi", "nodes.1.parameters.period"],
    ]);
  });

  it("rejects a source symbol from a market without data", () => {
    const flow = rsiFlow();
    flow.nodes[0] = node("src", "data_source", { symbol: "600519.SH" });
    expect(Flows.validate(flow).errors.map((e) => [e.code, e.field])).toEqual([["MARKET_NOT_SUPPORTED", "nodes.0.parameters.symbol"]]);
  });

  it("rejects an unknown indicator, an unknown output line and parameters the indicator does not take", () => {
    const check = (parameters: Record<string, unknown>) => {
      const flow = rsiFlow();
      flow.nodes[1] = node("rsi", "indicator", parameters);
      return Flows.validate(flow).errors.map((e) => [e.code, e.field]);
    };
    expect(check({ indicator: "tarot" })).toEqual([["INDICATOR_NOT_FOUND", "nodes.1.parameters.indicator"]]);
    expect(check({ indicator: "macd", output: "upper" })).toEqual([["INVALID_VALUE", "nodes.1.parameters.output"]]);
    expect(check({ indicator: "rsi", std_dev: 2 })).toEqual([["UNKNOWN_PARAMETER", "nodes.1.parameters.std_dev"]]);
    expect(check({ indicator: "macd", fast_period: 30, slow_period: 20 })).toEqual([["INVALID_PARAMETER_COMBINATION", "nodes.1.parameters.fast_period"]]);
  });

  it("rejects a candle-based indicator fed a single series", () => {
    const flow = rsiFlow();
    flow.nodes[1] = node("rsi", "indicator", { indicator: "atr" });
    expect(codes(Flows.validate(flow).errors)).toEqual(["INDICATOR_NEEDS_BARS"]);
    flow.edges[0] = edge("src", "rsi", { id: "e1", source_port: "bars" });
    expect(Flows.validate(flow).valid).toBe(true);
  });

  it("rejects a condition with neither a right input nor a threshold", () => {
    const flow = rsiFlow();
    flow.nodes[2] = node("dip", "condition", { operator: "lt" });
    expect(codes(Flows.validate(flow).errors)).toEqual(["CONDITION_MISSING_OPERAND"]);
  });

  it("rejects an order triggered by a condition without a side", () => {
    const flow = rsiFlow();
    flow.nodes[3] = node("buy", "order", { quantity: 0.1 });
    expect(Flows.validate(flow).errors).toEqual([expect.objectContaining({ code: "ORDER_SIDE_REQUIRED", node_id: "buy" })]);
  });

  it("rejects order quantities that do not fit their mode", () => {
    const flow = rsiFlow();
    flow.nodes[3] = node("buy", "order", { side: "buy", quantity: 2 });
    expect(codes(Flows.validate(flow).errors)).toEqual(["OUT_OF_RANGE"]);
    flow.nodes[3] = node("buy", "order", { side: "buy", quantity_mode: "shares", quantity: 10.5 });
    expect(codes(Flows.validate(flow).errors)).toEqual(["INVALID_TYPE"]);
  });

  it("checks strategy nodes against the strategy catalog", () => {
    const flow = strategyFlow();
    flow.nodes[1] = node("cross", "strategy", { strategy_name: "ma_crossover", fast_period: 40, slow_period: 30 });
    expect(codes(Flows.validate(flow).errors)).toEqual(["INVALID_PARAMETER_COMBINATION"]);
    flow.nodes[1] = node("cross", "strategy", { strategy_name: "astrology" });
    expect(codes(Flows.validate(flow).errors)).toEqual(["STRATEGY_NOT_FOUND"]);
  });

  it("checks risk nodes as a preset with overrides", () => {
    const flow = strategyFlow();
    flow.nodes[2] = node("risk", "risk_check", { preset: "conservative", max_drawdown: 5, colour: "red" });
    expect(Flows.validate(flow).errors.map((e) => [e.code, e.field])).toEqual([
      ["UNKNOWN_PARAMETER", "nodes.2.parameters.colour"],
      ["OUT_OF_RANGE", "nodes.2.parameters.max_drawdown"],
    ]);
  });

  it("rejects malformed input outright", () => {
    expect(codes(Flows.validate({ nodes: "x" }).errors)).toEqual(["INVALID_FLOW"]);
    expect(codes(Flows.validate({ nodes: [{ type: "output" }], edges: [{}] }).errors)).toEqual(["INVALID_NODE", "INVALID_EDGE", "NO_ENTRY_NODE"]);
  });
});

describe("Flows.validate warnings", () => {
  it("warns about a node no entry reaches and its unconnected input", () => {
    const flow = rsiFlow();
    flow.nodes.push(node("lonely", "output"));
    const result = Flows.validate(flow);
    expect(result.valid).toBe(true);
    expect(result.warnings).toEqual([
      { code: "UNCONNECTED_INPUT", message: "node 'lonely': required input 'value' has no edge", node_id: "lonely" },
      { code: "UNREACHABLE_NODE", message: "node 'lonely' cannot be reached from any entry node", node_id: "lonely" },
    ]);
  });

  it("warns about a node whose outputs lead nowhere and a flow without a sink", () => {
    const flow = rsiFlow();
    flow.nodes.pop();
    flow.edges.pop();
    expect(codes(Flows.validate(flow).warnings)).toEqual(["UNUSED_OUTPUT", "NO_OUTPUT_NODE"]);
  });

  it("passes on strategy warnings from strategy nodes", () => {
    const flow = strategyFlow();
    flow.nodes[1] = node("cross", "strategy", { strategy_name: "ma_crossover", allow_short: true });
    expect(Flows.validate(flow).warnings).toEqual([
      expect.objectContaining({ code: "SHORT_SELLING_ENABLED", node_id: "cross", field: "nodes.1.parameters.allow_short" }),
    ]);
  });
});

describe("flow schemas", () => {
  it("fills empty nodes and edges on creation and keeps editor fields on nodes", () => {
    const created = Flows.FlowConfigCreate.parse({
      name: "  Draft  ",
      nodes: [{ id: "a", type: "output", position: { x: 1, y: 2 }, selected: true }],
      metadata: { tags: ["rsi"], author: "ana", category: "mean_reversion", colour: "teal" },
    });
    expect(created).toEqual({
      name: "Draft",
      nodes: [{ id: "a", type: "output", parameters: {}, position: { x: 1, y: 2 }, selected: true }],
      edges: [],
      metadata: { tags: ["rsi"], author: "ana", category: "mean_reversion", colour: "teal" },
    });
  });

  it("requires a non-blank name on creation but not on update", () => {
    expect(Flows.FlowConfigCreate.safeParse({ name: " " }).success).toBe(false);
    expect(Flows.FlowConfigCreate.safeParse({}).success).toBe(false);
    expect(Flows.FlowConfigUpdate.parse({ description: "x" })).toEqual({ description: "x" });
  });

  it("serves the node-type catalog with indicator and strategy ids filled in", () => {
    const types = Flows.nodeTypes();
    expect(types.map((t) => t.type)).toEqual([
      "data_source",
      "indicator",
      "condition",
      "logic_and",
      "logic_or",
      "logic_not",
      "strategy",
      "risk_check",
      "order",
      "output",
    ]);
    expect(Flows.nodeType("indicator").parameters[0].options).toEqual(expect.arrayContaining(["sma", "ema", "rsi", "macd", "bollinger_bands"]));
    expect(Flows.nodeType("strategy").parameters[0].options).toContain("ma_crossover");
    expect(types.filter((t) => t.entry).map((t) => t.type)).toEqual(["data_source"]);
  });

  it("answers 404 NODE_TYPE_NOT_FOUND for an unknown node type", () => {
    expect(() => Flows.nodeType("crystal_ball")).toThrowError(/does not exist/);
  });
});

describe("Flows.duplicateName", () => {
  it.each([
    ["Alpha", "Alpha (copy)"],
    ["Alpha (copy)", "Alpha (copy 2)"],
    ["Alpha (copy 2)", "Alpha (copy 3)"],
    ["Alpha (copy) notes", "Alpha (copy) notes (copy)"],
  ])("names the copy of %j %j", (name, expected) => {
    expect(Flows.duplicateName(name)).toBe(expected);
  });

  it("skips names already taken", () => {
    expect(Flows.duplicateName("Alpha", ["Alpha (copy)", "Alpha (copy 2)"])).toBe("Alpha (copy 3)");
  });

  it("shortens a long name so the copy still fits 200 characters", () => {
    const copy = Flows.duplicateName("x".repeat(200));
    expect(copy).toHaveLength(200);
    expect(copy.endsWith(" (copy)")).toBe(true);
  });

  it("duplicates a flow as a creation body with a deep copy of its graph", () => {
    const original = Flows.FlowConfigCreate.parse(rsiFlow());
    const copy = Flows.duplicate(original);
    expect(copy.name).toBe("RSI dip buyer (copy)");
    expect(copy.nodes).toEqual(original.nodes);
    copy.nodes[0].parameters.symbol = "MSFT.US";
    expect(original.nodes[0].parameters.symbol).toBe("AAPL.US");
  });
});

describe("flow response schemas", () => {
  it("describe the node-type catalog and validation answers exactly", () => {
    const types = Flows.nodeTypes();
    expect(types.map((t) => Flows.NodeTypeDefinition.parse(t))).toEqual(types);
    const broken = rsiFlow();
    broken.edges.push(edge("ghost", "buy", { id: "e9" }));
    for (const flow of [rsiFlow(), broken, { nodes: "x" }]) {
      const result = Flows.validate(flow);
      expect(Flows.FlowValidation.parse(result)).toEqual(result);
    }
  });
});
