/**
 * Smoke test of a running service — a deployed stage or `npm start` — through its public URL:
 * health, the OpenAPI document, captcha and login, then the main endpoints, then logout. Exits
 * non-zero when any check fails.
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

let token: string | undefined;
const checks: Check[] = [];

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(base + path, {
    method,
    headers: { ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON (the docs page)
  }
  return { status: response.status, body: parsed };
}

/** Runs one check: `expect` answers an error text, or nothing when the answer is right. */
async function check(name: string, method: string, path: string, status: number, body?: unknown, expect?: (answer: any) => string | void): Promise<any> {
  const started = performance.now();
  let detail = "";
  let answer: { status: number; body: any } | undefined;
  try {
    answer = await call(method, path, body);
    if (answer.status !== status) detail = `expected ${status}, got ${answer.status}: ${JSON.stringify(answer.body).slice(0, 200)}`;
    else detail = expect?.(answer.body) ?? "";
  } catch (error) {
    detail = String(error);
  }
  checks.push({ name, ok: detail === "", ms: Math.round(performance.now() - started), detail });
  return answer?.body;
}

async function captchaCode(): Promise<string | undefined> {
  if (process.env.SMOKE_CAPTCHA_CODE) return process.env.SMOKE_CAPTCHA_CODE;
  const arn = values["captcha-secret"];
  if (!arn) return undefined;
  const { SecretsManagerClient, GetSecretValueCommand } = await import("@aws-sdk/client-secrets-manager");
  return (await new SecretsManagerClient({}).send(new GetSecretValueCommand({ SecretId: arn }))).SecretString;
}

await check("health", "GET", "/health", 200, undefined, (b) => (b.status === "healthy" ? undefined : `status ${b.status}`));
await check("OpenAPI document", "GET", "/openapi.json", 200, undefined, (b) => (Object.keys(b.paths ?? {}).length > 100 ? undefined : "fewer than 100 paths"));
const captcha = await check("captcha", "GET", "/api/v1/captcha", 200, undefined, (b) => (String(b.image).startsWith("<svg") ? undefined : "no SVG image"));
const code = await captchaCode();
const login = await check("login", "POST", "/api/v1/login", 200, {
  username: process.env.SMOKE_USERNAME ?? "admin",
  password: process.env.SMOKE_PASSWORD ?? "",
  captcha: code ?? "",
  captcha_id: process.env.SMOKE_CAPTCHA_ID ?? captcha?.captcha_id,
});
token = login?.access_token;
if (token) {
  await check("me", "GET", "/api/v1/me", 200, undefined, (b) => (b.username ? undefined : "no username"));
  await check("strategies", "GET", "/api/v1/strategies/metadata/all", 200);
  await check("stock codes", "GET", "/api/v1/stock-codes", 200);
  await check("data sync status", "GET", "/api/v1/data-sync/status", 200, undefined, (b) => (b.sync_state ? undefined : "no sync_state"));
  const session = await check("create a session", "POST", "/api/v1/trading/sessions", 201, {
    session_name: `smoke ${new Date().toISOString()}`,
    trading_mode: "simulation",
    asset_mode: "simulated",
    initial_capital: "10000",
    config: {},
  });
  if (session?.id) {
    await check("read the session", "GET", `/api/v1/trading/sessions/${session.id}`, 200, undefined, (b) => (b.status === "created" ? undefined : `status ${b.status}`));
    await check("its engine status", "GET", `/api/v1/trading/sessions/${session.id}/engine/status`, 200);
    await check("delete the session", "DELETE", `/api/v1/trading/sessions/${session.id}`, 200);
  }
  await check("logout", "POST", "/api/v1/logout", 200);
  await check("the token is revoked", "GET", "/api/v1/me", 401);
}

const width = Math.max(...checks.map((c) => c.name.length));
for (const c of checks) console.log(`${c.ok ? "ok  " : "FAIL"}  ${c.name.padEnd(width)}  ${String(c.ms).padStart(5)} ms  ${c.detail}`);
const failed = checks.filter((c) => !c.ok).length;
console.log(failed === 0 ? `all ${checks.length} checks passed against ${base}` : `${failed} of ${checks.length} checks failed against ${base}`);
process.exit(failed === 0 ? 0 : 1);
