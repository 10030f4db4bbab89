import { describe, expect, it } from "vitest";
import type { APIGatewayProxyEventV2, Context } from "aws-lambda";
import { ensureTable } from "../../packages/adapters/src/dynamo/db";
import { testConfig } from "../support/harness";

/** An API Gateway HTTP API (payload format 2.0) event. */
function httpApiEvent(method: string, path: string, headers: Record<string, string> = {}, body?: string): APIGatewayProxyEventV2 {
  return {
    version: "2.0",
    routeKey: `${method} ${path}`,
    rawPath: path,
    rawQueryString: "",
    headers: { host: "api.example.com", ...headers },
    requestContext: {
      accountId: "123456789012",
      apiId: "api",
      domainName: "api.example.com",
      domainPrefix: "api",
      http: { method, path, protocol: "HTTP/1.1", sourceIp: "203.0.113.1", userAgent: "vitest" },
      requestId: "request-1",
      routeKey: `${method} ${path}`,
      stage: "$default",
      time: "21/Nov/2026:00:00:00 +0000",
      timeEpoch: 1795219200000,
    },
    body,
    isBase64Encoded: false,
  };
}

describe("Lambda entry points", () => {
  it("serves a group through hono/aws-lambda for an HTTP API v2 event", async () => {
    const config = testConfig();
    process.env.TABLE_NAME = config.tableName;
    process.env.DYNAMODB_ENDPOINT = config.dynamoEndpoint;
    process.env.JWT_SECRET = "lambda-test-secret";
    const { lambdaServices } = await import("../../packages/functions/src/runtime");
    await ensureTable((await lambdaServices()).db);
    const { handler } = await import("../../packages/functions/src/http/users");
    const unauthenticated = (await handler(httpApiEvent("GET", "/api/v1/users"), {} as Context)) as any;
    expect(unauthenticated.statusCode).toBe(401);
    expect(unauthenticated.headers["www-authenticate"]).toMatch(/^Bearer/);
    expect(JSON.parse(unauthenticated.body)).toMatchObject({ error_code: "UNAUTHORIZED", path: "/api/v1/users" });

    const system = await import("../../packages/functions/src/http/system");
    const health = (await system.handler(httpApiEvent("GET", "/health"), {} as Context)) as any;
    expect(health.statusCode).toBe(200);
    expect(JSON.parse(health.body).checks.database.status).toBe("up");

    const auth = await import("../../packages/functions/src/http/auth");
    const invalid = (await auth.handler(
      httpApiEvent("POST", "/api/v1/login", { "content-type": "application/json" }, JSON.stringify({ username: "a" })),
      {} as Context,
    )) as any;
    expect(invalid.statusCode).toBe(422);
    expect(JSON.parse(invalid.body).detail.map((issue: any) => issue.loc[1])).toEqual(["password", "captcha"]);
  });
});
