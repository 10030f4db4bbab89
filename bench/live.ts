/**
 * Live sessions through LongPort's protocol under load (issue 35's bench row): 50 live sessions,
 * 10 resting limit orders each, against the fake LongPort of the test suite
 * (`test/support/fake-longport/`) enforcing LongPort's limits (30 trade calls per 30 s, one quote
 * connection, 10 quote calls a second), the service composed as `test/api/live-session.test.ts`
 * composes it: the embedded runtime on DynamoDB Local (in memory), its `LONGPORT_*_URL` pointed at
 * the fake, LongPort selected with `PUT /api/v1/settings/data-source`, and the `SessionWorker`
 * stepped by this bench (its timers far off), a step a second of wall time, the market's clock (the
 * service's and the fake's) a minute further each step, three trades pushed into each minute so a
 * 1-minute bar closes every step.
 *
 * The sessions: `trading_mode: "live"`, `asset_mode: "real"`, `ma_crossover` 50/100 on AAPL.US 1m
 * (warmed on a falling history the fake serves, so it does not signal in the window),
 * `risk_config: {max_position_size: 1}`, no commission. Each gets 10 buy limits 3–8 % below the
 * market through `POST /api/v1/trading/orders`; the matching orders are then placed straight in the
 * fake's account with the engine's order id as their `remark`, and the worker's first step finds each
 * by its remark and routes it without a submit (`packages/core/src/trading/venue.ts` `exchange`, the
 * lookup that keeps an unknown outcome from being sent twice). Sent through the service, 500 submits
 * would wait about 8 minutes for LongPort's 30 calls per 30 s; placed this way the setup pays no
 * pacing, the orders rest at the fake as they would after those submits, and the timed steps see
 * what they would see: 500 routed orders resting, none left to send.
 *
 * After `WARM_STEPS` untimed steps (the 500 commands' events published, the orders routed, the
 * accounts reconciled), `STEPS` steps are timed (`onStep`'s `stepMs`). During them `FILLS` orders of
 * different sessions are filled at the fake (`fake.account.fill`, which pushes the order change on
 * the trade socket), one every `FILL_EVERY` steps, and one more with its push lost in transit (the
 * fake's push gate holds and discards it): the fallback read of the account's orders, due every
 * `LIVE_POLL_MS` (10 s) without a push, must book it within that and two steps. That order is not
 * the first session's the worker drives (the session a step reads first), so the read has to cover
 * every session on the account, not one. Reported:
 *
 *  - each step's time, p50/p95/p99/max, against the aim p99 ≤ 1 s; its phases (the commands taken,
 *    the bars fed and saved, the exchange with LongPort, the rest) timed from outside the worker;
 *    the table requests, items written and CPU (this process and DynamoDB Local) per step;
 *  - the trade calls the fake counted (`fake.tradeCalls()`, each with its arrival time): the most in
 *    any 30 s window, in the timed steps and over the whole run (the 50 starts each read the account's
 *    buying power), against LongPort's 30; by path; and how many it answered 429002 (or 429001);
 *  - leases: every session still leased to the worker's task at the end, each lease's `since`
 *    unchanged since the timed steps began (never lost and taken again), the task's heartbeat alive,
 *    and the longest wall time between two heartbeats against `LEASE_MS`;
 *  - each fill: booked once (the order `filled`, one `order_filled` event in the session's log) and
 *    how long after the fill (steps, wall s); what the sessions submitted in the timed steps (the
 *    submits' bodies as the fake recorded them).
 *
 * The fake runs in this process, as in the tests: its HTTP and socket servers share the event loop
 * and the CPU figures. Two and a half to three minutes on 2 cores (the 50 starts wait about 33 s for LongPort's
 * pacing: each reads the account's buying power, a trade call).
 *
 *   npx tsx bench/live.ts              (the tables)
 *   npx tsx bench/live.ts --markdown   (as Markdown, for docs/benchmarks.md)
 *   BENCH_PROFILE=/tmp/live npx tsx bench/live.ts   (a CPU profile of the timed steps, /tmp/live-steps.cpuprofile)
 *   BENCH_STEPS=90 BENCH_SESSIONS=20 npx tsx bench/live.ts
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DynamoLeaseStore } from "../packages/adapters/src/stores/lease-store";
import { startDynamoDbLocal } from "../packages/local/src/dynamodb-local";
import { startLocalRuntime } from "../packages/local/src/runtime";
import { LEASE_MS } from "../packages/worker/src/leases";
import { LIVE_POLL_MS, SessionWorker, type WorkerStep } from "../packages/worker/src/session-worker";
import { Period, startFakeLongport } from "../test/support/fake-longport/index";
import { cpuSecondsOf } from "./support/process-cpu";
import { profiled } from "./support/profile";
import { showTable } from "./support/table";
import { countWrites } from "./support/table-writes";

const markdown = process.argv.includes("--markdown");
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 50);
const ORDERS_PER_SESSION = Number(process.env.BENCH_ORDERS ?? 10);
/** Steps before the timed ones: the orders' commands taken, the orders routed, the accounts reconciled. */
const WARM_STEPS = Number(process.env.BENCH_WARM_STEPS ?? 5);
/** Timed steps, a second apart: at least 60 s of wall time. */
const STEPS = Number(process.env.BENCH_STEPS ?? 65);
/** Fills at the fake during the timed steps, pushed on the trade socket, one every `FILL_EVERY` steps from step 5. */
const FILLS = Number(process.env.BENCH_FILLS ?? 4);
const FILL_EVERY = 15;
/** The step (timed) at which an order is filled with its push lost: the fallback poll must find it. */
const LOST_PUSH_STEP = 10;
const STEP_MS = 1_000;
const WINDOW_MS = 30_000;
const PASSWORD = "bench-admin-password-1";
const SYMBOL = "AAPL.US";
/** A Friday, 11:30 in New York: two regular hours behind (the warm-up's history), hours ahead. */
const START = Date.parse("2024-03-15T15:30:00Z");
const MARKET = 190;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : "–");
/** The most of `times` (ms, any order) within any window of `windowMs`. */
function mostInWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= windowMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

