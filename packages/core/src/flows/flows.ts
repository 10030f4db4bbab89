import { z } from "zod";
import type { ConfigIssue } from "../risk/config-issue";
import { FlowConfigCreate as FlowConfigCreateSchema } from "./flow-config";
import { acceptsSeries, indicatorIds } from "./indicator-node";
import { checkNodeParameters, checkOrderSide, findNodeType, type NodeTypeDefinition, type PortKind } from "./node-types";

export { FlowConfig, FlowConfigCreate, FlowConfigUpdate, FlowEdge, FlowMetadata, FlowNode, NodePosition } from "./flow-config";
export { InputPort, NodeTypeDefinition, nodeType, nodeTypes, OutputPort, PortKind } from "./node-types";

/**
 * One finding of flow validation. `node_id` / `edge_id` point at the culprit when there is
 * one (`edge_id` only when the edge has an id); `field` is the dotted path into the flow
 * (`nodes.2.parameters.period`, `edges.0.target_port`).
 */
export const FlowIssue = z
  .object({
    code: z.string(),
    message: z.string(),
    node_id: z.string().optional(),
    edge_id: z.string().optional(),
    field: z.string().optional(),
  })
  .meta({ id: "FlowIssue" });
export type FlowIssue = z.infer<typeof FlowIssue>;

/** Outcome of `validate`. `execution_order` lists node ids in dependency order, present when valid. */
export const FlowValidation = z
  .object({
    valid: z.boolean(),
    errors: z.array(FlowIssue),
    warnings: z.array(FlowIssue),
    summary: z.object({
      node_count: z.int(),
      edge_count: z.int(),
      entry_nodes: z.array(z.string()),
      sink_nodes: z.array(z.string()),
    }),
    execution_order: z.array(z.string()).optional(),
  })
  .meta({ id: "FlowValidationResult" });
export type FlowValidation = z.infer<typeof FlowValidation>;

interface KnownNode {
  id: string;
  index: number;
  definition: NodeTypeDefinition | undefined;
  parameters: Record<string, unknown>;
}

