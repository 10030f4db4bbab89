import type { Services } from "@tp/adapters/services";
import type { Group } from "../http/group";
import { authGroup } from "./auth";
import { systemGroup } from "./system";
import { usersGroup } from "./users";

/**
 * Every endpoint group by name. The embedded runtime mounts them all on one server; on AWS
 * each becomes one Lambda behind the HTTP API (packages/functions/src/http/<name>.ts), with the
 * routes listed in `routes` so the Api stack and the apps cannot drift.
 */
export const groups = {
  system: { build: systemGroup, routes: ["GET /", "GET /health", "GET /cache/status", "GET /cache/test"] },
  auth: { build: authGroup, routes: ["GET /api/v1/captcha", "POST /api/v1/login", "POST /api/v1/logout", "GET /api/v1/me"] },
  users: { build: usersGroup, routes: ["ANY /api/v1/users", "ANY /api/v1/users/{proxy+}"] },
} satisfies Record<string, { build: (services: Services) => Group; routes: string[] }>;

export type GroupName = keyof typeof groups;
