import { createRoute, z } from "@hono/zod-openapi";
import {
  DeliveryPage,
  DeliveryQuery,
  TestDeliveryQueued,
  WebhookCreate,
  WebhookCreated,
  WebhookList,
  WebhookResponse,
  WebhookUpdate,
  Webhooks,
} from "@tp/core/webhooks/index";
import { bearer, createGroup, errorResponse, errorResponses, json, jsonBody, requireAuth, type GroupServices } from "../http/group";

const WebhookIdParam = z.object({ webhook_id: z.string().min(1).max(64) });
const WebhookDeleted = z.object({ success: z.boolean(), id: z.string() }).meta({ id: "WebhookDeleted" });
const tags = ["webhooks"];
const notFound = ["WEBHOOK_NOT_FOUND"];
const destinations =
  "The URL must be http or https, without a user name or password, and reach an allowed destination: the broker tests' egress rules (no loopback, private, link-local, shared or reserved address unless an administrator allowed the host in the broker network settings or BROKER_ALLOWED_HOSTS), answered 422 `destination_refused` at `body.url`; the rules are applied again at every delivery.";

/** Users' webhooks (docs/security.md "Webhooks"): register, list, change, delete, rotate the secret, test, and read the deliveries. */
export function webhooksGroup(services: GroupServices<"webhooks">) {
  const app = createGroup();
  for (const path of ["/api/v1/webhooks", "/api/v1/webhooks/*"]) app.use(path, requireAuth(services));
  const deps = services.webhooks;

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/webhooks",
      tags,
      summary: "Register a webhook (its signing secret is in this answer only)",
      description: `Deliveries of the subscribed \`event_kinds\` are POSTed to \`url\` in \`format\` (json, slack or telegram: docs/security.md has the bodies), signed: \`X-TP-Signature: v1=<hex HMAC-SHA256 of "<X-TP-Timestamp>.<body>" with the secret>\`, and retried after 1, 4, 16 and 64 s on a timeout, a connection failure, 5xx, 408 or 429. ${destinations} A user holds at most 20 webhooks.`,
      security: bearer,
      request: jsonBody(WebhookCreate),
      responses: {
        201: json(WebhookCreated, "The webhook and its secret, shown this once"),
        409: errorResponse("TOO_MANY_WEBHOOKS: a user holds at most 20 webhooks"),
        ...errorResponses({ auth: true }),
      },
    }),
    async (c) => c.json(await Webhooks.create(deps, c.get("principal").user, c.req.valid("json")), 201),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/webhooks",
      tags,
      summary: "The caller's webhooks, newest first (never their secrets; URLs shortened)",
      security: bearer,
      responses: { 200: json(WebhookList, "The webhooks"), ...errorResponses({ auth: true }) },
    }),
    async (c) => {
      const items = await Webhooks.list(deps, c.get("principal").user);
      return c.json({ items, total: items.length }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/webhooks/{webhook_id}",
      tags,
      summary: "One of the caller's webhooks",
      security: bearer,
      request: { params: WebhookIdParam },
      responses: { 200: json(WebhookResponse, "The webhook"), ...errorResponses({ auth: true, notFound }) },
    }),
    async (c) => c.json(Webhooks.toResponse(await Webhooks.get(deps, c.get("principal").user, c.req.valid("param").webhook_id)), 200),
  );

  app.openapi(
    createRoute({
      method: "put",
      path: "/api/v1/webhooks/{webhook_id}",
      tags,
      summary: "Change a webhook: the fields sent (enable or disable it with `enabled`)",
      description: `${destinations} A change reaches the notifications of other processes (the session worker) within 30 s.`,
      security: bearer,
      request: { params: WebhookIdParam, ...jsonBody(WebhookUpdate) },
      responses: {
        200: json(WebhookResponse, "The webhook as changed"),
        409: errorResponse("WEBHOOK_CHANGED: another request changed it meanwhile; read it again"),
        ...errorResponses({ auth: true, notFound }),
      },
    }),
    async (c) => c.json(await Webhooks.update(deps, c.get("principal").user, c.req.valid("param").webhook_id, c.req.valid("json")), 200),
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/api/v1/webhooks/{webhook_id}",
      tags,
      summary: "Delete a webhook (deliveries queued for it are dropped; its delivery records expire)",
      security: bearer,
      request: { params: WebhookIdParam },
      responses: { 200: json(WebhookDeleted, "Deleted"), ...errorResponses({ auth: true, notFound }) },
    }),
    async (c) => {
      const { webhook_id } = c.req.valid("param");
      await Webhooks.remove(deps, c.get("principal").user, webhook_id);
      return c.json({ success: true, id: webhook_id }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/webhooks/{webhook_id}/rotate-secret",
      tags,
      summary: "Replace the signing secret (the new one is in this answer only)",
      security: bearer,
      request: { params: WebhookIdParam },
      responses: {
        200: json(WebhookCreated, "The webhook and its new secret"),
        409: errorResponse("WEBHOOK_CHANGED: another request changed it meanwhile; try again"),
        ...errorResponses({ auth: true, notFound }),
      },
    }),
    async (c) => c.json(await Webhooks.rotateSecret(deps, c.get("principal").user, c.req.valid("param").webhook_id), 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/webhooks/{webhook_id}/test",
      tags,
      summary: "Queue a test delivery (kind `test`), signed and retried as any other, enabled or not",
      description: "Answered at once: the delivery worker sends it. `GET …/deliveries` shows it with each try's status code or error and duration.",
      security: bearer,
      request: { params: WebhookIdParam },
      responses: { 202: json(TestDeliveryQueued, "Queued"), ...errorResponses({ auth: true, notFound }) },
    }),
    async (c) => c.json(await Webhooks.test(deps, c.get("principal").user, c.req.valid("param").webhook_id), 202),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/webhooks/{webhook_id}/deliveries",
      tags,
      summary: "A webhook's deliveries, newest first, each with every try (kept 30 days)",
      security: bearer,
      request: { params: WebhookIdParam, query: DeliveryQuery },
      responses: { 200: json(DeliveryPage, "A page of deliveries"), ...errorResponses({ auth: true, notFound }) },
    }),
    async (c) => c.json(await Webhooks.deliveries(deps, c.get("principal").user, c.req.valid("param").webhook_id, c.req.valid("query")), 200),
  );

  return app;
}
