import { createRoute, z } from "@hono/zod-openapi";
import { Strategies } from "@tp/core/strategies/index";
import { bearer, createGroup, errorResponses, json, jsonBody, requireAuth, type GroupServices } from "../http/group";

const StrategyNameParam = z.object({ strategy_name: z.string().min(1).max(100) });
const StrategyIdParam = z.object({ strategy_id: z.string().min(1).max(100) });

const tags = ["strategies"];
const notFound = { auth: true, notFound: true } as const;

/**
 * The strategy catalog: metadata, parameters, templates, recommended risk and validation of
 * a configuration. Static paths are registered before `{strategy_name}` so that
 * `metadata/all` and `mtf/...` are never read as a strategy name.
 */
export function strategiesGroup(services: GroupServices) {
  const app = createGroup();
  app.use("/api/v1/strategies", requireAuth(services));
  app.use("/api/v1/strategies/*", requireAuth(services));

  // The interface writes the list with a trailing slash; both spellings answer the same.
  for (const path of ["/api/v1/strategies/", "/api/v1/strategies"]) {
    app.openapi(
      createRoute({
        method: "get",
        path,
        tags,
        summary: "Every strategy, summarised",
        security: bearer,
        responses: { 200: json(Strategies.StrategyList, "Strategies in catalog order"), ...errorResponses({ auth: true }) },
      }),
      (c) => c.json(Strategies.list(), 200),
    );
  }

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/strategies/metadata/all",
      tags,
      summary: "Full metadata of every strategy",
      security: bearer,
      responses: {
        200: json(Strategies.StrategyMetadataList, "Metadata of every strategy and their count"),
        ...errorResponses({ auth: true }),
      },
    }),
    (c) => c.json(Strategies.metadataAll(), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/strategies/mtf/metadata",
      tags,
      summary: "Multi-timeframe metadata, optionally of the strategies usable in one role",
      description:
        "`role=director` (or `executor`) lists the strategies of that role and the universal ones; `role=universal` only the universal ones; no role lists every strategy.",
      security: bearer,
      request: { query: Strategies.MtfMetadataQuery },
      responses: { 200: json(z.array(Strategies.MtfMetadata), "MTF metadata"), ...errorResponses({ auth: true }) },
    }),
    (c) => c.json(Strategies.mtfMetadata(c.req.valid("query").role), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/strategies/mtf/metadata/{strategy_id}",
      tags,
      summary: "Multi-timeframe metadata of one strategy",
      security: bearer,
      request: { params: StrategyIdParam },
      responses: { 200: json(Strategies.MtfMetadata, "MTF metadata"), ...errorResponses(notFound) },
    }),
    (c) => c.json(Strategies.mtfMetadataOne(c.req.valid("param").strategy_id), 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/strategies/validate",
      tags,
      summary: "Check a strategy configuration",
      description:
        "`config` is a parameter map or a filled-in template. Problems are reported in the answer (always 200), not refused; an unknown strategy is `valid: false` with error STRATEGY_NOT_FOUND.",
      security: bearer,
      request: jsonBody(Strategies.ValidationRequest),
      responses: { 200: json(Strategies.ValidationResult, "Errors, warnings and the normalised config when valid"), ...errorResponses({ auth: true }) },
    }),
    (c) => {
      const { strategy_name, config } = c.req.valid("json");
      return c.json(Strategies.validate(strategy_name, config), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/strategies/{strategy_name}",
      tags,
      summary: "Strategy details with the recommended risk configuration",
      security: bearer,
      request: { params: StrategyNameParam },
      responses: { 200: json(Strategies.StrategyDetails, "The strategy"), ...errorResponses(notFound) },
    }),
    (c) => c.json(Strategies.get(c.req.valid("param").strategy_name), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/strategies/{strategy_name}/risk-config",
      tags,
      summary: "Recommended risk configuration of a strategy",
      security: bearer,
      request: { params: StrategyNameParam },
      responses: { 200: json(Strategies.RecommendedRisk, "The preset it derives from and the configuration"), ...errorResponses(notFound) },
    }),
    (c) => c.json(Strategies.riskConfig(c.req.valid("param").strategy_name), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/strategies/{strategy_name}/parameters",
      tags,
      summary: "Parameter definitions of a strategy",
      security: bearer,
      request: { params: StrategyNameParam },
      responses: { 200: json(Strategies.ParameterList, "Definitions and defaults"), ...errorResponses(notFound) },
    }),
    (c) => c.json(Strategies.parameters(c.req.valid("param").strategy_name), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/strategies/{strategy_name}/template",
      tags,
      summary: "A configuration template with defaults filled in",
      description: "POST /strategies/validate accepts the template back as `config`.",
      security: bearer,
      request: { params: StrategyNameParam },
      responses: { 200: json(Strategies.Template, "The template"), ...errorResponses(notFound) },
    }),
    (c) => c.json(Strategies.template(c.req.valid("param").strategy_name), 200),
  );

  return app;
}
