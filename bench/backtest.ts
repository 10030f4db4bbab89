/**
 * Backtest speed, in one run:
 *  1. the engine loop: bars per second of an SMA crossover on one symbol through the full path
 *     (strategy, pre-trade checks, risk monitors, exact ledger, commission, events), on one core,
 *     at two fill densities (the slow crossover trades rarely, the fast one every few dozen bars),
 *     on the batch path a backtest chunk runs (`onColumns` over the bars' columns, in chunks of
 *     BACKTEST_CHUNK_BARS with the events drained after each, as the chunk task stores them)
 *     and on the streaming path live sessions run (`onBar`, bar by bar);
 *  2. bars per second from the candle store (DynamoDB Local, in memory) into the engine: a year
 *     of stored 1-minute candles read window by window and fed through `BarFeed`, from the table
 *     (the store's candle cache emptied before each run) and from the process's candle cache;
 *  3. the wall time of a one-year 1-minute backtest through the HTTP API end to end (POST
 *     /backtest/start, the state machine's chunks, the result), with the candles first imported
 *     from the simulated provider, then with them stored (the end learnt from the session's
 *     socket as the console learns it, and by polling progress), then with the process's candle
 *     cache emptied, and the time of each stage (POST, Prepare, each RunChunk, Finalize, GET
 *     result, the waits between) and of the storage calls inside them (the coverage check, the
 *     candles, the run's saves, ...); `BENCH_PROFILE=<path>` writes a CPU profile of each;
 *  4. parameter sweeps through the same runtime: 100 runs of the SMA crossover over five years of
 *     daily bars of one symbol, 25 over the year of 1-minute bars: wall time, runs/s, bars/s; and
 *     a walk-forward of 10 windows over the daily sweep's 100-point grid (1,000 in-sample runs, 10
 *     out of sample; the aim 60 s), with the time its runs spent in each task.
 *
 *  5. what AWS would bill for 3 and 4 (bench/support/aws-meter.ts, the on-demand prices of
 *     us-east-1 it carries; `BENCH_AWS_METER=0` leaves it out): every DynamoDB request of each
 *     backtest and of each timed sweep priced in write and read request units, by kind of item
 *     and in total, per run, and in dollars per run and per 1,000 runs. Left out: the bench's own
 *     progress polls (a backtest's every `BENCH_POLL_MS`, a sweep's every 20 ms, each a read of
 *     every run of the sweep; counted and priced apart) and the table-backed stand-in for SQS
 *     (`QueuedMessage` items and the polls of an empty queue, `QUEUE`), which AWS bills as SQS.
 *     And Step Functions (bench/support/step-functions.ts): the state transitions of the Standard
 *     executions, the Express children's requests and GB-seconds as the local runner ran them,
 *     beside what Standard children would have cost.
 *
 *   npx tsx bench/backtest.ts             (about two minutes)
 *   npx tsx bench/backtest.ts --markdown  (tables as Markdown, for docs/benchmarks.md)
 *   npx tsx bench/backtest.ts --loop      (the engine loop alone, about twenty seconds: repeat it on a busy machine)
 *   npx tsx bench/backtest.ts --feed      (the engine loop and the candle store rows, without the HTTP backtests)
 *   npx tsx bench/backtest.ts --api       (the HTTP backtests and the sweeps alone)
 *   npx tsx bench/backtest.ts --api --sweeps  (the sweeps and the walk-forward alone)
 *   npx tsx bench/backtest.ts --api --walk-forward  (the walk-forward alone)
 *   npx tsx bench/backtest.ts --api --e2e     (the one-year backtest through the HTTP API alone)
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import { subscribe } from "node:diagnostics_channel";
import type { IncomingMessage } from "node:http";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { configFromEnv } from "../packages/adapters/src/config";
import { ensureTable } from "../packages/adapters/src/dynamo/db";
import type { DynamoCandleStore } from "../packages/adapters/src/stores/candle-store";
import { createServices } from "../packages/adapters/src/services";
import { BarFeed } from "../packages/core/src/candles/bar-feed";
import { CandleBatches, type Candle } from "../packages/core/src/candles/candle-batch";
import { TradingEngine } from "../packages/core/src/engine/engine";
import { BACKTEST_CHUNK_BARS } from "../packages/core/src/workflows";
import type { BarColumns } from "../packages/core/src/strategies/strategy";
import { singleStrategySetup } from "../packages/core/src/engine/testing/setups";
import { Fees } from "../packages/core/src/fees/index";
import { defaults as riskDefaults } from "../packages/core/src/risk/risk";
import type { Bar } from "../packages/core/src/strategies/strategy";
import { startDynamoDbLocal } from "../packages/local/src/dynamodb-local";
import { embeddedRuntime, endToEndBacktest, sweeps, walkForward } from "./support/backtest-api";
import { markdownTable, printTable } from "./support/table";
import { AWS_PRICES, AwsMeter, dollars, type MeterReport, type Tally } from "./support/aws-meter";
import { STEP_FUNCTIONS_PRICES, priceWorkflows, type StepFunctionsBill } from "./support/step-functions";
import type { WorkflowUsage } from "../packages/local/src/workflow-runner";
import type { ApiClient } from "../test/support/api-client";
import { seededRandom } from "../packages/core/src/indicators/testing/random-bars";

const markdown = process.argv.includes("--markdown");
const BARS = Number(process.env.BENCH_BARS ?? 1_000_000);
const RUNS = 6;
/** The default risk rules with room for an all-in single-symbol strategy (every check still runs). */
const BENCH_RISK = { ...riskDefaults(), max_position_size: 1, max_loss_per_trade: 1, max_drawdown: 1, max_daily_loss: 1, max_daily_trades: 10_000 };

