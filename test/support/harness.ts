import { randomUUID } from "node:crypto";
import { inject } from "vitest";
import { configFromEnv, type ServiceConfig } from "../../packages/adapters/src/config";
import { ensureTable } from "../../packages/adapters/src/dynamo/db";
import { createServices, type Services } from "../../packages/adapters/src/services";
import type { ServiceOverrides } from "../../packages/adapters/src/compose/context";
import { createApp } from "../../packages/api/src";
import { ensureAdministrator } from "../../packages/core/src/users";
import { checkContract } from "./contract";

export const CAPTCHA = "test-captcha";
export const ADMIN = { username: "admin", email: "admin@example.com", password: "admin-password-1" };

/** The fixed key that seals broker credentials in tests (32 bytes, AES-256). */
export const TEST_ENCRYPTION_KEY = new Uint8Array(32).fill(42);

/** LongPort's hosts where nothing listens (the discard port): a test that selects LongPort without the fake gets "unreachable" at once. */
export const NO_LONGPORT = { LONGPORT_HTTP_URL: "http://127.0.0.1:9", LONGPORT_QUOTE_WS_URL: "ws://127.0.0.1:9", LONGPORT_TRADE_WS_URL: "ws://127.0.0.1:9" };

/** Configuration for a fresh table on the shared DynamoDB Local. */
export function testConfig(env: NodeJS.ProcessEnv = {}): ServiceConfig {
  return configFromEnv(
    {
      TABLE_NAME: `test-${randomUUID()}`,
      DYNAMODB_ENDPOINT: inject("dynamoEndpoint"),
      CAPTCHA_TEST_CODE: CAPTCHA,
      // No test reaches a real LongPort host: unless a test points them at the fake LongPort, its hosts are a closed local port.
      ...NO_LONGPORT,
      ...env,
    },
    new TextEncoder().encode("test-secret-test-secret-test-secret!"),
    TEST_ENCRYPTION_KEY,
  );
}

export interface TestApi {
  services: Services;
  app: ReturnType<typeof createApp>;
  request(method: string, path: string, options?: { body?: unknown; token?: string; headers?: Record<string, string> }): Promise<Response>;
  /** The JSON of a request that must answer `status`. */
  json<T = any>(method: string, path: string, status: number, options?: { body?: unknown; token?: string }): Promise<T>;
  login(username: string, password: string): Promise<string>;
  adminToken(): Promise<string>;
  createUser(
    overrides?: Partial<{ username: string; email: string; password: string; user_type: string }>,
  ): Promise<{ id: string; username: string; password: string; token: string }>;
}

/** The whole app in process, on its own table in DynamoDB Local, with an administrator. */
export async function createTestApi(env: NodeJS.ProcessEnv = {}, overrides: ServiceOverrides = {}): Promise<TestApi> {
  const services = createServices(testConfig(env), overrides);
  await ensureTable(services.db);
  await ensureAdministrator(services.users, ADMIN);
  const app = createApp(services);
  let adminToken: string | undefined;
  let document: Parameters<typeof checkContract>[0] | undefined;
  const api: TestApi = {
    services,
    app,
    request(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.token) headers.Authorization = `Bearer ${options.token}`;
      let body: string | undefined;
      if (options.body !== undefined) {
        headers["Content-Type"] = "application/json";
        body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
      }
      // Every error answer is held to the OpenAPI document (test/support/contract.ts).
      return Promise.resolve(app.request(path, { method, headers, body })).then(async (answer) => {
        if (answer.status >= 400) {
          document ??= (await (await app.request("/openapi.json")).json()) as never;
          checkContract(document!, method, path, answer.status, await answer.clone().text());
        }
        return answer;
      });
    },
    async json(method, path, status, options) {
      const response = await api.request(method, path, options);
      const text = await response.text();
      if (response.status !== status) {
        throw new Error(`${method} ${path}: expected ${status}, got ${response.status}: ${text}`);
      }
      return text ? JSON.parse(text) : undefined;
    },
    async login(username, password) {
      const body = await api.json("POST", "/api/v1/login", 200, { body: { username, password, captcha: CAPTCHA } });
      return body.access_token;
    },
    async adminToken() {
      adminToken ??= await api.login(ADMIN.username, ADMIN.password);
      return adminToken;
    },
    async createUser(overrides = {}) {
      const suffix = randomUUID().slice(0, 8);
      const input = {
        username: `user-${suffix}`,
        email: `user-${suffix}@example.com`,
        password: "user-password-1",
        ...overrides,
      };
      const created = await api.json("POST", "/api/v1/users", 201, { body: input, token: await api.adminToken() });
      return { id: created.id, username: input.username, password: input.password, token: await api.login(input.username, input.password) };
    },
  };
  return api;
}
