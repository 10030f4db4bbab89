/**
 * The session worker under load, in one run: closed 1-minute bars of the simulated market pushed
 * through the worker into N running simulation sessions (1, 10, 100), each session's run restored,
 * fed and saved in DynamoDB Local (in memory), its events published through the `@connections`
 * API to one WebSocket client per session, as `npm start` runs it.
 *
 *  - bars/s: closed bars of the feed the worker gets through per second of its own work;
 *  - session bars/s: the same times N (each bar restores, feeds and saves N runs);
 *  - socket messages and frames: the sockets ask for batches (`?batch=true`, as the client does;
 *    `BENCH_BATCH=0` for a frame per message), so a session's messages of a step arrive as one frame;
 *  - push → socket p50/p99: from the moment the simulated market pushes a minute's candlestick
 *    to the moment a WebSocket client receives an event that bar caused;
 *  - minute → last push: every session's bar comes with the minute's one push (the minute burst of
 *    issue 37); the most any step took from that push to the last message its sessions' sockets
 *    received (1,000 sessions within 5 s on one task is the aim);
 *  - table requests and CPU ms per session bar: DynamoDB requests the process sent, and the
 *    process's CPU time (the worker, and the sockets' server it posts to), during the steps,
 *    divided by the session bars: figures that a loaded machine changes less than the rates;
 *    and DynamoDB Local's CPU time (the Java process, from /proc) per session bar.
 *
 * Then commands under load (docs/session-worker.md "Commands from the API"): 1, 10 and 50 clients
 * each send a limit order and a reset-daily at once into one running session while the worker
 * feeds it a bar, `BENCH_ROUNDS` (10) times after `BENCH_WARM_ROUNDS` (30) untimed rounds into a
 * session of their own; the answers' statuses, p50/p95/p99/max times and
 * errors (answers of 400 or more), and the CPU time per request of DynamoDB Local and of this
 * process (the runtime, the worker and the clients), which a loaded machine does not inflate as it
 * does the answer times (`BENCH_CLIENTS=50` for that row alone, `BENCH_SESSIONS=` to leave the
 * worker's table out). The clients send from a thread of their own, as clients elsewhere would:
 * their fetches (about a millisecond of CPU each) are not done on the runtime's event loop, whose
 * answers they time (`BENCH_INLINE_CLIENTS=1`: on it, as measured before 2026-11-26 15:30).
 *
 * And the items written to the table during the timed steps, by kind (`_type`), per session bar of
 * each sessions row and per request of each commands row: DynamoDB Local's work grows with them
 * (bench/support/table-writes.ts): the emulator's cost, not AWS's.
 *
 * And what AWS would bill for each sessions row (bench/support/aws-meter.ts, on-demand prices of
 * us-east-1; `BENCH_AWS_METER=0` leaves the meter out): every request of the timed steps priced in
 * write and read request units, per session bar and by kind; the same for `BENCH_IDLE_TICKS` (10)
 * steps without a bar right after them (the step's own bookkeeping, which a step with a bar does
 * too: subtracted, what is left is the bars' cost); then, the bench's worker stopped, a worker at
 * production's cadence (a step a second, a refresh every 2 s) over the same sessions, fed one bar
 * (so it holds the runs and its heartbeat names every session's last bar), then measured for
 * `BENCH_IDLE_SECONDS` (10) wall seconds without a bar: the bookkeeping that runs 24/7. A
 * session-month is 30 days of 390 one-minute bars plus 30 days of that bookkeeping shared by the
 * sessions. The busiest partition key: the most write units one key took in one step (a minute's
 * bar, which production writes within about a second), and at production's cadence the key with the
 * most write units per wall second on average, and the most a key took in any 1 s (a sliding window:
 * a key written once a second may show two writes).
 * The meter prices the requests after each step's measurements (outside the timed work).
 *
 * The market's clock is driven here a minute per step, the timed steps after `WARM_STEPS` untimed
 * ones; the sockets' client is in this process, and
 * each step waits until the sockets are idle before the next push, so a message is timed against
 * the push that caused it.
 *
 *   npx tsx bench/session.ts             (a few minutes: the 1,000 sessions take most)
 *   BENCH_SESSIONS=10000 BENCH_WORKERS=4 BENCH_CLIENTS= npx tsx bench/session.ts
 *                                        (10,000 sessions shared by 4 worker tasks through their leases,
 *                                         each task a SessionWorker of its own in this process; about an hour here)
 *   npx tsx bench/session.ts --markdown  (the table as Markdown, for docs/benchmarks.md)
 *   BENCH_PROFILE=/tmp/steps npx tsx bench/session.ts  (a CPU profile of each size's timed steps alone,
 *                                                     `<path>-<sessions>.cpuprofile`, and of each commands
 *                                                     row's rounds, `<path>-commands-<clients>.cpuprofile`)
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import WebSocket from "ws";
import type { PushCandlestickEvent } from "../packages/core/src/provider/quote-types";
import { startDynamoDbLocal } from "../packages/local/src/dynamodb-local";
import { startLocalRuntime } from "../packages/local/src/runtime";
import type { Services } from "../packages/adapters/src/services";
import { SimulatedMarketData } from "../packages/adapters/src/provider/simulated/simulated-market-data";
import { profiled } from "./support/profile";
import { SessionWorker } from "../packages/worker/src/session-worker";
import { showTable } from "./support/table";
import { countWrites } from "./support/table-writes";
import { AWS_PRICES, AwsMeter, per, SESSION_MONTH, sessionMonth, type MeterReport } from "./support/aws-meter";
import { cpuSecondsOf } from "./support/process-cpu";

const markdown = process.argv.includes("--markdown");
const SIZES = (process.env.BENCH_SESSIONS ?? "1,10,100,1000").split(",").filter(Boolean).map(Number);
/** Clients sending at once into one session, for the commands table. */
const CLIENTS = (process.env.BENCH_CLIENTS ?? "1,10,50").split(",").filter(Boolean).map(Number);
/** Steps (minutes) per size: enough bars for the strategies to trade, the whole run about a minute. */
const STEPS: Record<number, number> = { 1: 240, 10: 120, 100: 40, 1000: 6, 10000: 3 };
/**
 * Worker tasks sharing the sessions rows' sessions through their leases (`BENCH_WORKERS`, 1): each
 * a `SessionWorker` of its own in this process (its own task id, heartbeat, leases, runs and
 * simulated market over the same clock), as Fargate tasks would be, stepped together.
 */