const table = (title: string, rows: Record<string, string | number>[]) => {
  if (!markdown) return printTable(title, rows);
  console.log(`\n**${title}**\n\n${markdownTable(rows)}`);
};

/** Best bars/s of RUNS runs (the first ones warm the JIT up), on the batch path (`columns`) or bar by bar. */
function engineLoop(bars: Bar[], columns: BarColumns | null, fast: number, slow: number, broker: boolean) {
  let best = 0;
  let fills = 0;
  for (let run = 0; run < RUNS; run++) {
    const engine = new TradingEngine({
      ...singleStrategySetup({
        symbols: ["AAPL.US"],
        timeframe: "1m",
        parameters: { fast_period: fast, slow_period: slow },
        risk: BENCH_RISK,
        execution: broker ? { commission: { model: "broker", broker_type: "longport" } } : { commission: { model: "percent", rate: 0.001 } },
      }),
      fees: broker ? Fees.defaults("longport") : null,
    });
    let filled = 0;
    const drain = () => {
      for (const event of engine.drainEvents()) if (event.type === "order_filled") filled++;
    };
    let seconds = 0;
    for (let from = 0; from < bars.length; from += BACKTEST_CHUNK_BARS) {
      const to = Math.min(bars.length, from + BACKTEST_CHUNK_BARS);
      const started = performance.now();
      if (columns) engine.onColumns(columns, from, to, "1m");
      else for (let i = from; i < to; i++) engine.onBar(bars[i]!, "1m");
      seconds += (performance.now() - started) / 1000;
      drain();
    }
    best = Math.max(best, bars.length / seconds);
    fills = filled;
  }
  return { best, fills };
}

/**
 * Minute bars whose log price reverts to 100 (Ornstein–Uhlenbeck, seeded): trends and reversals
 * at every scale, without the compounding drift of a plain random walk over a million bars.
 */
function minuteBars(count: number, seed: number, startMs: number): Bar[] {
  const random = seededRandom(seed);
  const bars: Bar[] = [];
  let log = Math.log(100);
  let close = 100;
  for (let i = 0; i < count; i++) {
    const open = close;
    log += 0.0005 * (Math.log(100) - log) + (random() - 0.5) * 0.004;
    close = Math.round(Math.exp(log) * 100) / 100;
    // Whole cents, as the provider's decimal prices parse (a sum of two such doubles need not be one).
    const high = (Math.round(Math.max(open, close) * 100) + Math.round(random() * 5)) / 100;
    const low = (Math.round(Math.min(open, close) * 100) - Math.round(random() * 5)) / 100;
    bars.push({ symbol: "AAPL.US", timestamp: startMs + i * 60_000, open, high, low, close, volume: 1000 });
  }
  return bars;
}

