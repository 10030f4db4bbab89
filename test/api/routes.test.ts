import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { groupRoutes } from "../../packages/api/src/routes";
import { groups } from "../../packages/api/src/groups";
import { createTestApi } from "../support/harness";

/** Whether an API Gateway route key ("GET /a/{b}", "ANY /a/{proxy+}") covers a Hono route. */
function covers(routeKey: string, method: string, path: string): boolean {
  // Route keys cannot end in "/": such paths reach the all-groups function through `$default`.
  if (routeKey === "$default") return path.length > 1 && path.endsWith("/");
  const [routeMethod, routePath] = routeKey.split(" ") as [string, string];
  if (routeMethod !== "ANY" && routeMethod !== method) return false;
  const pattern = routePath
    .replace(/\{proxy\+\}/g, "__GREEDY__")
    .replace(/\{[^}]+\}/g, "[^/]+")
    .replace("__GREEDY__", ".+");
  const honoPath = path.replace(/:[A-Za-z_]+/g, "x");
  return new RegExp(`^${pattern}$`).test(honoPath);
}

describe("API Gateway routing", () => {
  it("routes every path each group serves to that group's function", async () => {
    const api = await createTestApi();
    for (const [name, build] of Object.entries(groups)) {
      const served = build(api.services).routes.filter((route) => route.method !== "ALL");
      expect(served.length).toBeGreaterThan(0);
      for (const route of served) {
        const keys = [...groupRoutes[name as keyof typeof groupRoutes], ...groupRoutes.fallback];
        expect(
          keys.some((key) => covers(key, route.method, route.path)),
          `${name}: ${route.method} ${route.path}`,
        ).toBe(true);
      }
    }
  });

  it("has a Lambda entry point for every routed group", () => {
    for (const group of Object.keys(groupRoutes)) {
      expect(existsSync(resolve(import.meta.dirname, `../../packages/functions/src/http/${group}.ts`)), group).toBe(true);
    }
  });
});
