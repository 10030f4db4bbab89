import { createRoute, z } from "@hono/zod-openapi";
import { DomainError } from "@tp/core/errors";
import { createGroup, json, type GroupServices } from "../http/group";
import { log } from "@tp/core/log";

const RootResponse = z
  .object({
    service: z.string(),
    version: z.string(),
    stage: z.string(),
    links: z.object({ docs: z.string(), openapi: z.string(), asyncapi: z.string(), health: z.string(), api: z.string() }),
  })
  .meta({ id: "RootResponse" });

const DependencyCheck = z.object({
  status: z.enum(["up", "down"]),
  latency_ms: z.number(),
});

const HealthResponse = z
  .object({
    status: z.enum(["healthy", "unhealthy"]),
    version: z.string(),
    timestamp: z.string(),
    uptime_seconds: z.number(),
    checks: z.record(z.string(), DependencyCheck),
  })
  .meta({ id: "HealthResponse" });

const CacheStatusResponse = z
  .object({
    backend: z.string().describe("lru+dynamodb: an in-process LRU in front of expiring table items"),
    entries: z.number().int(),
    max_entries: z.number().int(),
    hits: z.number().int(),
    misses: z.number().int(),
    hit_rate: z.number(),
    table_hits: z.number().int().describe("Hits answered by the table layer after an LRU miss"),
  })
  .meta({ id: "CacheStatusResponse" });

const CacheTestResponse = z
  .object({
    success: z.boolean(),
    write_ms: z.number(),
    read_ms: z.number(),
    delete_ms: z.number(),
    total_ms: z.number(),
  })
  .meta({ id: "CacheTestResponse" });

const startedAt = Date.now();
const tags = ["system"];
const round = (ms: number) => Number(ms.toFixed(2));

/** Root, health and cache endpoints (outside /api/v1). */
export function systemGroup(services: GroupServices<"cache" | "now" | "pingDatabase">) {
  const app = createGroup();

  app.openapi(
    createRoute({ method: "get", path: "/", tags, summary: "Service name, version and links", responses: { 200: json(RootResponse, "Root") } }),
    (c) =>
      c.json(
        {
          service: services.config.serviceName,
          version: services.config.version,
          stage: services.config.stage,
          links: { docs: "/docs", openapi: "/openapi.json", asyncapi: "/asyncapi.json", health: "/health", api: "/api/v1" },
        },
        200,
      ),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/health",
      tags,
      summary: "Checks each dependency with its latency",
      description:
        '503 `SERVICE_UNAVAILABLE` with `retry_after`, `status: "unhealthy"` and `checks` naming the dependency that is down; the cause goes to the log, never into the answer.',
      responses: { 200: json(HealthResponse, "Healthy"), 503: json(HealthResponse, "A dependency is down") },
    }),
    async (c) => {
      let database: z.infer<typeof DependencyCheck>;
      const started = performance.now();
      try {
        database = { status: "up", latency_ms: round(await services.pingDatabase()) };
      } catch (error) {
        log.error("Health check: database unreachable", { error: String(error) });
        database = { status: "down", latency_ms: round(performance.now() - started) };
      }
      if (database.status === "down") {
        throw new DomainError(503, "SERVICE_UNAVAILABLE", "Dependency down: database", { retry_after: 5, status: "unhealthy", checks: { database } });
      }
      return c.json(
        {
          status: "healthy" as const,
          version: services.config.version,
          timestamp: new Date(services.now()).toISOString(),
          uptime_seconds: Math.round((Date.now() - startedAt) / 1000),
          checks: { database },
        },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/cache/status",
      tags,
      summary: "Cache backend, entries, hits and misses",
      responses: { 200: json(CacheStatusResponse, "Status") },
    }),
    (c) => c.json(services.cache.status(), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/cache/test",
      tags,
      summary: "A timed write-read-delete round trip through the cache",
      responses: { 200: json(CacheTestResponse, "Result") },
    }),
    async (c) => c.json(await services.cache.selfTest(), 200),
  );

  return app;
}
