import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { startService, type RunningService } from "../support/local-process";

/** scripts/smoke.ts, the deployed stage's smoke test, run against `npm start`'s runtime. */
const dataDir = mkdtempSync(join(tmpdir(), "tp-smoke-"));
let service: RunningService | undefined;

afterAll(async () => {
  await service?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("the smoke test script", () => {
  it("logs in with the captcha test code and walks the main endpoints", { timeout: 180_000 }, async () => {
    service = await startService({ DATA_DIR: dataDir, CAPTCHA_TEST_CODE: "smoke-code", SESSION_WORKER: "off" });
    const password = readFileSync(join(dataDir, "admin-password.txt"), "utf8").trim();
    const root = join(import.meta.dirname, "../..");
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "scripts/smoke.ts", "--api", service.base], {
      cwd: root,
      env: { ...process.env, SMOKE_USERNAME: "admin", SMOKE_PASSWORD: password, SMOKE_CAPTCHA_CODE: "smoke-code" },
    });
    expect(stdout).toMatch(/all 15 checks passed/);
    expect(stdout).toMatch(/^ok\s+AsyncAPI document/m);
    expect(stdout).not.toMatch(/^FAIL/m);
  });

  it("fails (exit 1) when the login does not work", { timeout: 60_000 }, async () => {
    const root = join(import.meta.dirname, "../..");
    const run = promisify(execFile)(process.execPath, ["--import", "tsx", "scripts/smoke.ts", "--api", service!.base], {
      cwd: root,
      env: { ...process.env, SMOKE_USERNAME: "admin", SMOKE_PASSWORD: "wrong", SMOKE_CAPTCHA_CODE: "smoke-code" },
    });
    await expect(run).rejects.toMatchObject({ code: 1, stdout: expect.stringMatching(/FAIL\s+login/) });
  });

  it("creates a stage's first administrator with scripts/create-admin.ts, once", { timeout: 60_000 }, async () => {
    const { createTestApi } = await import("../support/harness");
    const api = await createTestApi();
    const root = join(import.meta.dirname, "../..");
    const env = {
      ...process.env,
      TABLE_NAME: api.services.db.tableName,
      DYNAMODB_ENDPOINT: api.services.config.dynamoEndpoint,
      ADMIN_USERNAME: "ops",
      ADMIN_EMAIL: "ops@example.com",
      ADMIN_PASSWORD: "ops-password-1",
    };
    const first = await promisify(execFile)(process.execPath, ["--import", "tsx", "scripts/create-admin.ts"], { cwd: root, env });
    expect(first.stdout).toMatch(/Administrator 'ops' created/);
    const again = await promisify(execFile)(process.execPath, ["--import", "tsx", "scripts/create-admin.ts"], { cwd: root, env });
    expect(again.stdout).toMatch(/already exists/);
    const token = await api.login("ops", "ops-password-1");
    expect((await api.json("GET", "/api/v1/me", 200, { token })).user_type).toBe("admin");
  });
});
