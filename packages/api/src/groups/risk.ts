import { createRoute, z } from "@hono/zod-openapi";
import { Risk, RiskConfig } from "@tp/core/risk/index";
import { bearer, createGroup, errorResponses, json, jsonBody, requireAuth, type GroupServices } from "../http/group";

const PresetNameParam = z.object({ preset_name: z.string().min(1).max(100) });

const tags = ["risk"];

/**
 * Risk presets and validation of a risk configuration. The `/api/v1/risk/sessions/...`
 * endpoints belong to trading sessions, so this group claims only its own paths.
 */
export function riskGroup(services: GroupServices) {
  const app = createGroup();
  for (const path of [
    "/api/v1/risk/presets",
    "/api/v1/risk/presets/*",
    "/api/v1/risk/default",
    "/api/v1/risk/conservative",
    "/api/v1/risk/aggressive",
    "/api/v1/risk/validate",
  ]) {
    app.use(path, requireAuth(services));
  }

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/risk/presets",
      tags,
      summary: "Every built-in risk preset",
      security: bearer,
      responses: { 200: json(Risk.PresetList, "Presets, default first"), ...errorResponses({ auth: true }) },
    }),
    (c) => c.json(Risk.presets(), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/risk/presets/{preset_name}",
      tags,
      summary: "One risk preset",
      security: bearer,
      request: { params: PresetNameParam },
      responses: { 200: json(Risk.Preset, "The preset"), ...errorResponses({ auth: true, notFound: true }) },
    }),
    (c) => c.json(Risk.preset(c.req.valid("param").preset_name), 200),
  );

  // The three named configurations answer the bare RiskConfig of their preset.
  for (const name of ["default", "conservative", "aggressive"] as const) {
    app.openapi(
      createRoute({
        method: "get",
        path: `/api/v1/risk/${name}`,
        tags,
        summary: `The ${name} risk configuration`,
        security: bearer,
        responses: { 200: json(RiskConfig, `The ${name} preset's configuration`), ...errorResponses({ auth: true }) },
      }),
      (c) => c.json(Risk.preset(name).config, 200),
    );
  }

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/risk/validate",
      tags,
      summary: "Check a (possibly partial) risk configuration",
      description:
        "Missing fields take the default preset's values; unknown fields are errors. Problems are reported in the answer (always 200), not refused; `config` is the full normalised configuration when valid.",
      security: bearer,
      request: jsonBody(Risk.ValidationRequest),
      responses: { 200: json(Risk.ValidationResult, "Errors, warnings and the normalised config when valid"), ...errorResponses({ auth: true }) },
    }),
    (c) => c.json(Risk.validate(c.req.valid("json").config), 200),
  );

  return app;
}