const TASKS = Number(process.env.BENCH_WORKERS ?? 1);
/** Sessions created at once through the API while a row is set up. */
const SETUP_CONCURRENCY = 8;
/**
 * Steps fed before the timed ones (`BENCH_WARM_STEPS`, default 20; the 1,000 sessions 3): the
 * worker's runs in its cache, DynamoDB Local's Java code compiled; without them the first steps
 * time the JIT and the runs' restores (about twice DynamoDB Local's CPU per session bar).
 */
const WARM_STEPS = (sessions: number) => Number(process.env.BENCH_WARM_STEPS ?? (sessions >= 10_000 ? 2 : sessions >= 1000 ? 3 : 20));
/** The sessions' sockets ask for batches (`?batch=true`, as the client does): a session's messages of a step in one frame. `BENCH_BATCH=0`: a frame per message. */
const BATCH = process.env.BENCH_BATCH !== "0";
/**
 * Rounds into a session of their own before the timed ones (`BENCH_WARM_ROUNDS`, 30): DynamoDB
 * Local's Java code compiled, so the timed rounds do not measure the emulator's warm-up (run
 * alone, the 50-client row's p99 was 0.8–1.0 s cold and about 0.3 s after 30 such rounds).
 */
const WARM_ROUNDS = Number(process.env.BENCH_WARM_ROUNDS ?? 30);
/** Rounds of the commands table (`BENCH_ROUNDS`): every answer of every round is pooled. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const PASSWORD = "bench-admin-password-1";
/**
 * Quiet sessions (`BENCH_QUIET=1`): a strategy whose thresholds the simulated market's bars never
 * reach, so a bar places no order and moves no figure (the aim's "quiet session bar"); by default
 * short moving averages that trade every few bars.
 */
const QUIET = process.env.BENCH_QUIET === "1";
/** Prices the requests as AWS bills them (`BENCH_AWS_METER=0`: not). */
const METER = process.env.BENCH_AWS_METER !== "0";
/** Steps without a bar after the timed ones (`BENCH_IDLE_TICKS`): the step's own bookkeeping. */
const IDLE_TICKS = Number(process.env.BENCH_IDLE_TICKS ?? 10);
/** Wall seconds of a worker at production's cadence without bars (`BENCH_IDLE_SECONDS`; 0: not measured). */
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 10);
/** CPU seconds DynamoDB Local (a Java process) has used so far. */
const dynamoCpuSeconds = () => cpuSecondsOf(dynamo.process.pid) ?? Number.NaN;
const ownCpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