if (!process.argv.includes("--api")) {
  // 1. The engine loop on minute bars.
  const walk = minuteBars(BARS, 7, Date.UTC(2020, 0, 2, 14, 30));
  const column = (pick: (bar: Bar) => number) => Float64Array.from(walk, pick);
  const walkColumns: BarColumns = {
    symbol: "AAPL.US",
    msPerUnit: 1,
    timestamp: column((b) => b.timestamp),
    open: column((b) => b.open),
    high: column((b) => b.high),
    low: column((b) => b.low),
    close: column((b) => b.close),
    volume: column((b) => b.volume),
  };
  const loopRows = [
    { name: "SMA 50/200, percent commission", fast: 50, slow: 200, broker: false },
    { name: "SMA 50/200, LongPort fee schedule", fast: 50, slow: 200, broker: true },
    { name: "SMA 10/30, percent commission", fast: 10, slow: 30, broker: false },
  ].flatMap(({ name, fast, slow, broker }) =>
    [walkColumns, null].map((columns) => {
      const { best, fills } = engineLoop(walk, columns, fast, slow, broker);
      return {
        strategy: name,
        path: columns ? "batch (backtests)" : "streaming (live)",
        bars: BARS.toLocaleString("en-US"),
        fills: fills.toLocaleString("en-US"),
        "bars per fill": Math.round(BARS / Math.max(1, fills)),
        "bars/s": `${(best / 1e6).toFixed(2)} M`,
        aim: columns ? "10 M" : "",
      };
    }),
  );
  table("Engine loop (one symbol, one core, full portfolio/fee/risk path)", loopRows);

  if (process.argv.includes("--loop")) process.exit(0);

  // 2. Candle store → engine.
  const dynamo = await startDynamoDbLocal();
  try {
    const services = createServices(
      configFromEnv(
        { TABLE_NAME: `bench-${randomUUID()}`, DYNAMODB_ENDPOINT: dynamo.endpoint },
        new TextEncoder().encode("bench-secret-bench-secret-bench-secret"),
      ),
    );
    await ensureTable(services.db);
    // A year of regular-session minutes: 252 days × 390 bars.
    const candles: Candle[] = [];
    const yearWalk = minuteBars(252 * 390, 11, 0);
    let day = 0;
    for (let d = 0; day < 252; d++) {
      const date = new Date(Date.UTC(2024, 0, 2 + d));
      if (date.getUTCDay() === 0 || date.getUTCDay() === 6) continue;
      for (let m = 0; m < 390; m++) {
        const bar = yearWalk[day * 390 + m]!;
        candles.push({
          timestamp: date.getTime() / 1000 + 14.5 * 3600 + m * 60,
          open: bar.open,
          high: bar.high,
          low: bar.low,
          close: bar.close,
          volume: bar.volume,
          turnover: 0,
          trade_session: "Intraday",
        });
      }
      day++;
    }
    await services.candles.upsert("AAPL.US", "1m", CandleBatches.fromCandles(candles));
    const window: [number, number] = [Date.UTC(2024, 0, 1) / 1000, Date.UTC(2025, 0, 1) / 1000 - 1];
    const feedRows = [];
    // One untimed pass first: DynamoDB Local's JVM warms up on the first reads.
    await new BarFeed(services.candles, [{ symbol: "AAPL.US", timeframe: "1m" }], window[0], window[1], 0).run(Number.MAX_SAFE_INTEGER, () => undefined);
    const store = services.candles as DynamoCandleStore;
    for (const [withEngine, cached] of [
      [false, false],
      [true, false],
      [false, true],
      [true, true],
    ]) {
      let best = 0;
      let fed = 0;
      for (let run = 0; run < 4; run++) {
        if (!cached) store.cache.clear();
        const engine = new TradingEngine(
          singleStrategySetup({
            symbols: ["AAPL.US"],
            timeframe: "1m",
            parameters: { fast_period: 50, slow_period: 200 },
            risk: BENCH_RISK,
            execution: { commission: { model: "percent", rate: 0.001 } },
          }),
        );
        let sink = 0;
        const feed = new BarFeed(services.candles, [{ symbol: "AAPL.US", timeframe: "1m" }], window[0], window[1], 0);
        const started = performance.now();
        const result = await feed.run(Number.MAX_SAFE_INTEGER, withEngine ? engine : (bar) => void (sink += bar.close));
        best = Math.max(best, result.fed / ((performance.now() - started) / 1000));
        fed = result.fed;
      }
      feedRows.push({
        path: `${withEngine ? "candle store → BarFeed → engine" : "candle store → BarFeed"}${cached ? " (the process's candle cache)" : ""}`,
        bars: fed.toLocaleString("en-US"),
        "bars/s": `${(best / 1e6).toFixed(2)} M`,
        aim: "1 M",
      });
    }
    table("Candle store into the engine (a year of 1-minute bars, DynamoDB Local in memory)", feedRows);
  } finally {
    await dynamo.stop();
  }
}
if (process.argv.includes("--feed")) process.exit(0);

