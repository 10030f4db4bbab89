import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import SwaggerParser from "@apidevtools/swagger-parser";
import { describe, expect, it } from "vitest";
import { embeddedDocument, OPENAPI_FILE, openApiText } from "../../scripts/openapi";
import { errorCodesOf, operationIdOf } from "../../packages/api/src/http/openapi";
import { contractProblem } from "../support/contract";

const run = promisify(execFile);
const ROOT = new URL("../../", import.meta.url).pathname;

interface Operation {
  operationId?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: { name: string; in: string; required?: boolean; schema?: { type?: unknown } }[];
  requestBody?: unknown;
  responses: Record<string, { content?: Record<string, { schema?: { allOf?: { $ref?: string; properties?: { error_code?: { enum?: string[] } } }[] } }> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  tags: { name: string; description: string }[];
  servers: { url: string }[];
}

const written = () => JSON.parse(readFileSync(OPENAPI_FILE, "utf8")) as Document;
const operations = (document: Document) =>
  Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ path, method, operation })));

describe("packages/api/openapi.json (what the docs function serves)", () => {
  it("is the embedded app's OpenAPI document: after changing a route, run npm run openapi", async () => {
    const text = readFileSync(OPENAPI_FILE, "utf8");
    const document = await embeddedDocument();
    expect(Object.keys((document as { paths: object }).paths).length).toBeGreaterThan(150);
    expect(text, "packages/api/openapi.json is stale: run npm run openapi").toBe(openApiText(document));
  });

  it("passes swagger-parser's validation", async () => {
    await expect(SwaggerParser.validate(OPENAPI_FILE)).resolves.toMatchObject({ openapi: "3.1.0" });
  });

  it("passes redocly lint with the repository's configuration (recommended rules) with no error and no warning", async () => {
    const { stdout } = await run(`${ROOT}node_modules/.bin/redocly`, ["lint", OPENAPI_FILE, "--format=json", "--config", `${ROOT}redocly.yaml`], {
      cwd: ROOT,
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    });
    const report = JSON.parse(stdout) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string }[] };
    expect(report.problems.map((problem) => `${problem.ruleId}: ${problem.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it("gives every operation a unique camelCase operationId, a declared tag and a security requirement", () => {
    const document = written();
    const declared = new Set(document.tags.map((tag) => tag.name));
    const ids = new Set<string>();
    for (const { path, method, operation } of operations(document)) {
      expect(operation.operationId, `${method} ${path}`).toMatch(/^[a-z][A-Za-z0-9]*$/);
      expect(ids.has(operation.operationId!), operation.operationId).toBe(false);
      ids.add(operation.operationId!);
      expect(operation.tags?.length, `${method} ${path}`).toBe(1);
      expect(declared.has(operation.tags![0]!)).toBe(true);
      expect(Array.isArray(operation.security), `${method} ${path}`).toBe(true);
    }
    expect(ids.size).toBe(operations(document).length);
    expect(document.servers.length).toBeGreaterThan(0);
  });

  it("derives operation ids from the path alone", () => {
    expect(operationIdOf("get", "/api/v1/backtest/{backtest_id}/progress")).toBe("getBacktestProgressByBacktestId");
    expect(operationIdOf("post", "/api/v1/login")).toBe("postLogin");
    expect(operationIdOf("get", "/api/v1/strategies/")).toBe("getStrategiesWithSlash");
    expect(operationIdOf("put", "/api/v1/sessions/{session_id}/channels/{channel_id}/risk-limits")).toBe(
      "putSessionsChannelsRiskLimitsBySessionIdAndChannelId",
    );
    expect(operationIdOf("get", "/")).toBe("getRoot");
    expect(operationIdOf("get", "/health")).toBe("getHealth");
  });

  it("documents public operations as public and the others as needing the bearer token", () => {
    const byId = new Map(operations(written()).map((entry) => [entry.operation.operationId, entry.operation]));
    expect(byId.get("postLogin")!.security).toEqual([]);
    expect(byId.get("getCaptcha")!.security).toEqual([]);
    expect(byId.get("getBacktestProgressByBacktestId")!.security).toEqual([{ bearerAuth: [] }]);
  });

  it("answers every error with the one ErrorBody, its error_code an enum of the operation's codes", () => {
    for (const { path, method, operation } of operations(written())) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400) continue;
        const schema = response.content?.["application/json"]?.schema;
        expect(schema?.allOf?.[0]?.$ref, `${method} ${path} ${status}`).toBe("#/components/schemas/ErrorBody");
        expect(schema?.allOf?.[1]?.properties?.error_code?.enum?.length, `${method} ${path} ${status}`).toBeGreaterThan(0);
      }
      expect(operation.responses["422"], `${method} ${path}`).toBeDefined();
      if (operation.requestBody) expect(operation.responses["413"], `${method} ${path}`).toBeDefined();
    }
  });

  it("lists each operation's own codes, 429 on login and 503 where the engine or a runner can be busy", () => {
    const byId = new Map(operations(written()).map((entry) => [entry.operation.operationId, entry.operation]));
    const codes = (id: string, status: string) =>
      byId.get(id)!.responses[status]!.content!["application/json"]!.schema!.allOf![1]!.properties!.error_code!.enum;
    expect(codes("postLogin", "401")).toEqual(["INVALID_CREDENTIALS", "UNAUTHORIZED"]);
    expect(codes("postLogin", "429")).toEqual(["TOO_MANY_REQUESTS"]);
    expect(codes("getBacktestResultByBacktestId", "409")).toEqual(["BACKTEST_FAILED", "BACKTEST_NOT_FINISHED"]);
    expect(codes("getBacktestResultByBacktestId", "404")).toEqual(["BACKTEST_NOT_FOUND"]);
    expect(codes("postBacktestStart", "503")).toEqual(["SERVICE_UNAVAILABLE"]);
    expect(codes("postSessionsChannelsStartBySessionIdAndChannelId", "400")).toEqual([
      "CHANNEL_ALREADY_RUNNING",
      "CHANNEL_MANAGER_NOT_INITIALIZED",
      "CHANNEL_NOT_RUNNING",
    ]);
    expect(codes("postSessionsChannelsStartBySessionIdAndChannelId", "409")).toEqual(["INVALID_STATE_TRANSITION", "KILL_SWITCH_ACTIVE"]);
    expect(codes("getStockDataByCodeAndTimestamp", "404")).toEqual(["CANDLE_NOT_FOUND"]);
  });

  it("reads a 404 declared without codes from the path's parameters", () => {
    expect(errorCodesOf("404", "the resource does not exist", "/api/v1/flows/{flow_id}", ["flows"])).toEqual(["FLOW_NOT_FOUND"]);
    expect(errorCodesOf("422", "Invalid input", "/x", [])).toEqual(["VALIDATION_ERROR"]);
    expect(errorCodesOf("409", "ASSET_ALREADY_EXISTS", "/api/v1/assets", ["assets"])).toEqual(["ASSET_ALREADY_EXISTS"]);
  });

  it("documents no nullable or optional path parameter and no nullable query parameter", () => {
    for (const { path, method, operation } of operations(written())) {
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === "path") expect(parameter.required, `${method} ${path} ${parameter.name}`).toBe(true);
        const type = parameter.schema?.type;
        expect(Array.isArray(type) && type.includes("null"), `${method} ${path} ${parameter.name}`).toBe(false);
      }
    }
    const timestamp = written().paths["/api/v1/stock-data/{code}/{timestamp}"]!.get!.parameters!.find((p) => p.name === "timestamp")!;
    expect(timestamp).toMatchObject({ required: true, schema: { type: "integer" } });
  });

  it("documents both spellings of the list paths the interface writes with a trailing slash", () => {
    const paths = written().paths;
    for (const path of ["/api/v1/strategies", "/api/v1/indicators", "/api/v1/assets", "/api/v1/assets/simulated"]) {
      expect(paths[path]?.get, path).toBeDefined();
      expect(paths[`${path}/`]?.get, `${path}/`).toBeDefined();
    }
  });

  it("is what the API suites hold every error answer to (test/support/contract.ts): a declared code passes, another is named", () => {
    const document = written() as never;
    expect(contractProblem(document, "GET", "/api/v1/backtest/b1/result", 409, "BACKTEST_NOT_FINISHED")).toBeUndefined();
    expect(contractProblem(document, "GET", "/api/v1/backtest/b1/result", 409, "SESSION_RUNNING")).toBe(
      "GET /api/v1/backtest/{backtest_id}/result: answered 409 SESSION_RUNNING, not in [BACKTEST_FAILED, BACKTEST_NOT_FINISHED]",
    );
    expect(contractProblem(document, "GET", "/api/v1/backtest/b1/result", 418, "TEAPOT")).toBe(
      "GET /api/v1/backtest/{backtest_id}/result: answered 418 TEAPOT, which it does not list",
    );
    // The most specific path wins: /channels/breakdown is not a channel id.
    expect(contractProblem(document, "GET", "/api/v1/sessions/s1/channels/breakdown", 404, "SESSION_NOT_FOUND")).toBeUndefined();
    expect(contractProblem(document, "GET", "/no/such/route", 404, "NOT_FOUND")).toBeUndefined();
  });
});