const dynamo = await startDynamoDbLocal();
const fake = await startFakeLongport({ start: START, cash: { USD: 10_000_000, HKD: 0 } });
// The morning's minutes, falling from 200 to 190: the crossover's fast average stays under its slow one through the window.
fake.market.seedCandles(
  SYMBOL,
  Period.min1,
  Array.from({ length: 120 }, (_, i) => {
    const close = 200 - (10 * (i + 1)) / 120;
    return { time: START - (120 - i) * 60_000, open: close + 0.05, high: close + 0.1, low: close - 0.05, close, volume: 1_000 };
  }),
);
let clock = START;
const clocksAt = (at: number) => {
  clock = at;
  fake.clock.set(at);
};
const runtime = await startLocalRuntime({
  env: {
    DYNAMODB_ENDPOINT: dynamo.endpoint,
    TABLE_NAME: `bench-live-${randomUUID()}`,
    DATA_DIR: mkdtempSync(join(tmpdir(), "tp-bench-live-")),
    PORT: "0",
    ADMIN_PASSWORD: PASSWORD,
    CAPTCHA_TEST_CODE: "bench-code",
    SESSION_WORKER: "off",
    LONGPORT_HTTP_URL: fake.httpUrl,
    LONGPORT_QUOTE_WS_URL: fake.quoteWsUrl,
    LONGPORT_TRADE_WS_URL: fake.tradeWsUrl,
  },
  marketNow: () => clock,
  log: () => undefined,
});
const base = `http://127.0.0.1:${runtime.port}`;
const call = async (method: string, path: string, body?: unknown, token?: string): Promise<any> => {
  const response = await fetch(base + path, {
    method,
    headers: { ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 400) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
};
/** `work` over `items`, `concurrency` at a time. */
async function each<T>(items: T[], concurrency: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        await work(items[index]!, index);
      }
    }),
  );
}