// 5. Priced as AWS bills: the meter's helpers for 3 and 4.

/** Prices the HTTP backtests and the sweeps as AWS bills them (`BENCH_AWS_METER=0`: not). */
const METER = process.env.BENCH_AWS_METER !== "0";
/** Kinds the embedded runtime keeps in the table that AWS keeps in SQS: the local queue's messages, and its reads of an empty queue (priced under the partition's prefix). */
const SQS_ON_AWS = new Set(["QueuedMessage", "QUEUE"]);
/** The bench's progress polls: a backtest's progress and a sweep's (not its result). */
const POLL = /^\/api\/v1\/backtest\/(?:sweeps\/[^/?]+|[^/?]+\/progress)(?:\?|$)/;
type Row = Record<string, string | number>;
type Handler = (args: unknown) => Promise<unknown>;

/**
 * Whether the HTTP request being served is one of the bench's progress polls: set as the server
 * takes each request (node publishes `http.server.request.start` just before the `request` event,
 * in the same tick), so every storage call the request makes carries it.
 */
const servingPoll = new AsyncLocalStorage<boolean>();
subscribe("http.server.request.start", (message) => {
  const { request } = message as { request: IncomingMessage };
  servingPoll.enterWith(request.method === "GET" && POLL.test(request.url ?? ""));
});

/**
 * The meter on `db`, pricing only the requests `counted()` admits (asked as each is sent, in its
 * caller's async context): the meter attaches through the client's middleware stack, and this
 * hands it one whose middleware passes the others by.
 */
function meterOf(db: { client: DynamoDBDocumentClient }, counted: () => boolean): AwsMeter {
  const stack = db.client.middlewareStack as unknown as { add: (middleware: unknown, options: unknown) => void; remove: (name: string) => boolean };
  const middlewareStack = {
    add: (middleware: (next: Handler, context: unknown) => Handler, options: unknown) =>
      stack.add((next: Handler, context: unknown) => {
        const metered = middleware(next, context);
        return (args: unknown) => (counted() ? metered(args) : next(args));
      }, options),
    remove: (name: string) => stack.remove(name),
  };
  return AwsMeter.attach({ client: { middlewareStack } as unknown as DynamoDBDocumentClient });
}

/** What the meters priced from one of the client's requests that `cuts` names to the next. */
interface Stretch {
  /** The request that opened it, and its answer. */
  request: string;
  answer?: any;
  /** Everything but the bench's progress polls; the polls alone, and how many the client sent. */
  work?: MeterReport;
  polls?: MeterReport;
  pollCalls: number;
  /** Step Functions' part: what the local runner metered in the stretch, priced. */
  sfn?: StepFunctionsBill;
  usageFrom: number;
}

/** Cuts the meters' reports at the client's requests `cuts` names (the work between two is the first one's). */
function stretches(
  client: ApiClient,
  meters: { work: AwsMeter; polls: AwsMeter },
  usage: readonly WorkflowUsage[],
  cuts: (method: string, path: string) => boolean,
) {
  const done: Stretch[] = [];
  let open: Stretch | undefined;
  const close = () => {
    if (open) done.push(Object.assign(open, { work: meters.work.report(), polls: meters.polls.report(), sfn: priceWorkflows(usage.slice(open.usageFrom)) }));
    open = undefined;
    meters.work.reset();
    meters.polls.reset();
  };
  const expect = client.expect;
  client.expect = (async (method: string, path: string, status: number, body?: unknown) => {
    if (!cuts(method, path)) {
      if (open && method === "GET" && POLL.test(path)) open.pollCalls += 1;
      return expect.call(client, method, path, status, body);
    }
    close();
    const stretch: Stretch = (open = { request: `${method} ${path}`, pollCalls: 0, usageFrom: usage.length });
    stretch.answer = await expect.call(client, method, path, status, body);
    return stretch.answer;
  }) as ApiClient["expect"];
  return {
    /** The stretches, the last one closed after `settleMs` (a workflow reports its last tasks after its result is out). */
    async end(settleMs = 500): Promise<Stretch[]> {
      await new Promise((resolve) => setTimeout(resolve, settleMs));
      close();
      client.expect = expect;
      return done;
    },
  };
}

