/**
 * HTTP benchmark: requests per second and p50/p99 latency over loopback with 50 connections,
 * for a bare Hono route, GET /health and an authenticated route (GET /api/v1/me), measured in
 * one run. Servers run as child processes so autocannon does not share their event loop.
 *
 *   npx tsx bench/http.ts [seconds]
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import autocannon from "autocannon";
import { startService } from "../test/support/local-process";
import { cpuSecondsOf } from "./support/process-cpu";
import { printTable } from "./support/table";

const seconds = Number(process.argv[2] ?? 8);

async function measure(name: string, url: string, pid: number | undefined, headers: Record<string, string> = {}) {
  // A short warm-up lets V8 optimise the hot path before the measured run.
  await autocannon({ url, connections: 50, duration: 2, headers });
  const cpuBefore = cpuSecondsOf(pid);
  const result = await autocannon({ url, connections: 50, duration: seconds, headers });
  const cpuAfter = cpuSecondsOf(pid);
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  // CPU per request does not depend on how busy the machine is, unlike requests per second.
  const cpuMicros = cpuBefore === undefined || cpuAfter === undefined ? undefined : ((cpuAfter - cpuBefore) * 1e6) / result.requests.total;
  return { name, rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, cpuMicros };
}

const dataDir = mkdtempSync(join(tmpdir(), "tp-bench-"));
const hello = await startService({}, resolve(import.meta.dirname, "support/hello-server.ts"));
const service = await startService({ DATA_DIR: dataDir, CAPTCHA_TEST_CODE: "bench" });
try {
  const password = readFileSync(join(dataDir, "admin-password.txt"), "utf8").trim();
  const login = await fetch(`${service.base}/api/v1/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ username: "admin", password, captcha: "bench" }),
  });
  const { access_token: token } = (await login.json()) as { access_token: string };

  const bare = await measure("bare Hono GET /hello", `${hello.base}/hello`, hello.child.pid);
  // The authenticated route runs before /health so DynamoDB Local's JVM is idle, not still
  // working off the health run's reads on one of only two cores.
  const me = await measure("GET /api/v1/me (authenticated)", `${service.base}/api/v1/me`, service.child.pid, {
    Authorization: `Bearer ${token}`,
  });
  const health = await measure("GET /health (one DynamoDB read)", `${service.base}/health`, service.child.pid);
  printTable(
    `HTTP, 50 connections, ${seconds} s each, loopback (${new Date().toISOString()})`,
    [bare, health, me].map((row) => ({
      route: row.name,
      "req/s": row.rps,
      "p50 ms": row.p50,
      "p99 ms": row.p99,
      "vs bare": `${((row.rps / bare.rps) * 100).toFixed(0)}%`,
      "server CPU µs/req": row.cpuMicros === undefined ? "n/a" : row.cpuMicros.toFixed(1),
    })),
  );
} finally {
  await service.stop();
  await hello.stop();
}
