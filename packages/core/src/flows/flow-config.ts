import { z } from "zod";

// Nodes, edges and metadata keep fields they do not know: canvas libraries attach their own
// (`width`, `selected`, `data`, ...) and a saved flow must come back as the editor drew it.
// Only the fields below are checked, and only for shape; whether the graph makes sense is
// the job of `validate`, so half-built drafts can be saved.

/** Canvas coordinates of a node. */
export const NodePosition = z.object({ x: z.number(), y: z.number() }).meta({ id: "FlowNodePosition" });
export type NodePosition = z.infer<typeof NodePosition>;

/** One node of a flow: `type` names an entry of the node-type catalog. */
export const FlowNode = z
  .looseObject({
    id: z.string().min(1).max(100),
    type: z.string().min(1).max(100),
    parameters: z.record(z.string(), z.unknown()).default({}),
    position: NodePosition.optional(),
    label: z.string().max(200).nullish(),
  })
  .meta({ id: "FlowNode" });
export type FlowNode = z.infer<typeof FlowNode>;

/** A connection from an output port of one node to an input port of another. */
export const FlowEdge = z
  .looseObject({
    id: z.string().min(1).max(100).optional(),
    source: z.string().min(1),
    source_port: z.string().min(1).nullish(),
    target: z.string().min(1),
    target_port: z.string().min(1).nullish(),
  })
  .meta({ id: "FlowEdge" });
export type FlowEdge = z.infer<typeof FlowEdge>;

/** Descriptive data about a flow, for listing and filtering in the editor. */
export const FlowMetadata = z
  .looseObject({
    tags: z.array(z.string().min(1).max(50)).max(20).optional(),
    author: z.string().max(100).nullish(),
    category: z.string().max(50).nullish(),
    /** Viewport of the editor when the flow was saved. */
    canvas: z.object({ x: z.number(), y: z.number(), zoom: z.number().positive() }).optional(),
  })
  .meta({ id: "FlowMetadata" });
export type FlowMetadata = z.infer<typeof FlowMetadata>;

const name = z.string().trim().min(1).max(200);
const description = z.string().max(2000).nullish();
const nodes = z.array(FlowNode).max(500);
const edges = z.array(FlowEdge).max(2000);

/** Body of a flow creation (interface FlowConfigCreate). */
const createShape = {
  name,
  description,
  nodes: nodes.default([]),
  edges: edges.default([]),
  metadata: FlowMetadata.optional(),
};
export const FlowConfigCreate = z.object(createShape).meta({ id: "FlowConfigCreate" });
export type FlowConfigCreate = z.infer<typeof FlowConfigCreate>;

/** Body of a flow update; absent fields keep their stored value (interface FlowConfigUpdate). */
export const FlowConfigUpdate = z
  .object({
    name: name.optional(),
    description,
    nodes: nodes.optional(),
    edges: edges.optional(),
    metadata: FlowMetadata.optional(),
  })
  .meta({ id: "FlowConfigUpdate" });
export type FlowConfigUpdate = z.infer<typeof FlowConfigUpdate>;

/** A stored flow (interface FlowConfig); `version` starts at 1 and grows with each update. */
export const FlowConfig = z
  .object({
    ...createShape,
    id: z.string(),
    created_at: z.string().optional(),
    updated_at: z.string().optional(),
    version: z.int().min(1).optional(),
  })
  .meta({ id: "FlowConfig" });
export type FlowConfig = z.infer<typeof FlowConfig>;
