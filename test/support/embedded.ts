import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inject } from "vitest";
import { startLocalRuntime, type LocalRuntime } from "../../packages/local/src/runtime";

export const EMBEDDED_CAPTCHA = "embedded-captcha";
export const EMBEDDED_ADMIN = { username: "admin", password: "embedded-admin-password" };

/**
 * `npm start`'s runtime in this process (its HTTP and WebSocket server on a free port), on a
 * fresh table of the test run's DynamoDB Local: real sockets without starting another emulator.
 */
export async function startEmbedded(env: NodeJS.ProcessEnv = {}): Promise<LocalRuntime & { base: string; wsBase: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), "tp-embedded-"));
  const runtime = await startLocalRuntime({
    env: {
      DATA_DIR: dataDir,
      DYNAMODB_ENDPOINT: inject("dynamoEndpoint"),
      TABLE_NAME: `embedded-${randomUUID()}`,
      PORT: "0",
      CAPTCHA_TEST_CODE: EMBEDDED_CAPTCHA,
      ADMIN_PASSWORD: EMBEDDED_ADMIN.password,
      SESSION_WORKER: "off",
      ...env,
    },
    log: () => undefined,
  });
  const base = runtime.urls.base;
  return {
    ...runtime,
    base,
    wsBase: base.replace(/^http/, "ws"),
    async stop() {
      await runtime.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
