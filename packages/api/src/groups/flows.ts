import { createRoute, z } from "@hono/zod-openapi";
import { Flows } from "@tp/core/flows/index";
import { FlowLibrary } from "@tp/core/flows/flow-library";
import { bearer, createGroup, errorResponse, errorResponses, json, jsonBody, requireAuth, type GroupServices } from "../http/group";

const FlowIdParam = z.object({ flow_id: z.string().min(1).max(64) });

const FlowDeleteResult = z.object({ success: z.boolean(), message: z.string(), id: z.string() }).meta({ id: "FlowDeleteResult" });

const NodeTypeList = z.object({ node_types: z.array(Flows.NodeTypeDefinition), total: z.int() }).meta({ id: "FlowNodeTypeList" });

const tags = ["flows"];
const owned = { auth: true, notFound: true } as const;
const conflictResponse = { 409: errorResponse("FLOW_CHANGED: updated or deleted concurrently; read it again and retry") };
const tooLargeResponse = { 413: errorResponse("FLOW_TOO_LARGE: the flow exceeds what one record can hold") };

/**
 * Flows saved from the editor. Each belongs to the user who created it; anyone else gets
 * 404 FLOW_NOT_FOUND. `node-types` is registered before `{flow_id}` so it is never read as an id.
 */
export function flowsGroup(services: GroupServices<"flows">) {
  const app = createGroup();
  app.use("/api/v1/flows", requireAuth(services));
  app.use("/api/v1/flows/*", requireAuth(services));
  const deps = services.flows;

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/flows/node-types",
      tags,
      summary: "The node-type catalog the editor draws from",
      security: bearer,
      responses: { 200: json(NodeTypeList, "Every node type with its ports and parameters"), ...errorResponses({ auth: true }) },
    }),
    (c) => {
      const nodeTypes = Flows.nodeTypes();
      return c.json({ node_types: nodeTypes, total: nodeTypes.length }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/flows",
      tags,
      summary: "The caller's flows, newest first",
      security: bearer,
      responses: { 200: json(z.array(Flows.FlowConfig), "Flows"), ...errorResponses({ auth: true }) },
    }),
    async (c) => {
      const flows = await FlowLibrary.list(deps, c.get("principal").user);
      return c.json(flows.map(FlowLibrary.toResponse), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/flows",
      tags,
      summary: "Save a new flow (version 1)",
      description: "The graph is checked for shape only, so drafts can be saved; POST /flows/{flow_id}/validate checks whether it can run.",
      security: bearer,
      request: jsonBody(Flows.FlowConfigCreate),
      responses: { 201: json(Flows.FlowConfig, "The new flow"), ...tooLargeResponse, ...errorResponses({ auth: true }) },
    }),
    async (c) => {
      const flow = await FlowLibrary.create(deps, c.get("principal").user, c.req.valid("json"));
      return c.json(FlowLibrary.toResponse(flow), 201);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/flows/{flow_id}",
      tags,
      summary: "Get a flow",
      security: bearer,
      request: { params: FlowIdParam },
      responses: { 200: json(Flows.FlowConfig, "The flow"), ...errorResponses(owned) },
    }),
    async (c) => {
      const flow = await FlowLibrary.get(deps, c.get("principal").user, c.req.valid("param").flow_id);
      return c.json(FlowLibrary.toResponse(flow), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "put",
      path: "/api/v1/flows/{flow_id}",
      tags,
      summary: "Update a flow; its version rises by one",
      description: "Fields left out keep their stored value; `description: null` clears the description.",
      security: bearer,
      request: { params: FlowIdParam, ...jsonBody(Flows.FlowConfigUpdate) },
      responses: {
        200: json(Flows.FlowConfig, "The updated flow"),
        ...conflictResponse,
        ...tooLargeResponse,
        ...errorResponses(owned),
      },
    }),
    async (c) => {
      const flow = await FlowLibrary.update(deps, c.get("principal").user, c.req.valid("param").flow_id, c.req.valid("json"), c.get("ifMatchVersion"));
      return c.json(FlowLibrary.toResponse(flow), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/api/v1/flows/{flow_id}",
      tags,
      summary: "Delete a flow",
      security: bearer,
      request: { params: FlowIdParam },
      responses: { 200: json(FlowDeleteResult, "Deleted"), ...errorResponses(owned) },
    }),
    async (c) => {
      const flow = await FlowLibrary.delete(deps, c.get("principal").user, c.req.valid("param").flow_id);
      return c.json({ success: true, message: `Flow ${flow.name} deleted`, id: flow.id }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/flows/{flow_id}/validate",
      tags,
      summary: "Check whether the stored flow can run",
      security: bearer,
      request: { params: FlowIdParam },
      responses: { 200: json(Flows.FlowValidation, "Errors, warnings, a summary and, when valid, the execution order"), ...errorResponses(owned) },
    }),
    async (c) => c.json(await FlowLibrary.validate(deps, c.get("principal").user, c.req.valid("param").flow_id), 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/flows/{flow_id}/duplicate",
      tags,
      summary: "Copy a flow under a new id, named as a copy, at version 1",
      security: bearer,
      request: { params: FlowIdParam },
      responses: { 201: json(Flows.FlowConfig, "The copy"), ...tooLargeResponse, ...errorResponses(owned) },
    }),
    async (c) => {
      const flow = await FlowLibrary.duplicate(deps, c.get("principal").user, c.req.valid("param").flow_id);
      return c.json(FlowLibrary.toResponse(flow), 201);
    },
  );

  return app;
}
