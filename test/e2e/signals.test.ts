import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ApiClient } from "../support/api-client";
import { startService } from "../support/local-process";

/**
 * `npm start` stops cleanly on SIGINT and SIGTERM, whichever process of its tree gets them (README,
 * "Run it"): npm itself, the node process it runs, or the whole foreground group as Ctrl-C in a
 * terminal does. Each case runs the real `npm start` (its console build left out with
 * --ignore-scripts) on DynamoDB Local of its own, sends the signal and checks: npm exits 0, nothing
 * is printed as an error and no stack, the port is free again, and no DynamoDB Local is left.
 */
const ROOT = resolve(import.meta.dirname, "../..");
const ADMIN_PASSWORD = "signals-admin-password-1";
const started: ChildProcess[] = [];

afterEach(() => {
  // A failed case leaves nothing running behind it.
  for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, "SIGKILL");
});

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** The processes whose parent is `pid` (and whose command line has `match`). */
function childrenOf(pid: number, match?: string): number[] {
  try {
    return execFileSync("pgrep", ["-P", String(pid), ...(match ? ["-f", match] : [])], { encoding: "utf8" })
      .split("\n")
      .filter(Boolean)
      .map(Number);
  } catch {
    return []; // pgrep answers 1 when none matches
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

function portIsFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const probe = createServer();
    probe.once("error", () => done(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => done(true)));
  });
}

interface NpmStart {
  npm: ChildProcess;
  node: number;
  java: number;
  base: string;
  port: number;
  output: () => string;
  exited: Promise<number | null>;
}

/** `npm start` in a group of its own (as a terminal runs it), until it prints its URLs. */
async function npmStart(env: Record<string, string>): Promise<NpmStart> {
  // DynamoDB Local of its own (not the test setup's), which the stop must end.
  const { DYNAMODB_ENDPOINT: _shared, ...inherited } = process.env;
  const npm = spawn("npm", ["start", "--ignore-scripts"], {
    cwd: ROOT,
    env: { ...inherited, PORT: "0", ADMIN_PASSWORD, CAPTCHA_TEST_CODE: "e2e-code", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  started.push(npm);
  let output = "";
  npm.stdout!.on("data", (chunk) => (output += chunk));
  npm.stderr!.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | null>((done) => npm.once("exit", (code) => done(code)));
  const deadline = Date.now() + 120_000;
  let match: RegExpExecArray | null = null;
  while (!(match = /API:\s+(http:\/\/127\.0\.0\.1:(\d+))\/api\/v1[\s\S]*WebSocket:/.exec(output))) {
    if (npm.exitCode !== null || Date.now() > deadline) throw new Error(`npm start did not start:\n${output}`);
    await sleep(200);
  }
  const [node] = childrenOf(npm.pid!);
  const [java] = childrenOf(node!, "DynamoDBLocal.jar");
  expect(node, "npm runs node").toBeDefined();
  expect(java, "node runs DynamoDB Local").toBeDefined();
  return { npm, node: node!, java: java!, base: match[1]!, port: Number(match[2]), output: () => output, exited };
}

/** Sends the signal and checks everything the stop promises. */
async function stopWith(run: NpmStart, signal: NodeJS.Signals, target: "npm" | "node" | "group"): Promise<void> {
  if (target === "group") process.kill(-run.npm.pid!, signal);
  else process.kill(target === "npm" ? run.npm.pid! : run.node, signal);
  const code = await Promise.race([run.exited, sleep(60_000).then(() => "still running")]);
  const output = run.output();
  expect(code, output).toBe(0);
  expect(output).toContain(`${signal} received: stopping...`);
  expect(output).toContain("Stopped.");
  expect(output, "no error and no stack").not.toMatch(/error|\n\s+at |ECONNREFUSED/i);
  expect(alive(run.node), "the service's process is gone").toBe(false);
  expect(alive(run.java), "DynamoDB Local is gone").toBe(false);
  expect(await portIsFree(run.port), "the port is free").toBe(true);
}

describe("npm start stops cleanly on a signal", () => {
  for (const [signal, target] of [
    ["SIGINT", "npm"],
    ["SIGINT", "node"],
    ["SIGTERM", "npm"],
    ["SIGTERM", "node"],
  ] as const) {
    it(`${signal} to the ${target} process: exit code 0, no error, the port freed, DynamoDB Local stopped`, { timeout: 180_000 }, async () => {
      const run = await npmStart({ DATA_DIR: mkdtempSync(join(tmpdir(), "tp-signal-")) });
      await stopWith(run, signal, target);
    });
  }

  it("Ctrl-C (SIGINT to the whole group) while a session trades and a backtest runs: both kept, DynamoDB Local stopped after the service", {
    timeout: 300_000,
  }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "tp-signal-work-"));
    const clock = { SIMULATED_CLOCK_SPEED: "600", SIMULATED_CLOCK_START: "2024-03-15T14:00:00Z" };
    const run = await npmStart({ DATA_DIR: dataDir, ...clock });
    const client = new ApiClient(run.base);
    client.token = (await client.expect("POST", "/api/v1/login", 200, { username: "admin", password: ADMIN_PASSWORD, captcha: "e2e-code" })).access_token;
    const session = await client.expect("POST", "/api/v1/trading/sessions", 201, {
      session_name: "trading through the stop",
      trading_mode: "simulation",
      asset_mode: "simulated",
      initial_capital: "100000",
      config: { strategy_name: "ma_crossover", parameters: { fast_period: 3, slow_period: 8 }, symbols: ["AAPL.US"], timeframe: "1m" },
    });
    await client.expect("POST", `/api/v1/trading/sessions/${session.id}/start`, 200);
    const deadline = Date.now() + 60_000;
    while (!(await client.expect("GET", `/api/v1/trading/sessions/${session.id}/orders?limit=10`, 200)).orders.length) {
      expect(Date.now(), "the session places an order").toBeLessThan(deadline);
      await sleep(250);
    }
    const holder = await client.expect("POST", "/api/v1/trading/sessions", 201, {
      session_name: "backtest through the stop",
      trading_mode: "backtest",
      asset_mode: "simulated",
      initial_capital: "100000",
      config: {},
    });
    const { backtest_id } = await client.expect("POST", "/api/v1/backtest/start", 200, {
      session_id: holder.id,
      strategy_name: "ma_crossover",
      strategy_config: { fast_period: 10, slow_period: 30 },
      symbols: ["AAPL.US"],
      start_date: "2024-01-01",
      end_date: "2024-06-30",
      initial_capital: 100000,
    });
    await stopWith(run, "SIGINT", "group");

    // Started again on the same data: the session still runs and trades on, the backtest finishes from where it was.
    const again = await startService({ DATA_DIR: dataDir, ADMIN_PASSWORD, CAPTCHA_TEST_CODE: "e2e-code", ...clock });
    try {
      const next = new ApiClient(again.base);
      next.token = (await next.expect("POST", "/api/v1/login", 200, { username: "admin", password: ADMIN_PASSWORD, captcha: "e2e-code" })).access_token;
      expect((await next.expect("GET", `/api/v1/trading/sessions/${session.id}`, 200)).status).toBe("running");
      const until = Date.now() + 180_000;
      let progress: any;
      while ((progress = await next.expect("GET", `/api/v1/backtest/${backtest_id}/progress`, 200)).status !== "completed") {
        expect(progress.status, JSON.stringify(progress)).not.toBe("failed");
        expect(Date.now(), "the backtest completes after the restart").toBeLessThan(until);
        await sleep(500);
      }
    } finally {
      expect(await again.stop()).toBe(0);
    }
  });
});
