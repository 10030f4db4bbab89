import type { Services } from "@tp/adapters/services";
import type { Group } from "../http/group";
import type { RoutedGroup } from "../routes";
import { authGroup } from "./auth";
import { systemGroup } from "./system";
import { usersGroup } from "./users";

/**
 * Every endpoint group by name. The embedded runtime mounts them all on one server; on AWS
 * each becomes one Lambda behind the HTTP API (packages/functions/src/http/<name>.ts) with the
 * routes listed in `../routes.ts`.
 */
export const groups = {
  system: systemGroup,
  auth: authGroup,
  users: usersGroup,
} satisfies Partial<Record<RoutedGroup, (services: Services) => Group>>;

export type GroupName = keyof typeof groups;