interface Link {
  source: string;
  target: string;
  targetPort: string;
  kind: PortKind;
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

const fromConfigIssue = (found: ConfigIssue, nodeId: string): FlowIssue => ({
  code: found.code,
  message: `node '${nodeId}': ${found.message}`,
  node_id: nodeId,
  field: found.field,
});

/** Collects nodes that are well formed, reporting malformed, duplicate and unknown-type ones. */
const readNodes = (nodes: unknown[], errors: FlowIssue[]): Map<string, KnownNode> => {
  const known = new Map<string, KnownNode>();
  nodes.forEach((node, index) => {
    const field = `nodes.${index}`;
    if (!isObject(node) || typeof node.id !== "string" || node.id === "") {
      errors.push({ code: "INVALID_NODE", message: `${field} needs a non-empty string id`, field });
      return;
    }
    const id = node.id;
    if (known.has(id)) {
      errors.push({ code: "DUPLICATE_NODE_ID", message: `node id '${id}' is used more than once`, node_id: id, field: `${field}.id` });
      return;
    }
    if (node.parameters !== undefined && node.parameters !== null && !isObject(node.parameters)) {
      errors.push({ code: "INVALID_NODE", message: `node '${id}': parameters must be an object`, node_id: id, field: `${field}.parameters` });
    }
    const definition = typeof node.type === "string" ? findNodeType(node.type) : undefined;
    if (!definition) {
      errors.push({
        code: "UNKNOWN_NODE_TYPE",
        message: `node '${id}' has unknown type ${JSON.stringify(node.type)}`,
        node_id: id,
        field: `${field}.type`,
      });
    }
    known.set(id, { id, index, definition, parameters: isObject(node.parameters) ? node.parameters : {} });
  });
  return known;
};

/** Checks every edge against the nodes and their ports; returns the edges that hold. */
const readEdges = (edges: unknown[], nodes: Map<string, KnownNode>, errors: FlowIssue[]): Link[] => {
  const links: Link[] = [];
  const edgeIds = new Set<string>();
  const takenInputs = new Set<string>();
  edges.forEach((edge, index) => {
    const field = `edges.${index}`;
    if (!isObject(edge) || typeof edge.source !== "string" || typeof edge.target !== "string") {
      errors.push({ code: "INVALID_EDGE", message: `${field} needs string source and target`, field });
      return;
    }
    const edgeId = typeof edge.id === "string" && edge.id !== "" ? edge.id : undefined;
    const at = { field, ...(edgeId ? { edge_id: edgeId } : {}) };
    const label = edgeId ? `edge '${edgeId}'` : `${field} (${edge.source} → ${edge.target})`;
    if (edgeId) {
      if (edgeIds.has(edgeId)) errors.push({ code: "DUPLICATE_EDGE_ID", message: `edge id '${edgeId}' is used more than once`, ...at });
      edgeIds.add(edgeId);
    }
    const source = nodes.get(edge.source);
    const target = nodes.get(edge.target);
    if (!source) errors.push({ code: "EDGE_SOURCE_NOT_FOUND", message: `${label} starts at missing node '${edge.source}'`, ...at });
    if (!target) errors.push({ code: "EDGE_TARGET_NOT_FOUND", message: `${label} ends at missing node '${edge.target}'`, ...at });
    if (!source?.definition || !target?.definition) return;
    const sourcePortName = typeof edge.source_port === "string" ? edge.source_port : source.definition.outputs[0]?.name;
    const targetPortName = typeof edge.target_port === "string" ? edge.target_port : target.definition.inputs[0]?.name;
    const outputPort = source.definition.outputs.find((p) => p.name === sourcePortName);
    const inputPort = target.definition.inputs.find((p) => p.name === targetPortName);
    if (!outputPort) {
      const available = source.definition.outputs.map((p) => p.name).join(", ") || "none";
      errors.push({
        code: "EDGE_UNKNOWN_PORT",
        message: `${label}: node '${source.id}' (${source.definition.type}) has no output port '${sourcePortName ?? ""}'; outputs: ${available}`,
        ...at,
        field: `${field}.source_port`,
      });
    }
    if (!inputPort) {
      const available = target.definition.inputs.map((p) => p.name).join(", ") || "none";
      errors.push({
        code: "EDGE_UNKNOWN_PORT",
        message: `${label}: node '${target.id}' (${target.definition.type}) has no input port '${targetPortName ?? ""}'; inputs: ${available}`,
        ...at,
        field: `${field}.target_port`,
      });
    }
    if (!outputPort || !inputPort) return;
    if (!inputPort.accepts.includes(outputPort.kind)) {
      errors.push({
        code: "EDGE_TYPE_MISMATCH",
        message: `${label}: output '${outputPort.name}' carries ${outputPort.kind}, input '${inputPort.name}' of '${target.id}' accepts ${inputPort.accepts.join(" or ")}`,
        ...at,
      });
      return;
    }
    const inputKey = `${target.id}\u0000${inputPort.name}`;
    if (takenInputs.has(inputKey)) {
      errors.push({
        code: "INPUT_ALREADY_CONNECTED",
        message: `${label}: input '${inputPort.name}' of node '${target.id}' already has an edge`,
        node_id: target.id,
        ...at,
      });
      return;
    }
    takenInputs.add(inputKey);
    links.push({ source: source.id, target: target.id, targetPort: inputPort.name, kind: outputPort.kind });
  });
  return links;
};

/** Every cycle closed by a back edge of a depth-first search, as the node ids around it. */
const findCycles = (ids: string[], links: Link[]): string[][] => {
  const next = new Map<string, string[]>(ids.map((id) => [id, []]));
  for (const link of links) next.get(link.source)!.push(link.target);
  const state = new Map<string, "open" | "done">();
  const cycles: string[][] = [];
  for (const start of ids) {
    if (state.has(start)) continue;
    // Iterative DFS: the path is the stack of nodes currently open.
    const path: string[] = [start];
    const cursors: number[] = [0];
    state.set(start, "open");
    while (path.length > 0) {
      const node = path[path.length - 1];
      const children = next.get(node)!;
      const cursor = cursors[cursors.length - 1];
      if (cursor === children.length) {
        state.set(node, "done");
        path.pop();
        cursors.pop();
        continue;
      }
      cursors[cursors.length - 1] += 1;
      const child = children[cursor];
      const seen = state.get(child);
      if (seen === "open") cycles.push([...path.slice(path.indexOf(child)), child]);
      else if (seen === undefined) {
        state.set(child, "open");
        path.push(child);
        cursors.push(0);
      }
    }
  }
  return cycles;
};

/** Kahn's order of the nodes; only meaningful when the graph has no cycle. */
const topologicalOrder = (ids: string[], links: Link[]): string[] => {
  const incoming = new Map<string, number>(ids.map((id) => [id, 0]));
  const next = new Map<string, string[]>(ids.map((id) => [id, []]));
  for (const link of links) {
    incoming.set(link.target, incoming.get(link.target)! + 1);
    next.get(link.source)!.push(link.target);
  }
  const ready = ids.filter((id) => incoming.get(id) === 0);
  const order: string[] = [];
  while (ready.length > 0) {
    const id = ready.shift()!;
    order.push(id);
    for (const child of next.get(id)!) {
      const remaining = incoming.get(child)! - 1;
      incoming.set(child, remaining);
      if (remaining === 0) ready.push(child);
    }
  }
  return order;
};

const reachableFrom = (starts: string[], links: Link[]): Set<string> => {
  const seen = new Set(starts);
  const queue = [...starts];
  while (queue.length > 0) {
    const id = queue.shift()!;
    for (const link of links) {
      if (link.source === id && !seen.has(link.target)) {
        seen.add(link.target);
        queue.push(link.target);
      }
    }
  }
  return seen;
};

/**
 * Checks that a flow can run: known node types with valid parameters, unique node and edge
 * ids, edges between existing nodes and ports of compatible kinds, at most one edge per
 * input, no cycles and at least one entry node. Unreachable nodes, unconnected required
 * inputs, outputs that lead nowhere and the lack of a sink are warnings.
 */
export const validate = (flow: unknown): FlowValidation => {
  const errors: FlowIssue[] = [];
  const warnings: FlowIssue[] = [];
  const rawNodes = isObject(flow) ? (flow.nodes ?? []) : undefined;
  const rawEdges = isObject(flow) ? (flow.edges ?? []) : undefined;
  if (!Array.isArray(rawNodes) || !Array.isArray(rawEdges)) {
    return {
      valid: false,
      errors: [{ code: "INVALID_FLOW", message: "a flow needs nodes and edges arrays" }],
      warnings,
      summary: { node_count: 0, edge_count: 0, entry_nodes: [], sink_nodes: [] },
    };
  }
  const nodes = readNodes(rawNodes, errors);
  const links = readEdges(rawEdges, nodes, errors);
  const ids = [...nodes.keys()];

  for (const node of nodes.values()) {
    if (!node.definition) continue;
    const incoming = links.filter((l) => l.target === node.id);
    const connected = new Set(incoming.map((l) => l.targetPort));
    const prefix = `nodes.${node.index}.parameters`;
    const checked = checkNodeParameters(node.definition.type, node.parameters, connected, prefix);
    errors.push(...checked.errors.map((e) => fromConfigIssue(e, node.id)));
    warnings.push(...checked.warnings.map((w) => fromConfigIssue(w, node.id)));
    if (node.definition.type === "order" && incoming.some((l) => l.kind === "condition")) {
      errors.push(...checkOrderSide(node.parameters, prefix).map((e) => fromConfigIssue(e, node.id)));
    }
    const indicator = node.parameters.indicator;
    if (
      node.definition.type === "indicator" &&
      typeof indicator === "string" &&
      incoming.some((l) => l.kind === "series") &&
      indicatorIds().includes(indicator) &&
      !acceptsSeries(indicator)
    ) {
      errors.push({
        code: "INDICATOR_NEEDS_BARS",
        message: `node '${node.id}': ${indicator} is computed from high, low and close, so its input must be candles, not a series`,
        node_id: node.id,
        field: `${prefix}.indicator`,
      });
    }
    for (const port of node.definition.inputs) {
      if (port.required && !connected.has(port.name)) {
        warnings.push({
          code: "UNCONNECTED_INPUT",
          message: `node '${node.id}': required input '${port.name}' has no edge`,
          node_id: node.id,
        });
      }
    }
    if (!node.definition.sink && node.definition.outputs.length > 0 && !links.some((l) => l.source === node.id)) {
      warnings.push({ code: "UNUSED_OUTPUT", message: `node '${node.id}': its outputs lead nowhere`, node_id: node.id });
    }
  }

  const cycles = findCycles(ids, links);
  for (const cycle of cycles) {
    errors.push({ code: "CYCLE_DETECTED", message: `cycle: ${cycle.join(" → ")}`, node_id: cycle[0] });
  }

  const entries = ids.filter((id) => nodes.get(id)!.definition?.entry);
  const sinks = ids.filter((id) => nodes.get(id)!.definition?.sink);
  if (entries.length === 0) {
    errors.push({ code: "NO_ENTRY_NODE", message: "a flow needs at least one entry node (data_source)" });
  } else {
    const reachable = reachableFrom(entries, links);
    for (const id of ids) {
      if (!reachable.has(id)) {
        warnings.push({ code: "UNREACHABLE_NODE", message: `node '${id}' cannot be reached from any entry node`, node_id: id });
      }
    }
  }
  if (ids.length > 0 && sinks.length === 0) {
    warnings.push({ code: "NO_OUTPUT_NODE", message: "the flow has no order or output node, so it produces nothing" });
  }

  const valid = errors.length === 0;
  return {
    valid,
    errors,
    warnings,
    summary: { node_count: rawNodes.length, edge_count: rawEdges.length, entry_nodes: entries, sink_nodes: sinks },
    ...(valid ? { execution_order: topologicalOrder(ids, links) } : {}),
  };
};

const COPY_SUFFIX = /^(.*) \(copy(?: (\d+))?\)$/;
const NAME_LIMIT = 200;

/**
 * The name of a duplicate: "X" → "X (copy)", "X (copy)" → "X (copy 2)", "X (copy 2)" →
 * "X (copy 3)", skipping names in `taken`, and shortening the base to fit 200 characters.
 */
export const duplicateName = (name: string, taken: Iterable<string> = []): string => {
  const names = new Set(taken);
  const match = COPY_SUFFIX.exec(name);
  const base = match ? match[1] : name;
  let number = match ? (match[2] ? Number(match[2]) : 1) + 1 : 1;
  const candidate = (n: number) => {
    const suffix = n === 1 ? " (copy)" : ` (copy ${n})`;
    return `${base.slice(0, NAME_LIMIT - suffix.length)}${suffix}`;
  };
  while (names.has(candidate(number))) number += 1;
  return candidate(number);
};

/** The creation body of a copy of `flow`: same graph and metadata, a new name. */
export const duplicate = (
  flow: Pick<FlowConfigCreateSchema, "name" | "description" | "nodes" | "edges" | "metadata">,
  takenNames: Iterable<string> = [],
): FlowConfigCreateSchema =>
  FlowConfigCreateSchema.parse(
    structuredClone({
      name: duplicateName(flow.name, takenNames),
      description: flow.description,
      nodes: flow.nodes,
      edges: flow.edges,
      metadata: flow.metadata,
    }),
  );
