import { createRoute, z } from "@hono/zod-openapi";
import { ApiKeyCommands, ApiKeyCreate, ApiKeyCreated, ApiKeyList, ApiKeyResponse } from "@tp/core/api-key-commands";
import { bearer, createGroup, errorResponse, errorResponses, json, jsonBody, requireAuth, type GroupServices } from "../http/group";

const KeyIdParam = z.object({ key_id: z.string().min(1).max(64) });
const ListQuery = z.object({ user_id: z.string().min(1).max(64).optional().describe("Administrators only: another user's keys") });
const tags = ["api-keys"];
const keysOnly =
  "ACCESS_DENIED: not your key, the admin scope asked for by a non-administrator, or the request came with an API key (keys are managed with a sign-in token)";

/** API keys for bots (docs/security.md "API keys"): create (the key shown once), list, revoke. */
export function apiKeysGroup(services: GroupServices<"apiKeys">) {
  const app = createGroup();
  for (const path of ["/api/v1/auth/api-keys", "/api/v1/auth/api-keys/*"]) app.use(path, requireAuth(services));

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/auth/api-keys",
      tags,
      summary: "Create an API key (the key is in this answer only)",
      description:
        "Scopes: `read` (GET requests and the POSTs that only read), `trade` (every other command: orders, sessions, channels, risk, settings...), `backtest` (backtests and sweeps), `admin` (administrators only: everything). `session_ids` limits the key to those sessions (403 on others). The key expires at `expires_at` or after `expires_in_days` (default 90, at most 365); the table keeps its SHA-256 only.",
      security: bearer,
      request: jsonBody(ApiKeyCreate),
      responses: {
        201: json(ApiKeyCreated, "The key, shown this once"),
        409: errorResponse("TOO_MANY_API_KEYS: a user holds at most 50 keys"),
        ...errorResponses({ auth: true }),
        403: errorResponse(keysOnly),
      },
    }),
    async (c) => c.json(await ApiKeyCommands.create(services.apiKeys, c.get("principal").user, c.req.valid("json")), 201),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/auth/api-keys",
      tags,
      summary: "The caller's API keys, newest first (never their secrets)",
      security: bearer,
      request: { query: ListQuery },
      responses: { 200: json(ApiKeyList, "The keys"), ...errorResponses({ auth: true }), 403: errorResponse(keysOnly) },
    }),
    async (c) => {
      const items = await ApiKeyCommands.list(services.apiKeys, c.get("principal").user, c.req.valid("query").user_id);
      return c.json({ items, total: items.length }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/api/v1/auth/api-keys/{key_id}",
      tags,
      summary: "Revoke an API key: refused at once on this instance, within AUTH_RECHECK_MS on others",
      security: bearer,
      request: { params: KeyIdParam },
      responses: {
        200: json(ApiKeyResponse, "The key, revoked"),
        ...errorResponses({ auth: true, notFound: ["API_KEY_NOT_FOUND"] }),
        403: errorResponse(keysOnly),
      },
    }),
    async (c) => {
      const revoked = await ApiKeyCommands.revoke(services.apiKeys, c.get("principal").user, c.req.valid("param").key_id);
      services.principals.revokeKeyLocally(revoked.id);
      return c.json(revoked, 200);
    },
  );

  return app;
}
