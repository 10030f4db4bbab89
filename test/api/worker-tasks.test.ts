import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { DynamoLeaseStore } from "../../packages/adapters/src/stores/lease-store";
import { createTestApi, type TestApi } from "../support/harness";
import { startMtfSession } from "../support/worker-harness";

/**
 * Two session worker tasks, each its own process on one DynamoDB Local table, share four running
 * MTF simulation sessions through their leases (docs/session-worker.md "More than one worker");
 * one is killed with SIGKILL, the other takes its sessions over within the lease, and every
 * session's event log holds one `strategy_output` per bar of each of its feeds: no bar fed twice,
 * none skipped across the kill.
 */
const root = join(import.meta.dirname, "../..");
const START = Date.parse("2024-03-15T14:00:00Z"); // inside the US regular session (EDT)
const SPEED = 60; // a 1-minute bar closes every wall second
const LEASE_MS = 3_000;

let api: TestApi;
let token: string;
let store: DynamoLeaseStore;
const children: ChildProcess[] = [];
const output = new Map<string, string>();

beforeAll(async () => {
  api = await createTestApi();
  token = (await api.createUser()).token;
  store = new DynamoLeaseStore(api.services.db);
});
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
});

function startTask(taskId: string, anchor: number): ChildProcess {
  const child = spawn(process.execPath, ["--import", "tsx", join(root, "test/support/worker-process.ts")], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      NODE_ENV: "test",
      AWS_REGION: "us-east-1",
      TABLE_NAME: api.services.db.tableName,
      DYNAMODB_ENDPOINT: inject("dynamoEndpoint"),
      JWT_SECRET: "test-secret-test-secret-test-secret!",
      WS_MANAGEMENT_ENDPOINT: "http://127.0.0.1:9",
      TASK_ID: taskId,
      CLOCK_START: String(START),
      CLOCK_ANCHOR: String(anchor),
      CLOCK_SPEED: String(SPEED),
      LEASE_MS: String(LEASE_MS),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  output.set(taskId, "");
  const collect = (chunk: Buffer) => output.set(taskId, output.get(taskId) + chunk.toString());
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  children.push(child);
  return child;
}

/** Waits (polling) until `check` answers true; fails after `ms` with the tasks' output. */
async function until(what: string, check: () => Promise<boolean>, ms: number): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms)
      throw new Error(`Timed out waiting until ${what}:\n${[...output].map(([id, text]) => `${id}:\n${text.slice(-3000)}`).join("\n")}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return Date.now() - started;
}

const owners = async () => new Map((await store.leases()).map((lease) => [lease.session_id, lease.owner]));

/** The `strategy_output` events of a session's log (`data.bar.timestamp`: the bar's open, epoch ms). */
async function strategyOutputs(sessionId: string): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const page: any = await api.json(
      "GET",
      `/api/v1/trading/mtf/sessions/${sessionId}/outputs?kind=mtf&limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      200,
      { token },
    );
    items.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor);
  return items.filter((event) => event.type === "strategy_output");
}

describe("two session worker tasks", () => {
  it("share the sessions, and when one is killed the other feeds its sessions every bar exactly once", { timeout: 90_000 }, async () => {
    const sessions: string[] = [];
    for (let i = 0; i < 4; i++) {
      sessions.push(await startMtfSession(api, token, `shared ${i}`, "1m"));
    }
    const anchor = Date.now();
    const first = startTask("task-a", anchor);
    startTask("task-b", anchor);

    // Each task takes its share: two sessions each.
    await until(
      "both tasks hold two sessions",
      async () => {
        const held = [...(await owners()).values()];
        return held.filter((owner) => owner === "task-a").length === 2 && held.filter((owner) => owner === "task-b").length === 2;
      },
      45_000,
    );
    const ofA = [...(await owners())].filter(([, owner]) => owner === "task-a").map(([id]) => id);
    // Both feed for a few market minutes, then the first is killed mid-step.
    await until(
      "every session has been fed five bars",
      async () => (await Promise.all(sessions.map(strategyOutputs))).every((list) => list.length >= 5),
      30_000,
    );
    first.kill("SIGKILL");
    const killedAt = START + (Date.now() - anchor) * SPEED;
    const takeover = await until(
      "the second task holds every session",
      async () => [...(await owners()).values()].every((owner) => owner === "task-b"),
      30_000,
    );
    expect(takeover).toBeLessThan(30_000);
    // The survivor feeds the sessions it took on for a few more minutes, then stops.
    await until(
      "the taken sessions are fed past the kill",
      async () =>
        (await Promise.all(ofA.map(strategyOutputs))).every((list) => list.some((event) => (event.data.bar.timestamp as number) > killedAt + 4 * 60_000)),
      30_000,
    );
    const second = children[1]!;
    const exited = new Promise((resolve) => second.once("close", resolve));
    second.kill("SIGTERM");
    await exited;

    for (const id of sessions) {
      const outputs = await strategyOutputs(id);
      // The executor's minutes: in order, each once, and none missing between the first and the last.
      const minutes = outputs.filter((event) => event.data.timeframe === "1m").map((event) => event.data.bar.timestamp as number);
      expect(minutes.length).toBeGreaterThan(8);
      expect(
        minutes.every((open, i) => i === 0 || open - minutes[i - 1]! === 60_000),
        `${id}: ${minutes.map((open) => new Date(open).toISOString().slice(11, 16))}`,
      ).toBe(true);
      // The director's hours (if one closed meanwhile), each once.
      const hours = outputs.filter((event) => event.data.timeframe === "1h").map((event) => event.data.bar.timestamp);
      expect(new Set(hours).size).toBe(hours.length);
      // The taken sessions were fed across the kill.
      if (ofA.includes(id)) expect(outputs.some((event) => (event.data.bar.timestamp as number) > killedAt)).toBe(true);
    }
  });
});
