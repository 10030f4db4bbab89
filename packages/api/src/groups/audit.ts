import { createRoute } from "@hono/zod-openapi";
import { AuditPage, AuditQuery, AuditTrail } from "@tp/core/audit";
import { bearer, createGroup, errorResponse, errorResponses, json, requireAuth, type GroupServices } from "../http/group";

/** The audit trail (docs/security.md "Audit trail"): who did what, queried by user, session, kind and time. */
export function auditGroup(services: GroupServices) {
  const app = createGroup();
  app.use("/api/v1/audit", requireAuth(services));

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/audit",
      tags: ["audit"],
      summary: "Audit entries, newest first (paged): administrators everyone's, others their own",
      description:
        "Every command (POST, PUT, PATCH, DELETE but the read-only POSTs) by a signed-in user or an API key, refused ones included, with who sent it, what it named and how it ended. Filters: `user_id` (administrators), `session_id`, `kind`, `from`/`to` (at most 31 days apart; default the last 7 days). Entries are kept AUDIT_RETENTION_DAYS (400).",
      security: bearer,
      request: { query: AuditQuery },
      responses: {
        200: json(AuditPage, "A page of entries"),
        ...errorResponses({ auth: true }),
        403: errorResponse("ACCESS_DENIED: another user's entries asked for by a non-administrator, or an API key without the read scope"),
      },
    }),
    async (c) => c.json(await AuditTrail.list(services.audit, c.get("principal").user, c.req.valid("query")), 200),
  );

  return app;
}
