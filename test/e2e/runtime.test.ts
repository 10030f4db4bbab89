import { mkdtempSync, readFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, inject, it } from "vitest";
import WebSocket from "ws";
import { callAs } from "../support/api-client";
import { startService, type RunningService } from "../support/local-process";

const dataDir = mkdtempSync(join(tmpdir(), "tp-e2e-"));
const env = { DATA_DIR: dataDir, CAPTCHA_TEST_CODE: "e2e-code" };
let service: RunningService | undefined;

afterAll(async () => {
  await service?.stop();
});

const call = (base: string, method: string, path: string, body?: unknown, token?: string) => callAs(base, token, method, path, body);

async function login(base: string, username: string, password: string) {
  const result = await call(base, "POST", "/api/v1/login", { username, password, captcha: "e2e-code" });
  expect(result.status).toBe(200);
  return result.body.access_token as string;
}

/** Opens a socket and resolves with its first message after sending `send`. */
function exchange(url: string, send: unknown): Promise<any> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once("open", () => ws.send(JSON.stringify(send)));
    ws.once("message", (data) => {
      resolve(JSON.parse(data.toString()));
      ws.close(1000);
    });
    ws.once("unexpected-response", (_request, response) => reject(new Error(`rejected with ${response.statusCode}`)));
    ws.once("error", reject);
  });
}

