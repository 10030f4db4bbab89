import { createRoute, z } from "@hono/zod-openapi";
import { IndicatorMetadata, Indicators } from "@tp/core/indicators/index";
import { bearer, createGroup, errorResponses, json, requireAuth, type GroupServices } from "../http/group";

const IndicatorIdParam = z.object({ indicator_id: z.string().min(1).max(100) });

const tags = ["indicators"];

/** The indicator catalog: what each indicator computes, its parameters and its outputs. */
export function indicatorsGroup(services: GroupServices) {
  const app = createGroup();
  app.use("/api/v1/indicators", requireAuth(services));
  app.use("/api/v1/indicators/*", requireAuth(services));

  // The interface lists both spellings of the catalog path.
  for (const path of ["/api/v1/indicators/", "/api/v1/indicators"]) {
    app.openapi(
      createRoute({
        method: "get",
        path,
        tags,
        summary: "Every indicator",
        security: bearer,
        responses: { 200: json(z.array(IndicatorMetadata), "The catalog in presentation order"), ...errorResponses({ auth: true }) },
      }),
      (c) => c.json([...Indicators.catalog], 200),
    );
  }

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/indicators/{indicator_id}",
      tags,
      summary: "One indicator",
      security: bearer,
      request: { params: IndicatorIdParam },
      responses: {
        200: json(IndicatorMetadata, "The indicator"),
        ...errorResponses({ auth: true, notFound: true }),
      },
    }),
    (c) => c.json(Indicators.get(c.req.valid("param").indicator_id), 200),
  );

  return app;
}
