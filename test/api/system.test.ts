import { beforeAll, describe, expect, it } from "vitest";
import { createTestApi, type TestApi } from "../support/harness";
import { freePort } from "../../packages/local/src/dynamodb-local";

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi({ CORS_ORIGINS: "https://app.example.com" });
});

describe("system endpoints", () => {
  it("describes the service at the root", async () => {
    const root = await api.json("GET", "/", 200);
    expect(root).toMatchObject({ service: "trading-platform", links: { docs: "/docs", openapi: "/openapi.json", health: "/health" } });
  });

  it("reports the database up with its latency", async () => {
    const health = await api.json("GET", "/health", 200);
    expect(health.status).toBe("healthy");
    expect(health.checks.database.status).toBe("up");
    expect(health.checks.database.latency_ms).toBeGreaterThan(0);
  });

  it("answers 503 with retry_after when the database is unreachable", async () => {
    const port = await freePort();
    const down = await createTestApi().then(async (working) => {
      const { createServices } = await import("../../packages/adapters/src/services");
      const { createDb } = await import("../../packages/adapters/src/dynamo/db");
      const { createApp } = await import("../../packages/api/src");
      const db = createDb({ tableName: "nowhere", endpoint: `http://127.0.0.1:${port}` });
      return createApp(createServices(working.services.config, { db }));
    });
    const response = await down.request("/health");
    expect(response.status).toBe(503);
    const body: any = await response.json();
    expect(body).toMatchObject({
      error_code: "SERVICE_UNAVAILABLE",
      detail: "Dependency down: database",
      retry_after: 5,
      status: "unhealthy",
      checks: { database: { status: "down" } },
    });
    // Which dependency is down, never the driver's message (hosts, ports, stack details).
    expect(JSON.stringify(body)).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|nowhere|Error/);
  });

  it("round-trips the cache through the table and counts hits and misses", async () => {
    const test = await api.json("GET", "/cache/test", 200);
    expect(test.success).toBe(true);
    expect(test.total_ms).toBeGreaterThan(0);
    let loads = 0;
    const loader = async () => ({ loaded: ++loads });
    expect(await api.services.cache.get("k", 60, loader)).toEqual({ loaded: 1 });
    expect(await api.services.cache.get("k", 60, loader)).toEqual({ loaded: 1 });
    const status = await api.json("GET", "/cache/status", 200);
    expect(status).toMatchObject({ backend: "lru+dynamodb", hits: 1, misses: 1, entries: 1 });
  });
});

describe("HTTP conventions", () => {
  it("puts a request id on every response, errors included", async () => {
    const ok = await api.request("GET", "/");
    const missing = await api.request("GET", "/nope");
    expect(ok.headers.get("X-Request-Id")).toMatch(/.{8,}/);
    expect(missing.status).toBe(404);
    expect(missing.headers.get("X-Request-Id")).toMatch(/.{8,}/);
    expect(((await missing.json()) as any).error_code).toBe("NOT_FOUND");
  });

  it("answers CORS preflights for the configured origin only", async () => {
    const allowed = await api.request("OPTIONS", "/api/v1/me", {
      headers: { Origin: "https://app.example.com", "Access-Control-Request-Method": "GET" },
    });
    expect(allowed.headers.get("Access-Control-Allow-Origin")).toBe("https://app.example.com");
    const other = await api.request("OPTIONS", "/api/v1/me", {
      headers: { Origin: "https://evil.example.com", "Access-Control-Request-Method": "GET" },
    });
    expect(other.headers.get("Access-Control-Allow-Origin")).toBeNull();
  });

  it("serves an OpenAPI 3.1 document with the routes, schemas and bearer scheme", async () => {
    const doc = await api.json("GET", "/openapi.json", 200);
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/api/v1/login", "/api/v1/users/{user_id}", "/health"]));
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.components.schemas.UserType.enum).toEqual(["admin", "user"]);
    expect(doc.paths["/api/v1/users"].post.responses["422"]).toBeDefined();
  });

  it("serves interactive docs", async () => {
    const response = await api.request("GET", "/docs");
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("/openapi.json");
  });
});
