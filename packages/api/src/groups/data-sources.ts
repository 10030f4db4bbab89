import { createRoute, z } from "@hono/zod-openapi";
import { TestResponse } from "@tp/core/brokers/index";
import { DataSource, DataSourceCreate, DataSourceUpdate, DataSources } from "@tp/core/data-sources/index";
import { bearer, createGroup, errorResponses, json, jsonBody, requireAdmin, requireAuth, type GroupServices } from "../http/group";

const DataSourceIdParam = z.object({ data_source_id: z.string().min(1).max(64) });

export const DataSourceDeleteResult = z.object({ success: z.boolean(), message: z.string(), id: z.string() }).meta({ id: "DataSourceDeleteResult" });

const tags = ["data-sources"];

/** Data sources: any signed-in user reads and tests them; only administrators create, change or delete them. */
export function dataSourcesGroup(services: GroupServices<"dataSources">) {
  const app = createGroup();
  app.use("/api/v1/data-sources", requireAuth(services));
  app.use("/api/v1/data-sources/*", requireAuth(services));
  const deps = services.dataSources;

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/data-sources",
      tags,
      summary: "Every data source, by priority (0 first) then name",
      security: bearer,
      responses: { 200: json(z.array(DataSource), "Data sources in order"), ...errorResponses({ auth: true }) },
    }),
    async (c) => c.json(await DataSources.list(deps), 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/data-sources",
      tags,
      summary: "Create a data source (administrator only)",
      description: "`broker_id` must name an existing broker (422 at body.broker_id otherwise).",
      security: bearer,
      middleware: [requireAdmin],
      request: jsonBody(DataSourceCreate),
      responses: { 201: json(DataSource, "The new data source"), ...errorResponses({ auth: true }) },
    }),
    async (c) => c.json(await DataSources.create(deps, c.get("principal").user, c.req.valid("json")), 201),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/data-sources/{data_source_id}",
      tags,
      summary: "Get a data source",
      security: bearer,
      request: { params: DataSourceIdParam },
      responses: { 200: json(DataSource, "The data source"), ...errorResponses({ auth: true, notFound: true }) },
    }),
    async (c) => c.json(await DataSources.get(deps, c.req.valid("param").data_source_id), 200),
  );

  app.openapi(
    createRoute({
      method: "put",
      path: "/api/v1/data-sources/{data_source_id}",
      tags,
      summary: "Update a data source (administrator only)",
      security: bearer,
      middleware: [requireAdmin],
      request: { params: DataSourceIdParam, ...jsonBody(DataSourceUpdate) },
      responses: { 200: json(DataSource, "The updated data source"), ...errorResponses({ auth: true, notFound: true }) },
    }),
    async (c) => c.json(await DataSources.update(deps, c.get("principal").user, c.req.valid("param").data_source_id, c.req.valid("json")), 200),
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/api/v1/data-sources/{data_source_id}",
      tags,
      summary: "Delete a data source (administrator only)",
      security: bearer,
      middleware: [requireAdmin],
      request: { params: DataSourceIdParam },
      responses: { 200: json(DataSourceDeleteResult, "Deleted"), ...errorResponses({ auth: true, notFound: true }) },
    }),
    async (c) => {
      const source = await DataSources.delete(deps, c.get("principal").user, c.req.valid("param").data_source_id);
      return c.json({ success: true, message: `Data source ${source.name} deleted`, id: source.id }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/data-sources/{data_source_id}/test",
      tags,
      summary: "Test the connection of the data source's broker",
      description: "A failure answers `success: false` and marks an active data source (and its broker) `error`.",
      security: bearer,
      request: { params: DataSourceIdParam },
      responses: { 200: json(TestResponse, "Outcome of the test"), ...errorResponses({ auth: true, notFound: true }) },
    }),
    async (c) => c.json(await DataSources.test(deps, c.req.valid("param").data_source_id), 200),
  );

  return app;
}