/** One row per kind of item, one column per row measured; and their sum. */
function writtenTable(per: Map<string, Map<string, number>>): Record<string, string>[] {
  const kinds = [...new Set([...per.values()].flatMap((counts) => [...counts.keys()]))];
  const row = (kind: string, of: (counts: Map<string, number>) => number) =>
    Object.fromEntries([["item", kind], ...[...per].map(([measured, counts]) => [measured, of(counts).toFixed(2)])]);
  return [...kinds.map((kind) => row(kind, (counts) => counts.get(kind) ?? 0)), row("all", (counts) => [...counts.values()].reduce((a, b) => a + b, 0))];
}

/** One row per kind, one column per thing priced (cells `write / read` units); and their sum. */
function pricedTable(per: Map<string, Map<string, string>>): Record<string, string>[] {
  const kinds = [...new Set([...per.values()].flatMap((cells) => [...cells.keys()]))].filter((kind) => kind !== "all");
  return [...kinds, "all"].map((kind) => Object.fromEntries([["kind", kind], ...[...per].map(([priced, cells]) => [priced, cells.get(kind) ?? "–"])]));
}

/** A report's units by kind (and all) per `count`, as `write / read` cells. */
function unitsByKind(report: MeterReport, count: number): Map<string, string> {
  const cell = (wru: number, rru: number) => `${(wru / count).toFixed(2)} / ${(rru / count).toFixed(2)}`;
  return new Map([...report.byKind.map(([kind, units]): [string, string] => [kind, cell(units.wru, units.rru)]), ["all", cell(report.wru, report.rru)]]);
}

const percentile = (sorted: number[], p: number) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!);

/** Items written to the table by kind, per session bar of each sessions row and per request of each commands row. */
const writtenPer = new Map<string, Map<string, number>>();
/** Priced as AWS bills: per sessions row, its timed steps by kind and its production-cadence bookkeeping by kind. */
const pricedPer = new Map<string, Map<string, string>>();
const pricedRows: Record<string, string | number>[] = [];
// 10,000 sessions' items in memory take more than the emulator's default heap.
const dynamo = await startDynamoDbLocal({ heap: SIZES.some((size) => size >= 10_000) ? "6g" : undefined });
// The emulator's end, told when it ends before the bench stops it (its heap, a crash).
const emulatorExited = (code: number | null, signal: string | null) => console.error(`DynamoDB Local exited (${code ?? signal}): ${dynamo.stderr()}`);
dynamo.process.once("exit", emulatorExited);
const rows: Record<string, string | number>[] = [];
const commandRows: Record<string, string | number>[] = [];
try {
  for (const sessions of SIZES) rows.push(await measure(sessions, STEPS[sessions] ?? 60));
  for (const clients of CLIENTS) commandRows.push(await measureCommands(clients, ROUNDS));
} finally {
  dynamo.process.off("exit", emulatorExited);
  await dynamo.stop();
}

const show = (title: string, table: Record<string, string | number>[]) => showTable(title, table, markdown);
show("Session worker: closed 1-minute bars into N running sessions, push to WebSocket", rows);
show(
  "DynamoDB Local's work (the emulator's cost per item, not AWS's bill): items written to the table, by kind: per session bar (sessions rows) and per request (commands rows)",
  writtenTable(writtenPer),
);
show(
  `Priced as AWS bills (on-demand, ${AWS_PRICES.region}, $${(AWS_PRICES.write * 1e6).toFixed(3)} per million write and $${(AWS_PRICES.read * 1e6).toFixed(3)} per million read request units, prices since ${AWS_PRICES.since}): write / read units by kind, per session bar of the timed steps and per wall second of production-cadence bookkeeping`,
  pricedTable(pricedPer),
);
show(
  `Priced as AWS bills: per session bar, per session-month (${SESSION_MONTH.barsPerSession.toLocaleString("en-US")} bars and 30 days of bookkeeping), the busiest partition key`,
  pricedRows,
);
show(
  `Commands under load: N clients each send an order and a reset-daily at once into one running session (${ROUNDS} rounds, a bar fed during each)`,
  commandRows,
);