/** Units by kind summed over reports. */
function kinds(reports: MeterReport[]): Map<string, Tally> {
  const sums = new Map<string, Tally>();
  for (const report of reports)
    for (const [kind, units] of report.byKind) {
      const sum = sums.get(kind) ?? { requests: 0, items: 0, wru: 0, rru: 0 };
      sums.set(kind, { requests: sum.requests + units.requests, items: sum.items + units.items, wru: sum.wru + units.wru, rru: sum.rru + units.rru });
    }
  return sums;
}

/** DynamoDB's units of reports, the kinds AWS keeps in SQS left out. */
function dynamoUnits(reports: MeterReport[]): { wru: number; rru: number } {
  let [wru, rru] = [0, 0];
  for (const [kind, units] of kinds(reports)) if (!SQS_ON_AWS.has(kind)) [wru, rru] = [wru + units.wru, rru + units.rru];
  return { wru, rru };
}

const units = (value: number) => value.toLocaleString("en-US", { maximumFractionDigits: value < 100 ? 1 : 0 });
const usd = (value: number) => `$${value >= 10 ? value.toFixed(0) : value.toPrecision(2)}`;

/** Priced cases: a name, the stretches of its runs (each stretch `runs` runs). */
type Priced = { name: string; stretches: Stretch[]; runs: number };

/** One row per kind (cells `write / read` units per run), one column per case; the DynamoDB total last. */
function kindRows(cases: Priced[]): Row[] {
  const perCase = cases.map(({ name, stretches, runs }) => ({ name, runs: stretches.length * runs, sums: kinds(stretches.map((s) => s.work!)) }));
  const all = kinds(cases.flatMap(({ stretches }) => stretches.map((s) => s.work!)));
  const order = [...all].sort((a, b) => Number(SQS_ON_AWS.has(a[0])) - Number(SQS_ON_AWS.has(b[0])) || b[1].wru - a[1].wru || b[1].rru - a[1].rru);
  const cell = (wru: number, rru: number, runs: number) => `${units(wru / runs)} / ${units(rru / runs)}`;
  const rows: Row[] = order.map(([kind]) => ({
    kind: SQS_ON_AWS.has(kind) ? `${kind} (SQS on AWS: not in the total)` : kind,
    ...Object.fromEntries(perCase.map(({ name, runs, sums }) => [name, sums.has(kind) ? cell(sums.get(kind)!.wru, sums.get(kind)!.rru, runs) : "–"])),
  }));
  rows.push({
    kind: "all DynamoDB",
    ...Object.fromEntries(
      cases.map(({ name, stretches, runs }) => {
        const { wru, rru } = dynamoUnits(stretches.map((s) => s.work!));
        return [name, cell(wru, rru, stretches.length * runs)];
      }),
    ),
  });
  return rows;
}

/** One row per case: its DynamoDB units and dollars per run and per 1,000 runs, and the bench's polls left out. */
function totalRows(cases: Priced[]): Row[] {
  return cases.map(({ name, stretches, runs }) => {
    const count = stretches.length * runs;
    const { wru, rru } = dynamoUnits(stretches.map((s) => s.work!));
    const polls = dynamoUnits(stretches.map((s) => s.polls!));
    const calls = stretches.reduce((sum, s) => sum + s.pollCalls, 0);
    return {
      priced: name,
      runs: count,
      "WRU per run": units(wru / count),
      "RRU per run": units(rru / count),
      "$ per run": usd(dollars(wru, rru) / count),
      "WRU per 1,000 runs": units((wru / count) * 1000),
      "RRU per 1,000 runs": units((rru / count) * 1000),
      "$ per 1,000 runs": usd((dollars(wru, rru) / count) * 1000),
      "bench's polls left out, per run": calls > 0 ? `${units(calls / count)} polls, ${units(polls.rru / count)} RRU` : "–",
    };
  });
}

