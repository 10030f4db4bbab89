import { createRoute, z } from "@hono/zod-openapi";
import { ChannelPresets } from "@tp/core/channel-presets/index";
import { bearer, createGroup, errorResponses, json, jsonBody, requireAuth, type GroupServices } from "../http/group";

const PresetIdParam = z.object({ preset_id: z.string().min(1).max(100) });

const tags = ["channel-presets"];

/** Built-in multi-channel configurations and validation of a channel list. */
export function channelPresetsGroup(services: GroupServices) {
  const app = createGroup();
  app.use("/api/v1/channel-presets/*", requireAuth(services));

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/channel-presets/presets",
      tags,
      summary: "The built-in channel presets, summarised",
      security: bearer,
      responses: { 200: json(ChannelPresets.PresetList, "PresetListResponse"), ...errorResponses({ auth: true }) },
    }),
    (c) => c.json(ChannelPresets.list(), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/channel-presets/presets/{preset_id}",
      tags,
      summary: "A preset's stored text, comments included",
      description:
        "Answered as `text/plain; charset=utf-8` exactly as stored: the text is JSON with `//` and `/* */` comments and trailing commas, which `JSON.parse` rejects, so it is not labelled application/json.",
      security: bearer,
      request: { params: PresetIdParam },
      responses: {
        200: { description: "JSON with comments", content: { "text/plain": { schema: z.string() } } },
        ...errorResponses({ auth: true, notFound: true }),
      },
    }),
    (c) => c.text(ChannelPresets.raw(c.req.valid("param").preset_id), 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/channel-presets/validate",
      tags,
      summary: "Check a multi-channel configuration",
      description: "Channels are taken as they come: their problems are reported in the answer (always 200), not refused with a 422.",
      security: bearer,
      request: jsonBody(ChannelPresets.ValidationRequest),
      responses: { 200: json(ChannelPresets.ValidationResult, "ConfigValidationResponse"), ...errorResponses({ auth: true }) },
    }),
    (c) => c.json(ChannelPresets.validate(c.req.valid("json").channels), 200),
  );

  return app;
}
