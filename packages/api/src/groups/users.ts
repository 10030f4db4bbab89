import { createRoute, z } from "@hono/zod-openapi";
import { Users, UserCreate, UserResponse, UserUpdate } from "@tp/core/users";
import { bearer, createGroup, errorResponse, errorResponses, json, jsonBody, requireAdmin, requireAuth, type GroupServices } from "../http/group";

const UserIdParam = z.object({ user_id: z.string().min(1).max(64) });

const DeleteResult = z.object({ success: z.boolean(), message: z.string(), id: z.string() }).meta({ id: "DeleteResult" });

const BrokerAccount = z
  .object({
    broker_id: z.string(),
    name: z.string(),
    code: z.string(),
    type: z.string(),
    status: z.string(),
    created_at: z.string(),
  })
  .meta({ id: "BrokerAccount" });

const UserAccountsResponse = z.object({ user_id: z.string(), accounts: z.array(BrokerAccount), total: z.number().int() }).meta({ id: "UserAccountsResponse" });

const tags = ["users"];

/** User management: list, create and delete are administrator-only; a user may read and update themself. */
export function usersGroup(services: GroupServices<"brokerAccounts" | "users">) {
  const app = createGroup();
  app.use("/api/v1/users", requireAuth(services));
  app.use("/api/v1/users/*", requireAuth(services));

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/users",
      tags,
      summary: "List users (administrator only)",
      security: bearer,
      middleware: [requireAdmin],
      responses: { 200: json(z.array(UserResponse), "All users, oldest first"), ...errorResponses({ auth: true }) },
    }),
    async (c) => {
      const users = await Users.list(services.users, c.get("principal").user);
      return c.json(users.map(Users.toResponse), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/users",
      tags,
      summary: "Create a user (administrator only)",
      security: bearer,
      middleware: [requireAdmin],
      request: jsonBody(UserCreate),
      responses: {
        201: json(UserResponse, "The new user"),
        409: errorResponse("USERNAME_TAKEN or EMAIL_TAKEN"),
        ...errorResponses({ auth: true }),
      },
    }),
    async (c) => {
      const user = await Users.create(services.users, c.req.valid("json"), c.get("principal").user);
      return c.json(Users.toResponse(user), 201);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/users/{user_id}",
      tags,
      summary: "Get a user (themself, or anyone for an administrator)",
      security: bearer,
      request: { params: UserIdParam },
      responses: { 200: json(UserResponse, "The user"), ...errorResponses({ auth: true, notFound: true }) },
    }),
    async (c) => {
      const user = await Users.get(services.users, c.get("principal").user, c.req.valid("param").user_id);
      return c.json(Users.toResponse(user), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "put",
      path: "/api/v1/users/{user_id}",
      tags,
      summary: "Update a user",
      description:
        "A user may update themself but not their own `user_type` or `status`; an administrator may update anyone. An empty or omitted password leaves it unchanged. Deactivating a user ends their tokens.",
      security: bearer,
      request: { params: UserIdParam, ...jsonBody(UserUpdate) },
      responses: { 200: json(UserResponse, "The updated user"), ...errorResponses({ auth: true, notFound: true }) },
    }),
    async (c) => {
      const user = await Users.update(services.users, c.get("principal").user, c.req.valid("param").user_id, c.req.valid("json"));
      return c.json(Users.toResponse(user), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/api/v1/users/{user_id}",
      tags,
      summary: "Delete a user (administrator only); their tokens stop working",
      security: bearer,
      middleware: [requireAdmin],
      request: { params: UserIdParam },
      responses: { 200: json(DeleteResult, "Deleted"), ...errorResponses({ auth: true, notFound: true }) },
    }),
    async (c) => {
      const user = await Users.delete(services.users, c.get("principal").user, c.req.valid("param").user_id);
      return c.json({ success: true, message: `User ${user.username} deleted`, id: user.id }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/users/{user_id}/accounts",
      tags,
      summary: "The user's broker accounts",
      security: bearer,
      request: { params: UserIdParam },
      responses: { 200: json(UserAccountsResponse, "Broker accounts"), ...errorResponses({ auth: true, notFound: true }) },
    }),
    async (c) => {
      const user = await Users.get(services.users, c.get("principal").user, c.req.valid("param").user_id);
      const accounts = await services.brokerAccounts(user.id);
      return c.json({ user_id: user.id, accounts, total: accounts.length }, 200);
    },
  );

  return app;
}