const TASK = "bench-live-task";
let worker: SessionWorker | undefined;
const steps: WorkerStep[] = [];
const tables: [string, Record<string, string | number>[]][] = [];
try {
  const benchStarted = Date.now();
  const token = (await call("POST", "/api/v1/login", { username: "admin", password: PASSWORD, captcha: "bench-code" })).access_token as string;
  const { appKey, appSecret, accessToken } = fake.credentials;
  await call(
    "PUT",
    "/api/v1/settings/data-source",
    { type: "longport", provider_config: { app_key: appKey, app_secret: appSecret, access_token: accessToken } },
    token,
  );

  // The sessions, created and started (each start reads the account's buying power: a trade call, paced by the service).
  const config = {
    strategy_name: "ma_crossover",
    parameters: { fast_period: 50, slow_period: 100 },
    symbols: [SYMBOL],
    timeframe: "1m",
    execution: { commission: { model: "percent", rate: 0 } },
    risk_config: { max_position_size: 1 },
  };
  const sessionIds: string[] = [];
  for (let i = 0; i < SESSIONS; i++) {
    const session = await call(
      "POST",
      "/api/v1/trading/sessions",
      { session_name: `live ${i}`, trading_mode: "live", asset_mode: "real", initial_capital: "100000", config },
      token,
    );
    sessionIds.push(session.id);
  }
  const startsBegan = Date.now();
  await each(sessionIds, 10, async (id) => void (await call("POST", `/api/v1/trading/sessions/${id}/start`, undefined, token)));
  const startsMs = Date.now() - startsBegan;

  // The worker takes them up (their runs made and warmed from the fake's history), then each gets its resting orders.
  const phases = new Map<string, number[]>();
  let stepPhases: Record<string, number> = {};
  const onStep = (step: WorkerStep) => steps.push(step);
  const feeding = new SessionWorker(runtime.services, { tickMs: 1e9, refreshMs: 1e9, taskId: TASK, onStep });
  worker = feeding;
  // Each phase of a step timed from outside (the instance's methods wrapped; the worker is not changed).
  for (const phase of ["takeCommands", "flush", "routeOrders"] as const) {
    const original = (feeding[phase] as () => Promise<unknown>).bind(feeding);
    (feeding as any)[phase] = async () => {
      const began = performance.now();
      try {
        return await original();
      } finally {
        stepPhases[phase] = (stepPhases[phase] ?? 0) + performance.now() - began;
      }
    };
  }
  const attachBegan = Date.now();
  await feeding.start();
  const attachMs = Date.now() - attachBegan;
  const ordersBegan = Date.now();
  const orders: { sessionId: string; orderId: string; price: number; quantity: number }[] = [];
  await each(sessionIds, 10, async (sessionId) => {
    for (let k = 0; k < ORDERS_PER_SESSION; k++) {
      const price = 180 - k; // 3–8 % under the market
      const placed = await call(
        "POST",
        "/api/v1/trading/orders",
        { session_id: sessionId, symbol: SYMBOL, side: "buy", quantity: "10", order_type: "limit", price: String(price) },
        token,
      );
      if (placed.status !== "pending") throw new Error(`order not pending: ${JSON.stringify(placed)}`);
      orders.push({ sessionId, orderId: placed.id, price, quantity: 10 });
    }
  });
  const ordersMs = Date.now() - ordersBegan;
  // The same orders straight into the fake's account, each carrying its engine order id as its remark.
  const atLongport = new Map<string, string>();
  for (const order of orders) {
    const placed = fake.account.submit(
      { symbol: SYMBOL, side: "Buy", orderType: "LO", quantity: order.quantity, price: order.price, remark: order.orderId },
      false,
    );
    atLongport.set(order.orderId, placed.orderId);
  }

  // A step: the minute's close passed (and its grace), the worker steps, the clocks at the next minute's open; its trades pushed.
  const trades = (open: number) => {
    for (const [offset, move] of [
      [5_000, 0],
      [25_000, 0.05],
      [50_000, -0.03],
    ] as const) {
      clocksAt(open + offset);
      fake.pushTrade(SYMBOL, { price: MARKET + move, volume: 100 });
    }
  };
  let open = clock;
  trades(open);
  await sleep(100);
  const step = async () => {
    stepPhases = {};
    clocksAt(open + 62_000);
    await feeding.tick();
    open += 60_000;
    clocksAt(open);
    trades(open);
    return stepPhases;
  };
  // The commands the worker takes each step, counted: the untimed steps go on until they are all taken.
  const commands = runtime.services.sessionCommands;
  const receive = commands.receive.bind(commands);
  let taken = 0;
  commands.receive = async (max: number) => {
    const received = await receive(max);
    taken += received.length;
    return received;
  };
  const warmBegan = Date.now();
  const warmSteps: { ms: number; commands: number }[] = [];
  for (let quiet = 0; warmSteps.length < WARM_STEPS || quiet < 2; ) {
    const began = Date.now();
    taken = 0;
    await step();
    warmSteps.push({ ms: steps[steps.length - 1]!.stepMs, commands: taken });
    quiet = taken === 0 ? quiet + 1 : 0;
    await sleep(Math.max(0, began + STEP_MS - Date.now()));
  }
  const warmMs = Date.now() - warmBegan;
  const routed = (await Promise.all(sessionIds.map((id) => runtime.services.trading.sessions.runs.get(id)))).reduce(
    (sum, run) => sum + (run?.snapshot?.pending.filter((o) => o.venue_order_id !== undefined).length ?? 0),
    0,
  );
  const submitsBefore = fake.calls.filter((c) => c.method === "POST" && c.path === "/v1/trade/order").length;

  // The timed steps.
  const leaseStore = new DynamoLeaseStore(runtime.services.db);
  const leasesBefore = new Map((await leaseStore.leases()).map((lease) => [lease.session_id, lease]));
  let requests = 0;
  runtime.services.db.client.middlewareStack.add((next) => (args) => ((requests += 1), next(args)), { step: "initialize", name: "benchLiveCount" });
  const writes = countWrites(runtime.services.db.client);
  const fills: { label: string; sessionId: string; orderId: string; step: number; at: number; pushed: boolean; bookedStep?: number; bookedAt?: number }[] = [];
  /** The session the fallback poll reads first (the first the worker drives that has orders at LongPort): the lost push is another's. */
  const firstDriven = [...((feeding as unknown as { driven: Map<string, unknown> }).driven?.keys() ?? [])][0];
  const fillOrder = async (index: number, pushed: boolean, stepIndex: number) => {
    // Different sessions, a different one of each's orders.
    let sessionIndex = (SESSIONS - 1 - index * 7 + SESSIONS * 10) % SESSIONS;
    if (!pushed && sessionIds[sessionIndex] === firstDriven) sessionIndex = (sessionIndex + 1) % SESSIONS;
    const order = orders.filter((o) => o.sessionId === sessionIds[sessionIndex])[index % ORDERS_PER_SESSION]!;
    const venueId = atLongport.get(order.orderId)!;
    if (!pushed) fake.faults.tradePushes.hold();
    fake.account.fill(venueId, {});
    // The fake pushes a turn later: the push is held, then lost.
    if (!pushed) {
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      if (fake.faults.tradePushes.discard() !== 1) throw new Error("the fill's push was not the one held");
    }
    fills.push({
      label: pushed ? `fill ${index + 1}` : "fill, push lost",
      sessionId: order.sessionId,
      orderId: order.orderId,
      step: stepIndex,
      at: Date.now(),
      pushed,
    });
  };
  const timedBegan = Date.now();
  const stepEnds: number[] = [];
  const stepRequests: number[] = [];
  const cpuMs: number[] = [];
  const dynamoCpuMs: number[] = [];
  writes.start();
  await profiled("steps", async () => {
    for (let i = 0; i < STEPS; i++) {
      const began = Date.now();
      const fillIndex = (i - 5) / FILL_EVERY;
      if (Number.isInteger(fillIndex) && fillIndex >= 0 && fillIndex < FILLS) await fillOrder(fillIndex, true, i);
      if (i === LOST_PUSH_STEP) await fillOrder(FILLS, false, i);
      const requestsBefore = requests;
      const cpuBefore = process.cpuUsage();
      const dynamoBefore = cpuSecondsOf(dynamo.process.pid) ?? Number.NaN;
      const timings = await step();
      const cpu = process.cpuUsage(cpuBefore);
      cpuMs.push((cpu.user + cpu.system) / 1000);
      dynamoCpuMs.push(((cpuSecondsOf(dynamo.process.pid) ?? Number.NaN) - dynamoBefore) * 1000);
      stepRequests.push(requests - requestsBefore);
      stepEnds.push(Date.now());
      const total = steps[steps.length - 1]!.stepMs;
      for (const [phase, spent] of Object.entries(timings)) phases.set(phase, [...(phases.get(phase) ?? []), spent]);
      phases.set("rest", [...(phases.get("rest") ?? []), total - Object.values(timings).reduce((a, b) => a + b, 0)]);
      // A fill is booked when its order has left the run's pending orders (read outside the step's time).
      for (const fill of fills.filter((f) => f.bookedStep === undefined)) {
        const run = await runtime.services.trading.sessions.runs.get(fill.sessionId);
        if (!run?.snapshot?.pending.some((o) => o.order_id === fill.orderId)) Object.assign(fill, { bookedStep: i, bookedAt: Date.now() });
      }
      await sleep(Math.max(0, began + STEP_MS - Date.now()));
    }
  });
  const timedEnded = Date.now();
  const written = writes.stop(STEPS);
  const timed = steps.slice(-STEPS);

  // Leases: every session still the task's, none taken again; the task's heartbeat alive.
  const leasesAfter = await leaseStore.leases();
  const beats = await leaseStore.liveBeats();
  const mine = beats.find((beat) => beat.task_id === TASK);
  const kept = leasesAfter.filter((lease) => lease.owner === TASK && leasesBefore.get(lease.session_id)?.since === lease.since).length;
  const beatGaps = stepEnds.slice(1).map((end, i) => end - stepEnds[i]!);

  // Fills: each order filled, one `order_filled` event each.
  const fillRows: Record<string, string | number>[] = [];
  for (const fill of fills) {
    const order = await call("GET", `/api/v1/trading/orders/${fill.orderId}`, undefined, token);
    const events: any[] = [];
    let cursor: string | undefined;
    do {
      const page = await call(
        "GET",
        `/api/v1/trading/sessions/${fill.sessionId}/logs?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        undefined,
        token,
      );
      events.push(...page.items);
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    fillRows.push({
      fill: fill.label,
      session: `live ${sessionIds.indexOf(fill.sessionId)}`,
      "at step": fill.step,
      "pushed by the fake": fill.pushed ? "yes" : "no (lost)",
      "order status": `${order.status} ${order.filled_quantity}/${order.quantity}`,
      "order_filled events": events.filter((e) => e.type === "order_filled" && e.data.order_id === fill.orderId).length,
      "booked after (steps)": fill.bookedStep === undefined ? `not within ${STEPS - fill.step}` : fill.bookedStep - fill.step + 1,
      "booked after (s)": fill.bookedAt === undefined ? "–" : ((fill.bookedAt - fill.at) / 1000).toFixed(1),
    });
  }

  // Trade calls.
  const tradeCalls = fake.tradeCalls();
  const allCalls = fake.calls.filter((c) => c.path.startsWith("/v1/trade/") || c.path.startsWith("/v1/asset/"));
  const inWindow = tradeCalls.filter((c) => c.at >= timedBegan && c.at <= timedEnded);
  const limited = allCalls.filter((c) => c.status === 429 || c.code === 429002 || c.code === 429001);
  const limitedInWindow = limited.filter((c) => c.at >= timedBegan && c.at <= timedEnded);
  const submits = inWindow.filter((c) => c.method === "POST" && c.path === "/v1/trade/order");
  const submitsInWindow = submits.length;
  // What the sessions sent in the timed steps, by the submit's body (side, type, time in force).
  const sentKinds = new Map<string, number>();
  for (const c of submits) {
    let kind = "unreadable body";
    try {
      const body = JSON.parse(c.body) as { side?: string; order_type?: string; time_in_force?: string };
      kind = `${body.side} ${body.order_type} ${body.time_in_force}`;
    } catch {}
    sentKinds.set(kind, (sentKinds.get(kind) ?? 0) + 1);
  }

  const sorted = timed.map((s) => s.stepMs).sort((a, b) => a - b);
  const p99 = percentile(sorted, 99);
  // The most trade calls in any 30 s: of the timed steps, and of the whole run.
  const busiestTimed = mostInWindow(
    inWindow.map((c) => c.at),
    WINDOW_MS,
  );
  const busiestRun = mostInWindow(
    tradeCalls.map((c) => c.at),
    WINDOW_MS,
  );
  const aim = (met: boolean) => (met ? "met" : "**missed**");
  const pushedFills = fillRows.filter((row) => row["pushed by the fake"] === "yes");
  const bookedOnce = pushedFills.filter((row) => row["order_filled events"] === 1 && String(row["order status"]).startsWith("filled")).length;
  // The fill whose push was lost: LongPort's orders are read again every LIVE_POLL_MS without a push (docs/live-trading.md "Trade calls").
  const lost = fills.find((fill) => !fill.pushed);
  const lostRow = fillRows.find((row) => row["pushed by the fake"] !== "yes");
  const lostWithinMs = LIVE_POLL_MS + 2 * STEP_MS;
  const lostBooked = lost?.bookedAt !== undefined && lost.bookedAt - lost.at <= lostWithinMs && lostRow?.["order_filled events"] === 1;
  tables.push([
    `Live sessions through the fake LongPort: ${SESSIONS} sessions × ${ORDERS_PER_SESSION} resting orders, ${STEPS} steps a second apart (${((timedEnded - timedBegan) / 1000).toFixed(1)} s)`,
    [
      { measure: "step time p50 (ms)", value: ms(percentile(sorted, 50)), aim: "", "": "" },
      { measure: "step time p95 (ms)", value: ms(percentile(sorted, 95)), aim: "", "": "" },
      { measure: "step time p99 (ms)", value: ms(p99), aim: "≤ 1,000", "": aim(p99 <= 1000) },
      { measure: "step time max (ms)", value: ms(sorted[sorted.length - 1]!), aim: "", "": "" },
      {
        measure: "trade calls, most in any 30 s of the timed steps",
        value: busiestTimed,
        aim: "≤ 30",
        "": aim(busiestTimed <= 30),
      },
      {
        measure: "trade calls, most in any 30 s of the whole run",
        value: busiestRun,
        aim: "≤ 30",
        "": aim(busiestRun <= 30),
      },
      {
        measure: "trade calls in the timed steps (submits among them)",
        value: `${inWindow.length} (${submitsInWindow}: ${[...sentKinds].map(([kind, count]) => `${count} ${kind}`).join(", ") || "none"})`,
        aim: "",
        "": "",
      },
      {
        measure: "answered 429002/429001, timed steps (whole run)",
        value: `${limitedInWindow.length} (${limited.length})`,
        aim: "0",
        "": aim(limited.length === 0),
      },
      {
        measure: "leases kept by the task, never retaken",
        value: `${kept} of ${SESSIONS}`,
        aim: `${SESSIONS}`,
        "": aim(kept === SESSIONS && mine !== undefined && mine.sessions === SESSIONS),
      },
      {
        measure: "longest wall time between two heartbeats (ms)",
        value: Math.max(...beatGaps),
        aim: `< ${LEASE_MS}`,
        "": aim(Math.max(...beatGaps) < LEASE_MS),
      },
      {
        measure: "fills pushed, booked once",
        value: `${bookedOnce} of ${pushedFills.length}`,
        aim: `${pushedFills.length}`,
        "": aim(bookedOnce === pushedFills.length),
      },
      ...(lost
        ? [
            {
              measure: "fill with its push lost, booked once by the fallback read",
              value:
                lost.bookedAt === undefined
                  ? `not within ${((timedEnded - lost.at) / 1000).toFixed(0)} s`
                  : `after ${((lost.bookedAt - lost.at) / 1000).toFixed(1)} s`,
              aim: `≤ ${lostWithinMs / 1000} s`,
              "": aim(lostBooked),
            },
          ]
        : []),
    ],
  ]);
  const phaseRow = (part: string, unit: string, values: number[]) => {
    const s = [...values].sort((a, b) => a - b);
    return { part, unit, p50: ms(percentile(s, 50)), p95: ms(percentile(s, 95)), p99: ms(percentile(s, 99)), max: ms(s[s.length - 1]!) };
  };
  tables.push([
    "Where a timed step's time goes (its parts timed from outside the worker), and its work",
    [
      phaseRow("the API's commands taken (`takeCommands`)", "ms", phases.get("takeCommands") ?? []),
      phaseRow("bars fed to the sessions and saved (`flush`)", "ms", phases.get("flush") ?? []),
      phaseRow("orders exchanged with LongPort (`routeOrders`)", "ms", phases.get("routeOrders") ?? []),
      phaseRow("the rest (relay, replays, metrics, heartbeats)", "ms", phases.get("rest") ?? []),
      phaseRow("the whole step", "ms", sorted),
      phaseRow("table requests", "per step", stepRequests),
      phaseRow("CPU, this process (worker, runtime, fake)", "ms per step", cpuMs),
      phaseRow("CPU, DynamoDB Local", "ms per step", dynamoCpuMs),
    ],
  ]);
  const kinds = [...written].sort(([, a], [, b]) => b - a);
  tables.push([
    "Items written to the table per timed step, by kind (mean)",
    [
      ...kinds.map(([item, count]) => ({ item, "per step": count.toFixed(2) })),
      { item: "all", "per step": kinds.reduce((sum, [, count]) => sum + count, 0).toFixed(2) },
    ],
  ]);
  tables.push(["The fills at the fake during the timed steps", fillRows]);
  const byPath = new Map<string, number>();
  for (const c of inWindow) byPath.set(`${c.method} ${c.path}`, (byPath.get(`${c.method} ${c.path}`) ?? 0) + 1);
  tables.push([
    "Trade calls in the timed steps, by request",
    [...byPath]
      .sort(([, a], [, b]) => b - a)
      .map(([request, count]) => ({ request, calls: count, "per 30 s": ((count * WINDOW_MS) / (timedEnded - timedBegan)).toFixed(1) })),
  ]);
  tables.push([
    "Setting up (untimed)",
    [
      { stage: `${SESSIONS} sessions started (each start reads the account's buying power: a trade call)`, "wall s": (startsMs / 1000).toFixed(1), detail: "" },
      { stage: "the worker takes them up (runs made, warmed from the fake's 1m history)", "wall s": (attachMs / 1000).toFixed(1), detail: "" },
      {
        stage: `${orders.length} orders through POST /api/v1/trading/orders (10 clients)`,
        "wall s": (ordersMs / 1000).toFixed(1),
        detail: `${orders.length} placed at the fake by remark`,
      },
      {
        stage: `${warmSteps.length} untimed steps: the orders' commands taken, the orders routed by remark, the accounts reconciled`,
        "wall s": (warmMs / 1000).toFixed(1),
        detail: `steps (ms, commands taken) ${warmSteps.map((w) => `${w.ms.toFixed(0)} (${w.commands})`).join(", ")}; ${routed} of ${orders.length} routed, ${submitsBefore} submits`,
      },
      { stage: "the whole bench", "wall s": ((Date.now() - benchStarted) / 1000).toFixed(1), detail: "" },
    ],
  ]);
} finally {
  await worker?.stop();
  await runtime.stop();
  await fake.close();
  await dynamo.stop();
}
for (const [title, rows] of tables) showTable(title, rows, markdown);
// The SDK's native threads keep the process alive.
process.exit(0);
