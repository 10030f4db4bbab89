import { createRoute, z } from "@hono/zod-openapi";
import { ImportStatus, Imports, StockImportRequest, StockImportStatus } from "@tp/core/imports/index";
import { bearer, createGroup, errorResponse, errorResponses, json, jsonBody, requireAuth, type GroupServices } from "../http/group";

const TaskParam = z.object({ task_id: z.string().min(1).max(64) });
const StockImportResponse = z.object({ task_id: z.string(), message: z.string() }).meta({ id: "StockImportResponse" });
const CancelResult = z.object({ success: z.boolean(), message: z.string(), task_id: z.string(), status: ImportStatus }).meta({ id: "StockImportCancelResult" });
const tags = ["stock-import"];

/** Import tasks: queued work that pulls provider history into the candle store. */
export function stockImportGroup(services: GroupServices<"imports">) {
  const app = createGroup();
  app.use("/api/v1/stock-import/*", requireAuth(services));

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/stock-import/import",
      tags,
      summary: "Queue an import of a symbol's history (periods default to 1m, 5m, 1h, 1d)",
      description:
        "Dates are read in `timezone` (default: the exchange's zone). One import per symbol at a time: a second answers 409 IMPORT_ALREADY_RUNNING with `running_task_id`.",
      security: bearer,
      request: jsonBody(StockImportRequest),
      responses: {
        200: json(StockImportResponse, "Queued"),
        409: errorResponse("IMPORT_ALREADY_RUNNING"),
        ...errorResponses({ auth: true, notFound: ["SYMBOL_NOT_FOUND"] }),
      },
    }),
    async (c) => {
      const task = await Imports.start(services.imports, c.get("principal").user, c.req.valid("json"));
      return c.json({ task_id: task.task_id, message: task.message }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/stock-import/import/{task_id}/status",
      tags,
      summary: "Status, progress and counts of an import task",
      security: bearer,
      request: { params: TaskParam },
      responses: { 200: json(StockImportStatus, "The task"), ...errorResponses({ auth: true, notFound: true }) },
    }),
    async (c) => {
      const task = await Imports.get(services.imports, c.get("principal").user, c.req.valid("param").task_id);
      return c.json(Imports.view(task), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/api/v1/stock-import/import/{task_id}",
      tags,
      summary: "Cancel an import: it stops at its next chunk and keeps what it wrote",
      security: bearer,
      request: { params: TaskParam },
      responses: {
        200: json(CancelResult, "Cancelled or cancelling"),
        409: errorResponse("IMPORT_NOT_ACTIVE: the task already ended"),
        ...errorResponses({ auth: true, notFound: true }),
      },
    }),
    async (c) => {
      const task = await Imports.cancel(services.imports, c.get("principal").user, c.req.valid("param").task_id);
      return c.json({ success: true, message: task.message, task_id: task.task_id, status: task.status }, 200);
    },
  );

  return app;
}