/** The embedded runtime on its own table, its market clock read from `clock()`, and an admin's token. */
async function openRuntime(clock: () => number) {
  const runtime = await startLocalRuntime({
    env: {
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      TABLE_NAME: `bench-session-${randomUUID()}`,
      DATA_DIR: mkdtempSync(join(tmpdir(), "tp-bench-session-")),
      PORT: "0",
      ADMIN_PASSWORD: PASSWORD,
      CAPTCHA_TEST_CODE: "bench-code",
      SESSION_WORKER: "off",
    },
    marketNow: clock,
    log: () => undefined,
    // The day rollover's stand-in runs every minute here, three times a weekday on AWS: not the worker's bookkeeping.
    schedules: false,
  });
  const base = `http://127.0.0.1:${runtime.port}`;
  /** One request: its status, its body and how long its answer took. */
  const send = async (method: string, path: string, body?: unknown, token?: string) => {
    const started = performance.now();
    const response = await fetch(base + path, {
      method,
      headers: { ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, text, ms: performance.now() - started };
  };
  const call = async (method: string, path: string, body?: unknown, token?: string) => {
    const answer = await send(method, path, body, token);
    if (answer.status >= 400) throw new Error(`${method} ${path}: ${answer.status} ${answer.text}`);
    return JSON.parse(answer.text) as any;
  };
  const token = (await call("POST", "/api/v1/login", { username: "admin", password: PASSWORD, captcha: "bench-code" })).access_token as string;
  return { runtime, send, call, token };
}

/**
 * Commands under load: `clients` clients each send a limit order and a reset-daily at once into
 * one running session while the worker feeds it a bar; the answers' times and statuses. Repeated
 * `rounds` times, all answers pooled.
 */
async function measureCommands(clients: number, rounds: number): Promise<Record<string, string | number>> {
  let clock = Date.parse("2024-03-15T14:30:00Z");
  const { runtime, send, call, token } = await openRuntime(() => clock);
  const clientThread = clientsOf(`http://127.0.0.1:${runtime.port}`);
  let worker: SessionWorker | undefined;
  try {
    const config = { strategy_name: "ma_crossover", parameters: { fast_period: 3, slow_period: 8 }, symbols: ["AAPL.US"], timeframe: "1m", venue: "bars" };
    const started = async (name: string) => {
      const session = await call(
        "POST",
        "/api/v1/trading/sessions",
        { session_name: name, trading_mode: "simulation", asset_mode: "simulated", initial_capital: "1000000", config },
        token,
      );
      await call("POST", `/api/v1/trading/sessions/${session.id}/start`, undefined, token);
      return session.id as string;
    };
    const feeding = new SessionWorker(runtime.services, { marketData: await runtime.services.marketData(), tickMs: 1e9, refreshMs: 1e9 });
    worker = feeding;
    /** One round into `sessionId`: every client's order and reset-daily at once, while the worker feeds a bar. */
    const round = async (sessionId: string) => {
      clock += 60_000;
      const requests = Array.from({ length: clients }, (_, i) => [
        {
          method: "POST",
          path: "/api/v1/trading/orders",
          body: { session_id: sessionId, symbol: "AAPL.US", side: "buy", order_type: "limit", price: String(1 + i / 100), quantity: "1" },
        },
        { method: "POST", path: `/api/v1/trading/sessions/${sessionId}/risk/reset-daily` },
      ]).flat();
      const sent = process.env.BENCH_INLINE_CLIENTS ? requests.map((r) => send(r.method, r.path, r.body, token)) : [clientThread.send(requests, token)];
      const [answers] = await Promise.all([Promise.all(sent).then((all) => all.flat()), feeding.tick()]);
      return answers;
    };
    // Untimed rounds into a session of their own first (`WARM_ROUNDS`), stopped before the timed ones.
    const warm = await started("bench commands warm-up");
    await feeding.start();
    for (let i = 0; i < WARM_ROUNDS; i++) await round(warm);
    await call("POST", `/api/v1/trading/sessions/${warm}/stop`, undefined, token);
    const sessionId = await started("bench commands");
    await feeding.takeCommands();
    const times: number[] = [];
    const statuses = new Map<number, number>();
    const writes = countWrites(runtime.services.db.client);
    writes.start();
    const [dynamoBefore, ownBefore] = [dynamoCpuSeconds(), ownCpuSeconds()];
    await profiled(`commands-${clients}`, async () => {
      for (let r = 0; r < rounds; r++) {
        for (const answer of await round(sessionId)) {
          times.push(answer.ms);
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        }
      }
    });
    const [dynamoCpu, ownCpu] = [dynamoCpuSeconds() - dynamoBefore, ownCpuSeconds() - ownBefore];
    writtenPer.set(`${clients} clients (per request)`, writes.stop(times.length));
    times.sort((a, b) => a - b);
    return {
      requests: times.length,
      clients,
      answers: [...statuses]
        .sort(([a], [b]) => a - b)
        .map(([status, count]) => `${count} × ${status}`)
        .join(", "),
      "p50 (ms)": percentile(times, 50).toFixed(1),
      "p95 (ms)": percentile(times, 95).toFixed(1),
      "p99 (ms)": percentile(times, 99).toFixed(1),
      "max (ms)": times[times.length - 1]!.toFixed(1),
      errors: [...statuses].filter(([status]) => status >= 400).reduce((sum, [, count]) => sum + count, 0),
      "DynamoDB Local CPU ms/request": ((dynamoCpu * 1000) / times.length).toFixed(1),
      "bench process CPU ms/request": ((ownCpu * 1000) / times.length).toFixed(1),
    };
  } finally {
    await clientThread.stop();
    await worker?.stop();
    await runtime.stop();
  }
}

/**
 * The clients of the commands table, on a thread of their own: a round's requests are sent at
 * once from there and their answers timed there, so the clients' own work (fetch, about a
 * millisecond per request) is not done on the event loop of the runtime they measure.
 */
function clientsOf(base: string) {
  const thread = new Worker(
    `const { parentPort } = require("node:worker_threads");
    parentPort.on("message", async ({ id, requests, token }) => {
      const answers = await Promise.all(requests.map(async (r) => {
        const started = performance.now();
        const response = await fetch(${JSON.stringify(base)} + r.path, {
          method: r.method,
          headers: { ...(r.body === undefined ? {} : { "Content-Type": "application/json" }), Authorization: "Bearer " + token },
          body: r.body === undefined ? undefined : JSON.stringify(r.body),
        });
        const text = await response.text();
        return { status: response.status, text, ms: performance.now() - started };
      }));
      parentPort.postMessage({ id, answers });
    });`,
    { eval: true },
  );
  const waiting = new Map<number, (answers: { status: number; text: string; ms: number }[]) => void>();
  let next = 0;
  thread.on("message", ({ id, answers }) => waiting.get(id)?.(answers));
  return {
    send: (requests: { method: string; path: string; body?: unknown }[], token: string) =>
      new Promise<{ status: number; text: string; ms: number }[]>((resolve) => {
        waiting.set(++next, resolve);
        thread.postMessage({ id: next, requests, token });
      }),
    stop: () => thread.terminate(),
  };
}

async function measure(sessionCount: number, steps: number): Promise<Record<string, string | number>> {
  let clock = Date.parse("2024-03-15T13:30:00Z"); // the US regular session opens (EDT)
  const { runtime, call, token } = await openRuntime(() => clock);
  // Before the sessions are made, so that the meter knows every item the steps write over.
  // The embedded runtime's queue in the table is SQS on AWS (the session commands' FIFO queue, long-polled: a few cents a month), not DynamoDB.
  const meter = METER ? AwsMeter.attach(runtime.services.db, { unpricedKinds: ["QUEUE", "QueuedMessage"] }) : undefined;
  const sockets: WebSocket[] = [];
  const topics: string[] = [];
  let worker: Stoppable | undefined;
  try {
    // Every message a socket receives, with its arrival time; and the time of each step's push.
    const arrivals: number[] = [];
    let lastArrival = 0;
    let frames = 0;
    const open = async (i: number) => {
      // Different windows, so the sessions do not all trade on the same bar; or (`BENCH_QUIET=1`) thresholds the bars never reach.
      const config = {
        ...(QUIET
          ? { strategy_name: "rsi_mean_reversion", parameters: { period: 100, oversold: 5, overbought: 95, exit_level: 50 } }
          : { strategy_name: "ma_crossover", parameters: { fast_period: 2 + (i % 3), slow_period: 5 + (i % 5) } }),
        symbols: ["AAPL.US"],
        timeframe: "1m",
        execution: { sizing: { model: "cash_fraction", fraction: 0.05 } },
        venue: "bars",
      };
      const session = await call(
        "POST",
        "/api/v1/trading/sessions",
        { session_name: `bench ${i}`, trading_mode: "simulation", asset_mode: "simulated", initial_capital: "100000", config },
        token,
      );
      const socket = new WebSocket(`ws://127.0.0.1:${runtime.port}/ws/trading/${session.id}?token=${token}${BATCH ? "&batch=true" : ""}`);
      await new Promise((resolve, reject) => (socket.once("open", resolve), socket.once("error", reject)));
      socket.on("message", (data) => {
        lastArrival = performance.now();
        frames += 1;
        // A batched frame is an array of messages, each timed at the frame's arrival.
        const count = BATCH ? (JSON.parse(data.toString()) as unknown[]).length : 1;
        for (let i = 0; i < count; i++) arrivals.push(lastArrival);
      });
      sockets.push(socket);
      topics.push(`session:${session.id}`);
      await call("POST", `/api/v1/trading/sessions/${session.id}/start`, undefined, token);
    };
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(SETUP_CONCURRENCY, sessionCount) }, async () => {
        while (next < sessionCount) await open(next++);
      }),
    );

    const marketData = (await runtime.services.marketData()) as SimulatedMarketData;
    const pushes: number[] = [];
    // Each task's simulated market (the runtime's for the first), over the same clock and prices.
    const markets = Array.from({ length: TASKS }, (_, task) =>
      task === 0 ? marketData : new SimulatedMarketData({ clock: { now: () => clock }, engine: marketData.engine }),
    );
    for (const market of markets) {
      // The workers' handler, timed: the moment a simulated market pushes a confirmed candlestick.
      const setHandler = market.setOnCandlestick.bind(market);
      market.setOnCandlestick = (handler: ((event: PushCandlestickEvent) => void) | null) =>
        setHandler(handler && ((event) => (event.data.is_confirmed && pushes.push(performance.now()), handler(event))));
    }
    const feeding = await startTasks(runtime.services, markets);
    worker = feeding;
    // The start's commands (one per session started) are taken before the timed steps.
    await feeding.takeCommands();
    // Every request the process sends to the table, counted.
    let requests = 0;
    runtime.services.db.client.middlewareStack.add((next) => (args) => ((requests += 1), next(args)), { step: "initialize", name: "benchCount" });
    const writes = countWrites(runtime.services.db.client);

    for (let step = 0; step < WARM_STEPS(sessionCount); step++) {
      clock += 60_000;
      await feeding.tick();
    }
    // The warm-up's last messages delivered before the timed steps.
    while (performance.now() - lastArrival < 20) await new Promise((resolve) => setTimeout(resolve, 5));
    const delays: number[] = [];
    let timedFrames = 0;
    let busy = 0;
    let bars = 0;
    let busyRequests = 0;
    let cpu = 0;
    let dynamoCpu = 0;
    /** The most any step took from its minute's push to its last socket message. */
    let lastPush = 0;
    writes.start();
    meter?.reset();
    await profiled(String(sessionCount), async () => {
      for (let step = 0; step < steps; step++) {
        meter?.window();
        clock += 60_000;
        const pushesBefore = pushes.length;
        const arrivalsBefore = arrivals.length;
        const framesBefore = frames;
        const started = performance.now();
        const requestsBefore = requests;
        const cpuBefore = process.cpuUsage();
        const dynamoBefore = dynamoCpuSeconds();
        await feeding.tick();
        busy += performance.now() - started;
        const used = process.cpuUsage(cpuBefore);
        cpu += (used.user + used.system) / 1000;
        dynamoCpu += (dynamoCpuSeconds() - dynamoBefore) * 1000;
        busyRequests += requests - requestsBefore;
        const pushedAt = pushes[pushesBefore];
        if (pushedAt === undefined) continue;
        bars += pushes.length - pushesBefore;
        // Let the sockets go idle (nothing for 20 ms) before the next push: every message of this step is timed against its push.
        while (performance.now() - Math.max(lastArrival, started) < 20) await new Promise((resolve) => setTimeout(resolve, 5));
        for (let i = arrivalsBefore; i < arrivals.length; i++) delays.push(arrivals[i]! - pushedAt);
        // The minute burst: every session's bar came with this push; its last message ends the step's burst.
        if (arrivals.length > arrivalsBefore) lastPush = Math.max(lastPush, arrivals[arrivals.length - 1]! - pushedAt);
        timedFrames += frames - framesBefore;
        // The step's requests priced now, after its measurements and before the next step's.
        meter?.settle();
      }
    });
    writtenPer.set(`${sessionCount} sessions (per session bar)`, writes.stop(bars * sessionCount));
    if (meter) {
      const context = { runtime, markets, sessionCount, steps, sessionBars: bars * sessionCount, nextMinute: () => (clock += 60_000) };
      await priceAsAws(meter, feeding, context, (steady) => (worker = steady));
    }
    delays.sort((a, b) => a - b);
    const seconds = busy / 1000;
    return {
      sessions: sessionCount,
      ...(TASKS > 1 ? { "worker tasks (sessions each)": `${TASKS} (${feeding.sessions.join(", ")})` } : {}),
      "failed steps": feeding.failed,
      bars: bars,
      "bars/s": Math.round(bars / seconds),
      "session bars/s": Math.round((bars * sessionCount) / seconds),
      "socket messages": delays.length,
      "socket frames": timedFrames,
      "push → socket p50 (ms)": percentile(delays, 50).toFixed(1),
      "push → socket p99 (ms)": percentile(delays, 99).toFixed(1),
      "minute → last push, worst step (ms)": delays.length === 0 ? "–" : lastPush.toFixed(0),
      "table requests / session bar": (busyRequests / (bars * sessionCount)).toFixed(2),
      "CPU ms / session bar": (cpu / (bars * sessionCount)).toFixed(2),
      "DynamoDB Local CPU ms / session bar": (dynamoCpu / (bars * sessionCount)).toFixed(2),
    };
  } finally {
    await worker?.stop();
    // The sockets' disconnects reach the table before the runtime stops.
    await Promise.all(sockets.map((socket) => new Promise((resolve) => (socket.once("close", resolve), socket.close(1000)))));
    for (let waited = 0; waited < 10_000; waited += 100) {
      const open = await Promise.all(topics.map((topic) => runtime.services.realtime.connections.byTopic(topic)));
      if (open.every((list) => list.length === 0)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await runtime.stop();
  }
}

/** What a row stops when it ends: its workers. */
interface Stoppable {
  stop(): Promise<void>;
}

/**
 * The row's worker tasks, stepped together (`TASKS`); `sessions` is how many each drove in its last
 * step; `failed`, the steps that failed (a table request that failed past the SDK's retries), each
 * logged and left to the next step as the worker's own timer does (`SessionWorker.exclusive`).
 */
interface Tasks extends Stoppable {
  tick(): Promise<void>;
  takeCommands(): Promise<void>;
  sessions: number[];
  failed: number;
}

/**
 * The row's worker tasks, one per market, started, stepped by the bench (no timers of their own),
 * and refreshed until the sessions are shared among them by their leases (each task its share,
 * docs/session-worker.md "More than one worker").
 */
async function startTasks(services: Services, markets: SimulatedMarketData[]): Promise<Tasks> {
  const sessions = markets.map(() => 0);
  const workers = markets.map(
    (marketData, task) =>
      new SessionWorker(services, {
        marketData,
        tickMs: 1e9,
        refreshMs: 1e9,
        taskId: `bench-task-${task}`,
        onStep: (step) => (sessions[task] = step.sessions),
      }),
  );
  for (const worker of workers) await worker.start();
  // Each task's heartbeat is seen by the others now: the first gives up what is above its share, the others take it.
  if (workers.length > 1) for (let round = 0; round < 2; round++) for (const worker of workers) await worker.refresh();
  const tasks: Tasks = {
    sessions,
    failed: 0,
    tick: async () =>
      void (await Promise.all(
        workers.map((worker) =>
          worker.tick().catch((error) => {
            tasks.failed += 1;
            console.error(`A worker task's step failed (the next step takes it up): ${String(error)}`);
          }),
        ),
      )),
    takeCommands: async () => void (await Promise.all(workers.map((worker) => worker.takeCommands()))),
    stop: async () => void (await Promise.all(workers.map((worker) => worker.stop()))),
  };
  return tasks;
}

/**
 * A sessions row priced as AWS bills (the module comment): its timed steps, as recorded; then
 * `IDLE_TICKS` steps of the same worker without a bar (the market's clock kept where it is), the
 * bookkeeping each step does, bar or not; then a worker at production's cadence over the same
 * sessions for `IDLE_SECONDS` wall seconds without a bar. `started` is told of the worker to stop.
 */
async function priceAsAws(
  meter: AwsMeter,
  feeding: Tasks,
  context: {
    runtime: Awaited<ReturnType<typeof startLocalRuntime>>;
    /** Each task's market data. */
    markets: SimulatedMarketData[];
    sessionCount: number;
    steps: number;
    sessionBars: number;
    /** Moves the market's clock a minute on. */
    nextMinute: () => void;
  },
  started: (worker: Stoppable) => void,
): Promise<void> {
  const { runtime, markets, sessionCount, steps, sessionBars } = context;
  const timed = meter.report();
  // The first step without a bar writes what the last steps held (their bars' work), untimed.
  await feeding.tick();
  meter.reset();
  for (let tick = 0; tick < IDLE_TICKS; tick++) await feeding.tick();
  const idle = meter.report();
  let bookkeeping: MeterReport | undefined;
  let seconds = 0;
  if (IDLE_SECONDS > 0) {
    await feeding.stop();
    // Each task's steps since the last one that fed a bar (-1: none yet).
    const sinceBar = markets.map(() => -1);
    const driving = markets.map(() => 0);
    const steady = markets.map(
      (marketData, task) =>
        new SessionWorker(runtime.services, {
          marketData,
          taskId: `bench-steady-${task}`,
          onStep: (step) => {
            driving[task] = step.sessions;
            sinceBar[task] = step.sessionBars > 0 ? 0 : sinceBar[task]! < 0 ? -1 : sinceBar[task]! + 1;
          },
        }),
    );
    started({ stop: async () => void (await Promise.all(steady.map((worker) => worker.stop()))) });
    for (const worker of steady) await worker.start();
    // The sessions shared among the tasks first (their refreshes, every 2 s), so that each has subscribed its sessions' feed before the minute.
    const shared = () => driving.every((count) => count > 0) && driving.reduce((sum, count) => sum + count, 0) === sessionCount;
    const sharingFrom = performance.now();
    while (!shared() && performance.now() - sharingFrom < 120_000) await new Promise((resolve) => setTimeout(resolve, 100));
    if (!shared()) throw new Error(`the workers at production's cadence did not share the sessions within 2 minutes: ${driving.join(", ")}`);
    // One bar, as every minute brings: the workers then hold the runs, their heartbeats name each
    // session's last bar, the bar's saves and metrics are written; the seconds after it are measured.
    context.nextMinute();
    const waitedFrom = performance.now();
    // Every task that drives sessions fed its bar five steps ago, and together they drive them all.
    const settled = () => sinceBar.every((steps, task) => steps >= 5 || driving[task] === 0) && driving.reduce((sum, count) => sum + count, 0) === sessionCount;
    while (!settled() && performance.now() - waitedFrom < 600_000) await new Promise((resolve) => setTimeout(resolve, 100));
    if (!settled())
      throw new Error(
        `the workers at production's cadence did not feed their bar within 10 minutes: sessions ${driving.join(", ")}; steps since a bar ${sinceBar.join(", ")}`,
      );
    meter.reset();
    const from = performance.now();
    await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
    seconds = (performance.now() - from) / 1000;
    bookkeeping = meter.report();
  }
  const perStep = per(idle, Math.max(1, IDLE_TICKS));
  // What the bars cost: the timed steps less the bookkeeping each of them did as a step.
  const bar = { wru: Math.max(0, timed.wru - perStep.wru * steps) / sessionBars, rru: Math.max(0, timed.rru - perStep.rru * steps) / sessionBars };
  const time = bookkeeping ? per(bookkeeping, seconds) : { wru: 0, rru: 0 };
  const month = sessionMonth(bar, time, sessionCount);
  pricedPer.set(`${sessionCount} sessions, per session bar`, unitsByKind(timed, sessionBars));
  if (bookkeeping) pricedPer.set(`${sessionCount} sessions, bookkeeping per s`, unitsByKind(bookkeeping, seconds));
  const money = (value: number) => `$${value.toFixed(4)}`;
  // Keys with their ids elided: which kind of key, not which session.
  const keyName = (key: string) => key.replace(/[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}/g, "<id>");
  const busiest = (key?: { key: string; wru: number }, digits = 0) => (key ? `${key.wru.toFixed(digits)} (${keyName(key.key)})` : "–");
  const largest = (...items: MeterReport["largestItem"][]) => {
    const item = items.reduce((most, next) => (next && next.bytes > (most?.bytes ?? 0) ? next : most), undefined);
    return item ? `${item.bytes.toLocaleString("en-US")} (${item.kind})` : "–";
  };
  const notes = Object.entries({ ...timed.approximations, ...bookkeeping?.approximations }).map(([reason, count]) => `${count} ${reason}`);
  const cancelled = timed.cancelled.transactions + (bookkeeping?.cancelled.transactions ?? 0);
  if (cancelled > 0) notes.push(`${cancelled} cancelled transactions (not billed here)`);
  pricedRows.push({
    sessions: sessionCount,
    "WRU / RRU per session bar": `${(timed.wru / sessionBars).toFixed(2)} / ${(timed.rru / sessionBars).toFixed(2)}`,
    "of which the steps' own bookkeeping": `${((perStep.wru * steps) / sessionBars).toFixed(2)} / ${((perStep.rru * steps) / sessionBars).toFixed(2)}`,
    "the bars': WRU / RRU per session bar": `${bar.wru.toFixed(2)} / ${bar.rru.toFixed(2)}`,
    "bookkeeping at production cadence, WRU / RRU per s": bookkeeping ? `${time.wru.toFixed(1)} / ${time.rru.toFixed(1)}` : "–",
    "$ / session-month: bars": money(month.bars),
    "+ bookkeeping": bookkeeping ? money(month.bookkeeping) : "–",
    "= total": bookkeeping ? money(month.total) : "–",
    "busiest key in a step, WRU": busiest(timed.busiestPerWindow),
    "largest item written, bytes": largest(timed.largestItem, bookkeeping?.largestItem),
    "busiest key at production cadence, WRU / s (mean)": busiest(bookkeeping?.busiestMean, 1),
    "the most any key took in any 1 s": busiest(bookkeeping?.busiestPerSecond),
    "not exact": notes.join("; ") || "–",
    "pricing ms / session bar (after the steps)": (timed.pricingMs / sessionBars).toFixed(3),
  });
}
