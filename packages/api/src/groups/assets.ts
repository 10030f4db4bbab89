import { createRoute, z } from "@hono/zod-openapi";
import {
  AssetOverview,
  AssetSync,
  Assets,
  Overview,
  OverviewQuery,
  Positions,
  SimulatedAccount,
  SimulatedAssetCreate,
  SimulatedAssetResponse,
  SimulatedAssetUpdate,
  SimulatedPositionInput,
  SimulatedPositionResponse,
  SimulatedPositionUpdate,
  SyncRequest,
  SyncResponse,
  UserAssetCreate,
  UserAssetResponse,
  UserAssetUpdate,
  UserPositionCreate,
  UserPositionResponse,
  UserPositionUpdate,
} from "@tp/core/assets/index";
import type { Actor } from "@tp/core/users";
import { onError, notFoundHandler } from "../http/errors";
import { bearer, createGroup, errorResponses, json, jsonBody, requireAuth, type Group, type GroupServices } from "../http/group";

const OwnerQuery = z.object({
  user_id: z.string().trim().min(1).max(64).optional().describe("Administrators only: act on another user's portfolio"),
});
const PositionIdParam = z.object({ position_id: z.string().min(1).max(160).describe("A position's id; a simulated holding's is `<user_id>:<symbol>`") });

export const AssetDeleteResult = z.object({ success: z.boolean(), message: z.string(), id: z.string() }).meta({ id: "AssetDeleteResult" });

const tags = ["assets"];
const errors = errorResponses({ auth: true, notFound: true });
const conflict = { 409: json(z.any(), "ASSET_ALREADY_EXISTS") };
/** The simulated account refuses a change that would take what open orders or running sessions hold (docs/accounts.md). */
const heldConflict = {
  409: json(z.any(), "CASH_HELD or SHARES_HELD: open orders or running sessions hold more than the change would leave; the body names what is held"),
};

/**
 * The interface spells the account paths with a trailing slash (`/api/v1/assets/`); clients
 * call both forms, and API Gateway routes both to `/api/v1/assets`. The routes are declared
 * without the slash; the slashed form is dispatched to them here.
 */
function alsoWithTrailingSlash(app: Group, path: string) {
  app.all(`${path}/`, async (c) => {
    const url = new URL(c.req.url);
    url.pathname = path;
    const hasBody = c.req.method !== "GET" && c.req.method !== "HEAD";
    return app.fetch(new Request(url, { method: c.req.method, headers: c.req.raw.headers, body: hasBody ? await c.req.arrayBuffer() : undefined }), c.env);
  });
}

