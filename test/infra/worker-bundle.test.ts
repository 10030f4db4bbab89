import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { createDb, ensureTable } from "../../packages/adapters/src/dynamo/db";
import { DynamoWorkerStore } from "../../packages/adapters/src/stores/worker-store";
import { BEAT_MS } from "../../packages/worker/src/session-worker";
import { buildWorker } from "../../scripts/build-worker";

const root = join(import.meta.dirname, "../..");

/**
 * The session worker as its image runs it (packages/worker/Dockerfile's run stage): the bundle of
 * packages/worker/src/main.ts built by scripts/build-worker.ts, alone in a folder outside the
 * repository with only LongPort's module beside it, started with the functions' configuration
 * against DynamoDB Local, beating, and stopping cleanly on SIGTERM (what ECS sends).
 */
describe("the session worker's bundle", () => {
  it("starts, writes its heartbeat, and exits 0 on SIGTERM", { timeout: 120_000 }, async () => {
    const app = mkdtempSync(join(tmpdir(), "tp-worker-image-"));
    const bundle = await buildWorker(join(app, "worker.mjs"));
    for (const module of ["longport", "longport-linux-x64-gnu"])
      cpSync(join(root, "node_modules", module), join(app, "node_modules", module), { recursive: true });
    const tableName = `test-worker-bundle-${randomUUID()}`;
    const endpoint = inject("dynamoEndpoint");
    const db = createDb({ tableName, endpoint });
    await ensureTable(db);
    const child = spawn(process.execPath, [bundle], {
      cwd: app,
      env: {
        PATH: process.env.PATH,
        NODE_ENV: "production",
        AWS_REGION: "us-east-1",
        TABLE_NAME: tableName,
        DYNAMODB_ENDPOINT: endpoint,
        JWT_SECRET: "worker-bundle-test-secret-worker-bundle!",
        WS_MANAGEMENT_ENDPOINT: "http://127.0.0.1:9",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
    for (let waited = 0; !output.includes("Session worker started") && child.exitCode === null && waited < 60_000; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(output).toContain("Session worker started");
    const started = JSON.parse(output.split("\n").find((line) => line.includes("Session worker started"))!);
    expect(started).toMatchObject({ level: "INFO", service: "trading-platform", source: "session-worker" });
    const first = await new DynamoWorkerStore(db).last();
    expect(first).toMatchObject({ sessions: 0, feeds: [], bars: 0 });
    // Still running a few ticks later (its timers alone would not hold the process), and beating (every BEAT_MS).
    let later = first;
    for (let waited = 0; later!.at <= first!.at && waited < BEAT_MS + 5_000; waited += 250) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      later = await new DynamoWorkerStore(db).last();
    }
    expect(child.exitCode).toBeNull();
    expect(later!.at).toBeGreaterThan(first!.at);
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(output).toContain("SIGTERM: stopping");
    expect(output).toContain("Session worker stopped");
    db.raw.destroy();
  });
});