/**
 * One row per case: Step Functions per run (Standard transitions, Express children and their
 * GB-seconds), in dollars per 1,000 runs as deployed and had the children been Standard, and
 * with DynamoDB's dollars beside.
 */
function stepFunctionRows(cases: Priced[]): Row[] {
  return cases.map(({ name, stretches, runs }) => {
    const count = stretches.length * runs;
    const bills = stretches.map((s) => s.sfn!);
    const sum = (pick: (bill: StepFunctionsBill) => number) => bills.reduce((total, bill) => total + pick(bill), 0);
    const { wru, rru } = dynamoUnits(stretches.map((s) => s.work!));
    const dynamo = dollars(wru, rru);
    const children = sum((b) => b.children);
    return {
      priced: name,
      runs: count,
      "Standard transitions per run": units(sum((b) => b.transitions) / count),
      "Express children per run": units(sum((b) => b.expressRequests) / count),
      "child s (mean, local)": children > 0 ? (sum((b) => b.childMs) / children / 1000).toFixed(2) : "–",
      "Express GB-s per run": sum((b) => b.expressGbSeconds) > 0 ? (sum((b) => b.expressGbSeconds) / count).toFixed(4) : "–",
      "$ per 1,000 runs": usd((sum((b) => b.dollars) / count) * 1000),
      "$ per 1,000 runs, children Standard": children > 0 ? usd((sum((b) => b.dollarsChildrenStandard) / count) * 1000) : "–",
      "DynamoDB + Step Functions, $ per 1,000 runs": usd(((dynamo + sum((b) => b.dollars)) / count) * 1000),
    };
  });
}

const sfnPricing = `Step Functions, ${STEP_FUNCTIONS_PRICES.region}: $${STEP_FUNCTIONS_PRICES.standardTransition * 1e6} per million Standard transitions, Express $${STEP_FUNCTIONS_PRICES.expressRequest * 1e6} per million requests + $${STEP_FUNCTIONS_PRICES.expressGbSecond} per GB-s at ${STEP_FUNCTIONS_PRICES.expressMemoryMb} MB`;

/** What the meter priced less exactly, or kept apart (cancelled transactions), if anything. */
function meterNotes(cases: Priced[]): void {
  const reports = cases.flatMap(({ stretches }) => stretches.map((s) => s.work!));
  const notes = new Map<string, number>();
  for (const report of reports) for (const [reason, count] of Object.entries(report.approximations)) notes.set(reason, (notes.get(reason) ?? 0) + count);
  const cancelled = reports.reduce((sum, report) => ({ transactions: sum.transactions + report.cancelled.transactions, wru: sum.wru + report.cancelled.wru }), {
    transactions: 0,
    wru: 0,
  });
  if (cancelled.transactions > 0) notes.set(`cancelled transactions, not in the totals (${units(cancelled.wru)} WRU)`, cancelled.transactions);
  if (notes.size > 0) console.log(`\nThe meter's notes: ${[...notes].map(([reason, count]) => `${reason} (${count})`).join("; ")}`);
}

const pricing = `DynamoDB on demand, ${AWS_PRICES.region}: $${AWS_PRICES.write * 1e6} per million WRU, $${AWS_PRICES.read * 1e6} per million RRU, since ${AWS_PRICES.since}`;

/** A backtest's case from its label in `endToEndBacktest`'s rows. */
const backtestCase = (label: string) =>
  label.startsWith("candles imported")
    ? "candles imported first"
    : label.includes("emptied")
      ? "candle cache emptied"
      : label.includes("polled")
        ? "stored, progress polled"
        : "stored, end from the socket";

