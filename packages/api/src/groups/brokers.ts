import { createRoute, z } from "@hono/zod-openapi";
import { BrokerCreate, BrokerResponse, BrokerUpdate, Brokers, FeeCalculateRequest, TestResponse } from "@tp/core/brokers/index";
import { FeeCalculateResponse, FeeConfig, FeeConfigInput } from "@tp/core/fees/index";
import { bearer, createGroup, errorResponse, errorResponses, json, jsonBody, requireAuth, type GroupServices } from "../http/group";
import { versionTag } from "../http/etag";

const BrokerIdParam = z.object({ broker_id: z.string().min(1).max(64) });
const ListQuery = z.object({
  user_id: z.string().trim().min(1).max(64).optional().describe("Administrators only: list another user's brokers"),
});

export const BrokerDeleteResult = z.object({ success: z.boolean(), message: z.string(), id: z.string() }).meta({ id: "BrokerDeleteResult" });

const tags = ["brokers"];
const conflictResponse = (description: string) => ({ 409: errorResponse(description) });

/**
 * Brokers belong to a user; only the owner or an administrator sees or changes one. Configs
 * are sealed at rest and masked in every answer. Fee configuration and the fee calculator
 * hang off each broker.
 */
export function brokersGroup(services: GroupServices<"brokers">) {
  const app = createGroup();
  app.use("/api/v1/brokers", requireAuth(services));
  app.use("/api/v1/brokers/*", requireAuth(services));
  const deps = services.brokers;

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/brokers",
      tags,
      summary: "The caller's brokers, oldest first",
      security: bearer,
      request: { query: ListQuery },
      responses: { 200: json(z.array(BrokerResponse), "Brokers with masked configs"), ...errorResponses({ auth: true }) },
    }),
    async (c) => {
      const brokers = await Brokers.list(deps, c.get("principal").user, c.req.valid("query").user_id);
      return c.json(
        brokers.map((broker) => Brokers.toResponse(deps, broker)),
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/brokers",
      tags,
      summary: "Create a broker (for yourself; an administrator for anyone)",
      description:
        "Required config fields depend on `type`: longport needs app_key, app_secret, access_token; futu needs host and port. The config is stored encrypted and answered masked.",
      security: bearer,
      request: jsonBody(BrokerCreate),
      responses: { 201: json(BrokerResponse, "The new broker"), ...errorResponses({ auth: true, notFound: ["USER_NOT_FOUND"] }) },
    }),
    async (c) => {
      const broker = await Brokers.create(deps, c.get("principal").user, c.req.valid("json"));
      return c.json(Brokers.toResponse(deps, broker), 201);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/brokers/{broker_id}",
      tags,
      summary: "Get a broker",
      security: bearer,
      request: { params: BrokerIdParam },
      responses: { 200: json(BrokerResponse, "The broker, config masked"), ...errorResponses({ auth: true, notFound: true }) },
    }),
    async (c) => {
      const broker = await Brokers.get(deps, c.get("principal").user, c.req.valid("param").broker_id);
      return c.json(Brokers.toResponse(deps, broker), 200, { ETag: versionTag(broker.version) });
    },
  );

  app.openapi(
    createRoute({
      method: "put",
      path: "/api/v1/brokers/{broker_id}",
      tags,
      summary: "Update a broker",
      description:
        "Config fields given replace the stored ones, `null` removes one, omitted fields stay. A secret sent back masked, exactly as answered, keeps the stored secret.",
      security: bearer,
      request: { params: BrokerIdParam, ...jsonBody(BrokerUpdate) },
      responses: {
        200: json(BrokerResponse, "The updated broker"),
        ...conflictResponse("BROKER_CHANGED: updated concurrently"),
        ...errorResponses({ auth: true, notFound: true }),
      },
    }),
    async (c) => {
      const broker = await Brokers.update(deps, c.get("principal").user, c.req.valid("param").broker_id, c.req.valid("json"), c.get("ifMatchVersion"));
      return c.json(Brokers.toResponse(deps, broker), 200, { ETag: versionTag(broker.version) });
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/api/v1/brokers/{broker_id}",
      tags,
      summary: "Delete a broker and its fee configuration",
      security: bearer,
      request: { params: BrokerIdParam },
      responses: {
        200: json(BrokerDeleteResult, "Deleted"),
        ...conflictResponse("BROKER_IN_USE: data sources read from it (`data_source_ids`)"),
        ...errorResponses({ auth: true, notFound: true }),
      },
    }),
    async (c) => {
      const broker = await Brokers.delete(deps, c.get("principal").user, c.req.valid("param").broker_id);
      return c.json({ success: true, message: `Broker ${broker.name} deleted`, id: broker.id }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/brokers/{broker_id}/test",
      tags,
      summary: "Test the broker's connection",
      description:
        "longport: opens a LongPort quote connection with the broker's credentials; futu: reaches the OpenD gateway; paper/simulated: checks the configuration. A failure answers `success: false` and marks an active broker `error`; a success returns an `error` broker to `active`.",
      security: bearer,
      request: { params: BrokerIdParam },
      responses: { 200: json(TestResponse, "Outcome of the test"), ...errorResponses({ auth: true, notFound: true }) },
    }),
    async (c) => {
      const result = await Brokers.test(deps, c.get("principal").user, c.req.valid("param").broker_id);
      return c.json(result, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/brokers/{broker_id}/fee-config",
      tags,
      summary: "The broker's effective fee configuration",
      security: bearer,
      request: { params: BrokerIdParam },
      responses: { 200: json(FeeConfig, "Overrides laid over the broker type's defaults"), ...errorResponses({ auth: true, notFound: true }) },
    }),
    async (c) => {
      const config = await Brokers.feeConfig(deps, c.get("principal").user, c.req.valid("param").broker_id);
      return c.json(config, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "put",
      path: "/api/v1/brokers/{broker_id}/fee-config",
      tags,
      summary: "Replace the broker's fee configuration",
      description: "Fields left out return to the broker type's defaults; only values that differ from them are stored.",
      security: bearer,
      request: { params: BrokerIdParam, ...jsonBody(FeeConfigInput) },
      responses: { 200: json(FeeConfig, "The effective configuration"), ...errorResponses({ auth: true, notFound: true }) },
    }),
    async (c) => {
      const config = await Brokers.setFeeConfig(deps, c.get("principal").user, c.req.valid("param").broker_id, c.req.valid("json"));
      return c.json(config, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/brokers/{broker_id}/fee-config/calculate",
      tags,
      summary: "Estimate the fees of one order through this broker, at today's trade date",
      security: bearer,
      request: { params: BrokerIdParam, ...jsonBody(FeeCalculateRequest) },
      responses: { 200: json(FeeCalculateResponse, "Every charge, the trade amount and the total cost"), ...errorResponses({ auth: true, notFound: true }) },
    }),
    async (c) => {
      const result = await Brokers.calculateFees(deps, c.get("principal").user, c.req.valid("param").broker_id, c.req.valid("json"));
      return c.json(result, 200);
    },
  );

  return app;
}
