/**
 * Smoke test of a running service — a deployed stage or `npm start` — through its public URL:
 * health, the OpenAPI and AsyncAPI documents, captcha and login, then the main endpoints, then
 * logout, all through the typed client (packages/client). Exits non-zero when any check fails.
 *
 *   SMOKE_USERNAME=admin SMOKE_PASSWORD=... npx tsx scripts/smoke.ts --api https://<ApiUrl> \
 *     --captcha-secret <CaptchaTestCodeSecretArn output>    # or SMOKE_CAPTCHA_CODE=...
 *
 * A non-production stage keeps a generated captcha test code in Secrets Manager (output
 * `CaptchaTestCodeSecretArn`); production stages have none and refuse one, so this script logs in
 * there only with a code a person read off the captcha image (SMOKE_CAPTCHA_CODE plus
 * SMOKE_CAPTCHA_ID).
 */
import { parseArgs } from "node:util";

import { createTradingClient } from "../packages/client/src/index";

interface Check {
  name: string;
  ok: boolean;
  ms: number;
  detail: string;
}

const { values } = parseArgs({ options: { api: { type: "string" }, "captcha-secret": { type: "string" } } });
const base = (values.api ?? process.env.SMOKE_API_URL ?? "").replace(/\/+$/, "");
if (!base) {
  console.error("Usage: tsx scripts/smoke.ts --api <API URL> [--captcha-secret <secret ARN>]  (env SMOKE_USERNAME, SMOKE_PASSWORD, SMOKE_CAPTCHA_CODE)");
  process.exit(2);
}

const client = createTradingClient({ baseUrl: base });
const checks: Check[] = [];

/** Runs one check: a call through the typed client that must answer `status`; `expect` answers an error text, or nothing when the answer is right. */
async function check<T>(
  name: string,
  call: () => Promise<{ data?: T; error?: unknown; response: Response }>,
  status: number,
  expect?: (answer: T) => string | undefined,
): Promise<T | undefined> {
  const started = performance.now();
  let detail = "";
  let answer: T | undefined;
  try {
    const { data, error, response } = await call();
    answer = data;
    if (response.status !== status) detail = `expected ${status}, got ${response.status}: ${JSON.stringify(error ?? data).slice(0, 200)}`;
    else if (data !== undefined) detail = expect?.(data) ?? "";
  } catch (error) {
    detail = String(error);
  }
  checks.push({ name, ok: detail === "", ms: Math.round(performance.now() - started), detail });
  return answer;
}

/** A document the service serves beside the API (not an operation of it). */
const served = (path: string) => async () => {
  const response = await fetch(base + path);
  return { data: (await response.json()) as { paths?: object; channels?: object }, response };
};

async function captchaCode(): Promise<string | undefined> {
  if (process.env.SMOKE_CAPTCHA_CODE) return process.env.SMOKE_CAPTCHA_CODE;
  const arn = values["captcha-secret"];
  if (!arn) return undefined;
  const { SecretsManagerClient, GetSecretValueCommand } = await import("@aws-sdk/client-secrets-manager");
  return (await new SecretsManagerClient({}).send(new GetSecretValueCommand({ SecretId: arn }))).SecretString;
}

const { api } = client;
await check(
  "health",
  () => api.GET("/health"),
  200,
  (b) => (b.status === "healthy" ? undefined : `status ${b.status}`),
);
await check("OpenAPI document", served("/openapi.json"), 200, (b) => (Object.keys(b.paths ?? {}).length > 100 ? undefined : "fewer than 100 paths"));
await check("AsyncAPI document", served("/asyncapi.json"), 200, (b) => (Object.keys(b.channels ?? {}).length === 3 ? undefined : "not the three sockets"));
const captcha = await check(
  "captcha",
  () => api.GET("/api/v1/captcha"),
  200,
  (b) => (String(b.image).startsWith("<svg") ? undefined : "no SVG image"),
);
const code = await captchaCode();
const credentials = {
  username: process.env.SMOKE_USERNAME ?? "admin",
  password: process.env.SMOKE_PASSWORD ?? "",
  captcha: code ?? "",
  captcha_id: process.env.SMOKE_CAPTCHA_ID ?? captcha?.captcha_id,
};
const login = await check("login", () => api.POST("/api/v1/login", { body: credentials }), 200);
client.token = login?.access_token;
if (client.token) {
  await check(
    "me",
    () => api.GET("/api/v1/me"),
    200,
    (b) => (b.username ? undefined : "no username"),
  );
  await check("strategies", () => api.GET("/api/v1/strategies/metadata/all"), 200);
  await check("stock codes", () => api.GET("/api/v1/stock-codes"), 200);
  await check(
    "data sync status",
    () => api.GET("/api/v1/data-sync/status"),
    200,
    (b) => (b.sync_state ? undefined : "no sync_state"),
  );
  const session = await check(
    "create a session",
    () =>
      api.POST("/api/v1/trading/sessions", {
        body: { session_name: `smoke ${new Date().toISOString()}`, trading_mode: "simulation", asset_mode: "simulated", initial_capital: "10000", config: {} },
      }),
    201,
  );
  if (session?.id) {
    const path = { params: { path: { session_id: session.id } } };
    await check(
      "read the session",
      () => api.GET("/api/v1/trading/sessions/{session_id}", path),
      200,
      (b) => (b.status === "created" ? undefined : `status ${b.status}`),
    );
    await check("its engine status", () => api.GET("/api/v1/trading/sessions/{session_id}/engine/status", path), 200);
    await check("delete the session", () => api.DELETE("/api/v1/trading/sessions/{session_id}", path), 200);
  }
  await check("logout", () => api.POST("/api/v1/logout"), 200);
  await check("the token is revoked", () => api.GET("/api/v1/me"), 401);
}

const width = Math.max(...checks.map((c) => c.name.length));
for (const c of checks) console.log(`${c.ok ? "ok  " : "FAIL"}  ${c.name.padEnd(width)}  ${String(c.ms).padStart(5)} ms  ${c.detail}`);
const failed = checks.filter((c) => !c.ok).length;
console.log(failed === 0 ? `all ${checks.length} checks passed against ${base}` : `${failed} of ${checks.length} checks failed against ${base}`);
process.exit(failed === 0 ? 0 : 1);