/** Real and simulated cash accounts and positions of the caller (or, for an administrator, of `user_id`), their overviews and sync. */
export function assetsGroup(services: GroupServices<"assets">) {
  const app = createGroup();
  // The slashed paths re-enter this app, so it maps its own errors the one shared way.
  app.onError(onError);
  app.notFound(notFoundHandler);
  app.use("/api/v1/assets", requireAuth(services));
  app.use("/api/v1/assets/*", requireAuth(services));
  alsoWithTrailingSlash(app, "/api/v1/assets");
  alsoWithTrailingSlash(app, "/api/v1/assets/simulated");
  const deps = services.assets;

  // ---- the real cash account ----

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/assets",
      tags,
      summary: "The cash account",
      security: bearer,
      request: { query: OwnerQuery },
      responses: { 200: json(UserAssetResponse, "The account"), ...errors },
    }),
    async (c) => c.json(Assets.toResponse(await Assets.get(deps, c.get("principal").user, "real", c.req.valid("query").user_id)), 200),
  );

  app.openapi(
    createRoute({
      method: "put",
      path: "/api/v1/assets",
      tags,
      summary: "Update the cash account",
      security: bearer,
      request: { query: OwnerQuery, ...jsonBody(UserAssetUpdate) },
      responses: { 200: json(UserAssetResponse, "The updated account"), ...errors },
    }),
    async (c) => {
      const asset = await Assets.update(deps, c.get("principal").user, c.req.valid("json"), c.req.valid("query").user_id);
      return c.json(Assets.toResponse(asset), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/assets",
      tags,
      summary: "Create the cash account (one per user)",
      security: bearer,
      request: jsonBody(UserAssetCreate),
      responses: { 201: json(UserAssetResponse, "The new account"), ...conflict, ...errors },
    }),
    async (c) => c.json(Assets.toResponse(await Assets.create(deps, c.get("principal").user, "real", c.req.valid("json"))), 201),
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/api/v1/assets",
      tags,
      summary: "Delete the cash account (positions stay)",
      security: bearer,
      request: { query: OwnerQuery },
      responses: { 200: json(AssetDeleteResult, "Deleted"), ...errors },
    }),
    async (c) => {
      const asset = await Assets.delete(deps, c.get("principal").user, c.req.valid("query").user_id);
      return c.json({ success: true, message: "Asset account deleted", id: asset.id }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/assets/overview",
      tags,
      summary: "Cash, positions at current prices, totals and unrealised P&L, per currency and in one base currency",
      security: bearer,
      request: { query: OverviewQuery },
      responses: { 200: json(AssetOverview, "The valued portfolio"), ...errors },
    }),
    async (c) => c.json(await Overview.of(deps, c.get("principal").user, "real", c.req.valid("query")), 200),
  );

  // ---- the simulated cash account ----

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/assets/simulated",
      tags,
      summary: "The simulated cash account",
      security: bearer,
      request: { query: OwnerQuery },
      responses: { 200: json(SimulatedAssetResponse, "The simulated account"), ...errors },
    }),
    async (c) => {
      const { owner, view } = await SimulatedAccount.get(deps, c.get("principal").user, c.req.valid("query").user_id);
      return c.json(SimulatedAccount.toResponse(owner, view), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "put",
      path: "/api/v1/assets/simulated",
      tags,
      summary: "Set the cash of one currency of the simulated account: a recorded deposit or withdrawal (creates the account when absent)",
      security: bearer,
      request: { query: OwnerQuery, ...jsonBody(SimulatedAssetUpdate) },
      responses: { 200: json(SimulatedAssetResponse, "The simulated account"), ...heldConflict, ...errors },
    }),
    async (c) => {
      const { owner, view } = await SimulatedAccount.setCash(deps, c.get("principal").user, c.req.valid("json"), c.req.valid("query").user_id);
      return c.json(SimulatedAccount.toResponse(owner, view), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/assets/simulated",
      tags,
      summary: "Create the simulated cash account (one per user)",
      security: bearer,
      request: jsonBody(SimulatedAssetCreate),
      responses: { 201: json(SimulatedAssetResponse, "The new simulated account"), ...conflict, ...errors },
    }),
    async (c) => {
      const { owner, view } = await SimulatedAccount.create(deps, c.get("principal").user, c.req.valid("json"));
      return c.json(SimulatedAccount.toResponse(owner, view), 201);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/assets/simulated/overview",
      tags,
      summary: "The simulated portfolio valued (same shape and query as /assets/overview)",
      security: bearer,
      request: { query: OverviewQuery },
      responses: { 200: json(AssetOverview, "The valued simulated portfolio"), ...errors },
    }),
    async (c) => c.json(await SimulatedAccount.overview(deps, c.get("principal").user, c.req.valid("query")), 200),
  );

  // ---- sync ----

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/assets/sync",
      tags,
      summary: "Replace the real cash and positions with what a broker's account reports (longport, paper or simulated)",
      security: bearer,
      request: jsonBody(SyncRequest),
      responses: { 200: json(SyncResponse, "Outcome; `success: false` when the broker could not be read"), ...errors },
    }),
    async (c) => c.json(await AssetSync.fromBroker(deps, c.get("principal").user, c.req.valid("json")), 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/assets/sync-to-simulated",
      tags,
      summary: "Copy the real cash account and stock positions into the simulated account (one recorded adjustment each)",
      security: bearer,
      request: { query: OwnerQuery },
      responses: { 200: json(SyncResponse, "Outcome"), ...heldConflict, ...errors },
    }),
    async (c) => c.json(await AssetSync.toSimulated(deps, c.get("principal").user, c.req.valid("query").user_id), 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/assets/sync-from-provider",
      tags,
      summary: "Sync the caller's real assets from their account at the selected provider (their paper account, or LongPort's)",
      security: bearer,
      responses: { 200: json(SyncResponse, "Outcome; `success: false` when the provider's account could not be read"), ...errors },
    }),
    async (c) => c.json(await AssetSync.fromProvider(deps, c.get("principal").user), 200),
  );

  // ---- positions ----

  for (const mode of ["real", "simulated"] as const) {
    const base = mode === "real" ? "/api/v1/assets/positions" : "/api/v1/assets/simulated/positions";
    const Response = mode === "real" ? UserPositionResponse : SimulatedPositionResponse;
    const view = mode === "real" ? Positions.toResponse : SimulatedAccount.positionResponse;
    const label = mode === "real" ? "position" : "simulated position";
    const list = (actor: Actor, userId?: string) =>
      mode === "real" ? Positions.list(deps, actor, mode, userId) : SimulatedAccount.positions(deps, actor, userId);
    const remove = (actor: Actor, id: string) => (mode === "real" ? Positions.delete(deps, actor, mode, id) : SimulatedAccount.deletePosition(deps, actor, id));

    app.openapi(
      createRoute({
        method: "get",
        path: base,
        tags,
        summary: `The ${label}s, oldest first`,
        security: bearer,
        request: { query: OwnerQuery },
        responses: { 200: json(z.array(Response), `The ${label}s`), ...errors },
      }),
      async (c) => {
        const positions = await list(c.get("principal").user, c.req.valid("query").user_id);
        return c.json(positions.map(view), 200);
      },
    );

    app.openapi(
      createRoute({
        method: "delete",
        path: `${base}/{position_id}`,
        tags,
        summary: `Delete a ${label}`,
        security: bearer,
        request: { params: PositionIdParam },
        responses: { 204: { description: "Deleted" }, ...(mode === "simulated" ? heldConflict : {}), ...errors },
      }),
      async (c) => {
        await remove(c.get("principal").user, c.req.valid("param").position_id);
        return c.body(null, 204);
      },
    );
  }

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/assets/positions",
      tags,
      summary: "Add a position",
      security: bearer,
      request: jsonBody(UserPositionCreate),
      responses: { 201: json(UserPositionResponse, "The new position"), ...errors },
    }),
    async (c) => c.json(Positions.toResponse(await Positions.create(deps, c.get("principal").user, c.req.valid("json"))), 201),
  );

  app.openapi(
    createRoute({
      method: "put",
      path: "/api/v1/assets/positions/{position_id}",
      tags,
      summary: "Update a position",
      security: bearer,
      request: { params: PositionIdParam, ...jsonBody(UserPositionUpdate) },
      responses: { 200: json(UserPositionResponse, "The updated position"), ...errors },
    }),
    async (c) => {
      const position = await Positions.update(deps, c.get("principal").user, "real", c.req.valid("param").position_id, c.req.valid("json"));
      return c.json(Positions.toResponse(position), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/assets/simulated/positions",
      tags,
      summary: "Set a holding of the simulated account by hand (a recorded adjustment; a symbol held already takes the new figures)",
      security: bearer,
      request: { query: OwnerQuery, ...jsonBody(SimulatedPositionInput) },
      responses: { 201: json(SimulatedPositionResponse, "The simulated position"), ...heldConflict, ...errors },
    }),
    async (c) => {
      const position = await SimulatedAccount.addPosition(deps, c.get("principal").user, c.req.valid("json"), c.req.valid("query").user_id);
      return c.json(SimulatedAccount.positionResponse(position), 201);
    },
  );

  app.openapi(
    createRoute({
      method: "put",
      path: "/api/v1/assets/simulated/positions/{position_id}",
      tags,
      summary: "Change a holding of the simulated account by hand (a recorded adjustment)",
      security: bearer,
      request: { params: PositionIdParam, ...jsonBody(SimulatedPositionUpdate) },
      responses: { 200: json(SimulatedPositionResponse, "The updated simulated position"), ...heldConflict, ...errors },
    }),
    async (c) => {
      const position = await SimulatedAccount.updatePosition(deps, c.get("principal").user, c.req.valid("param").position_id, c.req.valid("json"));
      return c.json(SimulatedAccount.positionResponse(position), 200);
    },
  );

  return app;
}
