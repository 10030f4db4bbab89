import { execFile } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { createDb, ensureTable } from "../../packages/adapters/src/dynamo/db";
import { DynamoConnectionStore } from "../../packages/adapters/src/stores/connection-store";
import { createServices } from "../../packages/adapters/src/services";
import { createApp } from "../../packages/api/src";
import { buildFunctions } from "../support/function-bundles";
import { testConfig } from "../support/harness";

/**
 * Every function built exactly as `sst deploy` builds it (`app.finish()`: SST's esbuild with the
 * project's function props, copied files), then each bundle imported in a fresh Node process,
 * and an HTTP, a queue and a WebSocket handler invoked against DynamoDB Local. A missing file,
 * a native module the bundle cannot load or a load-time error fails here, not in AWS.
 */
const run = promisify(execFile);
const root = join(import.meta.dirname, "../..");
const tableName = `test-build-${randomUUID()}`;
let bundles: Map<string, string>;
let env: NodeJS.ProcessEnv;

/** Runs `script` (an ES module body with `bundle` in scope) in a fresh Node process; the last line it printed, parsed. */
async function inFreshProcess(bundle: string, script: string): Promise<any> {
  return JSON.parse((await output(bundle, script)).trim().split("\n").at(-1)!);
}

/** Everything the process printed. */
async function output(bundle: string, script: string): Promise<string> {
  const source = `const bundle = await import(${JSON.stringify(bundle)});\n${script}`;
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", source], { cwd: root, env, maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

const httpEvent = (method: string, path: string) => ({
  version: "2.0",
  routeKey: `${method} ${path}`,
  rawPath: path,
  rawQueryString: "",
  headers: { host: "api.example.com" },
  requestContext: {
    accountId: "1",
    apiId: "api",
    domainName: "api.example.com",
    http: { method, path, protocol: "HTTP/1.1", sourceIp: "198.51.100.1", userAgent: "test" },
    requestId: "r",
    routeKey: `${method} ${path}`,
    stage: "$default",
    time: "",
    timeEpoch: 0,
  },
  isBase64Encoded: false,
});

beforeAll(async () => {
  bundles = await buildFunctions();
  const endpoint = inject("dynamoEndpoint");
  await ensureTable(createDb({ tableName, endpoint }));
  env = {
    PATH: process.env.PATH,
    NODE_ENV: "production",
    AWS_REGION: "us-east-1",
    TABLE_NAME: tableName,
    DYNAMODB_ENDPOINT: endpoint,
    JWT_SECRET: "build-test-secret-build-test-secret!!",
    CAPTCHA_TEST_CODE: "",
    // As in Lambda: the bundles load the X-Ray tracer only there (functions/src/observability.ts).
    AWS_LAMBDA_FUNCTION_NAME: "build-test",
  };
}, 600_000);

describe("the functions as sst deploy builds them", () => {
  it("builds every function of the app", () => {
    for (const handler of [
      "http/auth",
      "http/docs",
      "http/fallback",
      "http/trading",
      "http/brokers",
      "queue/stock-import",
      "queue/data-sync",
      "workflow/backtest",
      "workflow/sweep",
      "workflow/day-rollover",
      "ws/socket",
      "schedule/data-sync-poll",
      "deploy/migrate",
    ]) {
      expect(bundles.has(handler), handler).toBe(true);
    }
    expect(bundles.size).toBeGreaterThanOrEqual(26);
  });

  it("keeps every bundle within 1 MB minified", () => {
    const AIM = 1024 * 1024;
    const over = [...bundles].map(([name, bundle]) => ({ name, bytes: statSync(bundle).size })).filter(({ bytes }) => bytes > AIM);
    expect(over).toEqual([]);
    // No bundle carries zod's other locales, z.fromJSONSchema, zod-to-openapi's generators, semver, the AWS SDK's SSO/STS clients and event streams, or the X-Ray whitelist of others' services (the build plugins in stacks/functions.ts).
    for (const name of ["ws/socket", "http/system"]) {
      const text = readFileSync(bundles.get(name)!, "utf8");
      expect(text, name).not.toContain("Ung\\xFCltige Eingabe"); // zod's German locale, as esbuild escapes it
      expect(text, name).not.toContain("Skipping SSO provider");
      expect(text, name).not.toContain("fromJSONSchema input is not valid JSON"); // z.fromJSONSchema's body
      expect(text, name).not.toContain("Invalid comparator"); // semver's, which the X-Ray SDK's v2 patcher loads
      expect(text, name).not.toContain("Conflicting names for parameter"); // zod-to-openapi's document generator
      expect(text, name).not.toContain("accommodate event stream message overhead"); // the AWS SDK's event-stream codec
      expect(text, name).not.toContain("sagemakerruntime"); // the X-Ray SDK's whitelist of services the functions do not call
    }
  });

  it("loads every bundle in a fresh process without a load-time error", { timeout: 300_000 }, async () => {
    for (const [name, bundle] of bundles) {
      const exported = await inFreshProcess(bundle, "console.log(JSON.stringify(Object.keys(bundle).sort()));");
      expect(exported.length, name).toBeGreaterThan(0);
    }
  });

  it("draws a captcha (the font ships with the function) through an API Gateway v2 event", { timeout: 60_000 }, async () => {
    const result = await inFreshProcess(
      bundles.get("http/auth")!,
      `const r = await bundle.handler(${JSON.stringify(httpEvent("GET", "/api/v1/captcha"))}, {}); console.log(JSON.stringify(r));`,
    );
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body).image).toMatch(/^<svg/);
  });

  it("serves the docs page's Swagger UI assets from the bundle", { timeout: 60_000 }, async () => {
    const result = await inFreshProcess(
      bundles.get("http/docs")!,
      `const r = await bundle.handler(${JSON.stringify(httpEvent("GET", "/docs/assets/swagger-ui-bundle.js"))}, {}); console.log(JSON.stringify({ statusCode: r.statusCode, length: (r.body ?? "").length }));`,
    );
    expect(result.statusCode).toBe(200);
    expect(result.length).toBeGreaterThan(100_000);
  });

  it("serves the same OpenAPI document from the docs function as the embedded app (nothing of a group left out of the build)", {
    timeout: 60_000,
  }, async () => {
    const printed = await output(
      bundles.get("http/docs")!,
      `const r = await bundle.handler(${JSON.stringify(httpEvent("GET", "/openapi.json"))}, {}); console.log(JSON.stringify({ document: r.body }));`,
    );
    const fromLambda = JSON.parse(
      JSON.parse(
        printed
          .trim()
          .split("\n")
          .filter((line) => line.startsWith('{"document"'))
          .at(-1)!,
      ).document,
    );
    const embedded = await (await createApp(createServices(testConfig())).request("/openapi.json")).json();
    expect(Object.keys(fromLambda.paths).length).toBeGreaterThan(100);
    expect(fromLambda).toEqual(embedded);
  });

  it("loads LongPort's native module beside the functions that talk to the provider", { timeout: 60_000 }, async () => {
    for (const handler of ["http/brokers", "queue/stock-import"]) {
      const bundle = bundles.get(handler)!;
      const loaded = await inFreshProcess(
        bundle,
        `const { createRequire } = await import("node:module"); const longport = createRequire(${JSON.stringify(bundle)})("longport"); console.log(JSON.stringify(typeof longport.Config));`,
      );
      expect(loaded, handler).toBe("function");
    }
  });

  it("runs the data-sync queue worker on an SQS event", { timeout: 60_000 }, async () => {
    const event = { Records: [{ messageId: "m1", body: JSON.stringify({ kind: "advance", generation: 7 }), attributes: { ApproximateReceiveCount: "1" } }] };
    const result = await inFreshProcess(bundles.get("queue/data-sync")!, `console.log(JSON.stringify(await bundle.handler(${JSON.stringify(event)})));`);
    expect(result).toEqual({ batchItemFailures: [] });
  });

  it("answers $default from the fallback function: trailing-slash list endpoints reach their groups, unknown paths the service's 404", {
    timeout: 60_000,
  }, async () => {
    const results = [];
    for (const path of ["/api/v1/strategies/", "/api/v1/assets/simulated/", "/api/v1/nowhere"]) {
      results.push(
        await inFreshProcess(
          bundles.get("http/fallback")!,
          `const r = await bundle.handler(${JSON.stringify(httpEvent("GET", path))}, {}); console.log(JSON.stringify({ statusCode: r.statusCode, code: JSON.parse(r.body).error_code }));`,
        ),
      );
    }
    // The groups' own answers: their routes ask for a token, the rest is the service's 404.
    expect(results).toEqual([
      { statusCode: 401, code: "UNAUTHORIZED" },
      { statusCode: 401, code: "UNAUTHORIZED" },
      { statusCode: 404, code: "NOT_FOUND" },
    ]);
  });

  it("runs the sweep machine's Plan task against the table: an unknown sweep fails the task with SWEEP_NOT_FOUND", { timeout: 60_000 }, async () => {
    const result = await inFreshProcess(
      bundles.get("workflow/sweep")!,
      `try { console.log(JSON.stringify(await bundle.plan({ sweep_id: "no-such-sweep" }, { getRemainingTimeInMillis: () => 100000 }))); } catch (error) { console.log(JSON.stringify({ code: error.code, message: error.message })); }`,
    );
    expect(result).toEqual({ code: "SWEEP_NOT_FOUND", message: "Sweep no-such-sweep does not exist" });
    expect(
      Object.keys(
        await inFreshProcess(
          bundles.get("workflow/sweep")!,
          "console.log(JSON.stringify(Object.fromEntries(Object.keys(bundle).map((k) => [k, typeof bundle[k]]))));",
        ),
      ).sort(),
    ).toEqual(["fail", "finalize", "plan", "runGrid", "sweepHandlers"]);
  });

  it("runs the deploy's migrations against the table, once: a second deploy finds them recorded", { timeout: 60_000 }, async () => {
    const first = await inFreshProcess(bundles.get("deploy/migrate")!, `console.log(JSON.stringify(await bundle.handler({}, {})));`);
    expect(first).toEqual({
      applied: [
        { id: "2026-11-29-shard-live-lists", items: 0 },
        { id: "2026-11-29-run-log", items: 0 },
      ],
    });
    const again = await inFreshProcess(bundles.get("deploy/migrate")!, `console.log(JSON.stringify(await bundle.handler({}, {})));`);
    expect(again).toEqual({ applied: [] });
  });

  it("runs the day rollover's tasks as its state machine calls them: nothing due without running sessions", { timeout: 60_000 }, async () => {
    const context = "{ getRemainingTimeInMillis: () => 120000 }";
    const result = await inFreshProcess(
      bundles.get("workflow/day-rollover")!,
      `const plan = await bundle.plan({}, ${context});
       const shard = await bundle.roll({ shard: plan.shards[0], at: plan.at }, ${context});
       const done = await bundle.calendars({ at: plan.at, shards: [{ sessions: shard.sessions, rolled: shard.rolled_count, symbols: shard.symbols }] }, ${context});
       console.log(JSON.stringify({ shards: plan.shards.length, shard, done }));`,
    );
    expect(result).toEqual({
      shards: 16,
      shard: { shard: 0, sessions: 0, rolled_count: 0, rolled: [], symbols: [] },
      done: { sessions: 0, rolled: 0, calendars: [], calendar_failures: [] },
    });
  });

  it("connects a WebSocket client through $connect and stores its connection", { timeout: 60_000 }, async () => {
    const event = {
      requestContext: { connectionId: "build-test-connection", routeKey: "$connect" },
      queryStringParameters: { path: "/api/v1/data-sync/logs", symbol: "AAPL.US" },
    };
    const result = await inFreshProcess(bundles.get("ws/socket")!, `console.log(JSON.stringify(await bundle.connect(${JSON.stringify(event)})));`);
    expect(result.statusCode).toBe(200);
    const stored = await new DynamoConnectionStore(createDb({ tableName, endpoint: inject("dynamoEndpoint") })).byTopic("logs:AAPL.US");
    expect(stored.map((c) => c.connection_id)).toContain("build-test-connection");
  });

  it("logs through Powertools with the request id and publishes EMF metrics on every invocation", { timeout: 60_000 }, async () => {
    const context = { awsRequestId: "req-123", functionName: "HttpSystem", functionVersion: "1", invokedFunctionArn: "arn", memoryLimitInMB: "1024" };
    const printed = await output(
      bundles.get("http/system")!,
      `await bundle.handler(${JSON.stringify(httpEvent("GET", "/api/v1/nowhere"))}, ${JSON.stringify(context)}); await bundle.handler(${JSON.stringify(httpEvent("GET", "/health"))}, ${JSON.stringify(context)});`,
    );
    const lines = printed
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line));
    const emf = lines.filter((line) => line._aws?.CloudWatchMetrics);
    expect(emf.length).toBeGreaterThanOrEqual(2);
    expect(emf[0]._aws.CloudWatchMetrics[0].Namespace).toBe("TradingPlatform");
    expect(emf.some((line) => line.Invocations === 1 && line.kind === "http")).toBe(true);
  });
});