describe("the embedded runtime (npm start)", () => {
  it("boots, logs in over real HTTP, serves WebSockets and keeps data across a restart", async () => {
    service = await startService(env);
    const { base } = service;
    expect(service.output()).toMatch(/Docs:\s+http:\/\/.+\/docs/);
    expect(service.output()).toMatch(/WebSocket:\s+ws:\/\//);
    const password = readFileSync(join(dataDir, "admin-password.txt"), "utf8").trim();
    expect(service.output()).toContain(password);

    const health = await call(base, "GET", "/health");
    expect(health.body.checks.database.status).toBe("up");
    const captcha = await call(base, "GET", "/api/v1/captcha");
    expect(captcha.body.image).toContain("<svg");

    const admin = await login(base, "admin", password);
    const created = await call(base, "POST", "/api/v1/users", { username: "dora", email: "dora@example.com", password: "dora-password" }, admin);
    expect(created.status).toBe(201);
    const dora = await login(base, "dora", "dora-password");
    expect((await call(base, "GET", "/api/v1/users", undefined, dora)).status).toBe(403);

    const wsBase = base.replace("http://", "ws://");
    const pong = await exchange(`${wsBase}/api/v1/data-sync/logs?symbol=700.HK`, { type: "ping" });
    expect(pong.type).toBe("pong");
    const session = await call(
      base,
      "POST",
      "/api/v1/trading/sessions",
      { session_name: "watched", trading_mode: "simulation", asset_mode: "simulated", initial_capital: "1000", config: {} },
      dora,
    );
    expect(session.status).toBe(201);
    const sessionPong = await exchange(`${wsBase}/ws/trading/${session.body.id}?token=${dora}`, { type: "ping" });
    expect(sessionPong.type).toBe("pong");
    await expect(exchange(`${wsBase}/ws/trading/${session.body.id}?token=bogus`, { type: "ping" })).rejects.toThrow(/401/);
    // Someone else's session and an unknown one are refused at the upgrade.
    const other = await call(base, "POST", "/api/v1/users", { username: "eve", email: "eve@example.com", password: "eve-password" }, admin);
    expect(other.status).toBe(201);
    const eve = await login(base, "eve", "eve-password");
    await expect(exchange(`${wsBase}/ws/sessions/${session.body.id}/channels?token=${eve}`, { type: "ping" })).rejects.toThrow(/403/);
    await expect(exchange(`${wsBase}/ws/trading/no-such-session?token=${dora}`, { type: "ping" })).rejects.toThrow(/404/);

    expect((await call(base, "POST", "/api/v1/logout", undefined, dora)).status).toBe(200);
    expect((await call(base, "GET", "/api/v1/me", undefined, dora)).status).toBe(401);

    // The supported path prints no warning (README, "Prerequisites"): none from Node.js, none from the AWS SDK.
    expect(service.errors()).not.toMatch(/warning/i);
    expect(await service.stop()).toBe(0);
    service = await startService(env);
    expect(service.output()).not.toContain(password);
    const again = await login(service.base, "admin", password);
    const users = await call(service.base, "GET", "/api/v1/users", undefined, again);
    expect(users.body.map((user: any) => user.username).sort()).toEqual(["admin", "dora", "eve"]);
    await login(service.base, "dora", "dora-password");
  }, 240_000);

  it("keeps one clock under SIMULATED_CLOCK_SPEED: a pong and an overview on the market's, and created_at never going back across a restart", async () => {
    const clockEnv = {
      DATA_DIR: mkdtempSync(join(tmpdir(), "tp-e2e-clock-")),
      DYNAMODB_ENDPOINT: inject("dynamoEndpoint"),
      TABLE_NAME: `test-runtime-clock-${randomUUID()}`,
      ADMIN_PASSWORD: "clock-admin-password-1",
      CAPTCHA_TEST_CODE: "e2e-code",
      SIMULATED_CLOCK_SPEED: "600",
      SIMULATED_CLOCK_START: "2024-03-15T19:00:00Z",
    };
    const marketDay = (iso: string) => iso.startsWith("2024-03-15");
    const newSession = async (base: string, token: string, name: string) =>
      (
        await call(
          base,
          "POST",
          "/api/v1/trading/sessions",
          { session_name: name, trading_mode: "simulation", asset_mode: "simulated", initial_capital: "1000", config: {} },
          token,
        )
      ).body;
    // The first test leaves its restarted runtime to afterAll: stopped here, before this one takes the slot.
    await service?.stop();
    service = await startService(clockEnv);
    let token = await login(service.base, "admin", clockEnv.ADMIN_PASSWORD);
    const first = await newSession(service.base, token, "before the restart");
    expect(marketDay(first.created_at)).toBe(true);
    // The socket answers a ping on the clock of its pushes (it was the wall clock's), and an overview is as of the market's time.
    const pong = await exchange(`${service.base.replace("http://", "ws://")}/ws/trading/${first.id}?token=${token}`, { type: "ping" });
    expect(pong.type).toBe("pong");
    expect(marketDay(pong.timestamp), pong.timestamp).toBe(true);
    const overview = await call(service.base, "GET", "/api/v1/assets/simulated/overview", undefined, token);
    expect(overview.status).toBe(200);
    expect(marketDay(overview.body.as_of), overview.body.as_of).toBe(true);
    // 2 s at 600x: 20 market minutes on.
    await new Promise((done) => setTimeout(done, 2_000));
    expect(await service.stop()).toBe(0);

    // Started again with the same SIMULATED_CLOCK_START: the clock goes on from where it was, not from 19:00 again.
    service = await startService(clockEnv);
    expect(service.output()).toContain("(not from SIMULATED_CLOCK_START 2024-03-15T19:00:00.000Z: this data directory's clock already went past it");
    token = await login(service.base, "admin", clockEnv.ADMIN_PASSWORD);
    const second = await newSession(service.base, token, "after the restart");
    expect(Date.parse(second.created_at)).toBeGreaterThan(Date.parse(first.created_at) + 15 * 60_000);
    expect(await service.stop()).toBe(0);
    service = undefined;
  }, 240_000);

  it("says which variable to set, in one line and without a stack, when its port is taken", async () => {
    const holder = createServer();
    await new Promise<void>((done) => holder.listen(0, "127.0.0.1", done));
    const port = (holder.address() as AddressInfo).port;
    try {
      const failure = await startService({ DATA_DIR: mkdtempSync(join(tmpdir(), "tp-e2e-port-")), PORT: String(port) }).then(
        () => undefined,
        (error: Error) => error.message,
      );
      expect(failure).toContain(
        `Port ${port} on 127.0.0.1 is in use by another process: stop it, or start on another port with PORT (e.g. \`PORT=3001 npm start\`; PORT=0 picks a free one).`,
      );
      expect(failure).not.toMatch(/EADDRINUSE|\n\s+at /);
    } finally {
      holder.close();
    }
  }, 120_000);
});