// 3. Through the HTTP API of the embedded runtime.
const runtime = await embeddedRuntime();
const { db } = runtime.runtime.services;
// Before the backtests write what they price: the meter prices a write over an item by the item it saw.
const meters = METER ? { work: meterOf(db, () => servingPoll.getStore() !== true), polls: meterOf(db, () => servingPoll.getStore() === true) } : undefined;
try {
  const walkForwardAlone = process.argv.includes("--walk-forward");
  if (!process.argv.includes("--sweeps") && !walkForwardAlone) {
    const cut = meters && stretches(runtime.client, meters, runtime.workflowUsage, (method, path) => method === "POST" && path === "/api/v1/trading/sessions");
    const endToEnd = await endToEndBacktest(runtime);
    table("One-year 1-minute backtest through the HTTP API (embedded runtime, DynamoDB Local on disk)", endToEnd.runs);
    table("Its stages (the state machine's tasks as the local runner ran them; waits: the runner's and the client's polling)", endToEnd.stages);
    table("Inside them: the storage calls (summed; concurrent calls and the progress polls' reads included)", endToEnd.storage);
    if (cut) {
      // One stretch per backtest, in the order of its rows (each opens with the POST of its session).
      const priced = await cut.end();
      const cases = new Map<string, Stretch[]>();
      for (const [at, run] of endToEnd.runs.entries()) {
        const name = backtestCase(String(run.run));
        cases.set(name, [...(cases.get(name) ?? []), priced[at]!]);
      }
      const backtests = [...cases].map(([name, stretches]) => ({ name, stretches, runs: 1 }));
      table(`The one-year 1-minute backtest priced as AWS bills: write / read request units per run, by kind (${pricing})`, kindRows(backtests));
      table("Per run and per 1,000 runs", totalRows(backtests));
      table(`Step Functions per run and per 1,000 runs (${sfnPricing})`, stepFunctionRows(backtests));
      meterNotes(backtests);
    }
  }
  // 4. Parameter sweeps through the same runtime.
  if (!process.argv.includes("--e2e") && !walkForwardAlone) {
    const concurrency = runtime.runtime.services.trading.backtests.sweepConcurrency;
    const cut =
      meters &&
      stretches(
        runtime.client,
        meters,
        runtime.workflowUsage,
        (method, path) => method === "POST" && (path === "/api/v1/trading/sessions" || path === "/api/v1/backtest/sweeps"),
      );
    const rows = await sweeps(runtime, concurrency);
    table("Parameter sweeps of the SMA crossover (embedded runtime, the sweep machine's Map at SWEEP_MAX_CONCURRENCY)", rows);
    if (cut) {
      // The timed sweeps, in the order of their rows: each case's second POST (its first, of one run, imports the candles).
      const timed = (await cut.end()).filter((stretch) => stretch.request.endsWith("/sweeps") && stretch.answer.runs > 1);
      const priced = rows.map((row, at) => ({ name: String(row.sweep), stretches: [timed[at]!], runs: Number(row.runs) }));
      table(`The sweeps priced as AWS bills: write / read request units per run, by kind (${pricing})`, kindRows(priced));
      table("Per run and per 1,000 runs", totalRows(priced));
      table(`Step Functions per run and per 1,000 runs (${sfnPricing})`, stepFunctionRows(priced));
      meterNotes(priced);
    }
  }
  // 4'. A walk-forward through the same runtime: the sweep machine over 10 windows.
  if (!process.argv.includes("--e2e")) {
    const concurrency = runtime.runtime.services.trading.backtests.sweepConcurrency;
    const cut =
      meters &&
      stretches(
        runtime.client,
        meters,
        runtime.workflowUsage,
        (method, path) => method === "POST" && (path === "/api/v1/trading/sessions" || path === "/api/v1/backtest/sweeps"),
      );
    const { rows, stages, storage } = await walkForward(runtime, concurrency);
    table("Walk-forward of the SMA crossover (embedded runtime, the sweep machine's Map at SWEEP_MAX_CONCURRENCY)", rows);
    table("Its runs' time by task (summed over the runs; the runner's observed task times)", stages);
    table("Inside them: the storage calls and the progress pushes (summed over the runs)", storage);
    if (cut) {
      // The timed POST's stretch: the one whose answer is the walk-forward (its first, of one run, imports the candles).
      const timed = (await cut.end()).filter((stretch) => stretch.request.endsWith("/sweeps") && stretch.answer.runs > 1);
      const runs = Number(rows[0]!["in-sample runs"]) + Number(rows[0]!["out-of-sample runs"]);
      const priced = [{ name: String(rows[0]!["walk-forward"]), stretches: [timed[0]!], runs }];
      table(`The walk-forward priced as AWS bills: write / read request units per run, by kind (${pricing})`, kindRows(priced));
      table("Per run and per 1,000 runs", totalRows(priced));
      table(`Step Functions per run and per 1,000 runs (${sfnPricing})`, stepFunctionRows(priced));
      meterNotes(priced);
    }
  }
} finally {
  meters?.work.detach();
  meters?.polls.detach();
  await runtime.stop();
}
