/**
 * Channel stream benchmark, in one run against the embedded runtime (DynamoDB Local, the local
 * WebSocket gateway and its @connections API on loopback, real `ws` clients):
 *
 *  1. the cost of a channel update from a fill to the socket with 1, 10 and 100 connected clients
 *     (and with none: storing the fill's records in the feed and looking up the connections):
 *     from the engine's fill events to every client holding the fill's `channel_update` (the
 *     messages are built from the engine, stored in the update feed, then posted to each connection,
 *     as the session worker does);
 *  2. `GET /updates?since=` latency over HTTP with 10,000 stored updates, for a few positions of `since`.
 *
 *   npx tsx bench/channels.ts [fills per client count]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import WebSocket from "ws";
import { ChannelPresets } from "../packages/core/src/channel-presets/index";
import { TradingEngine } from "../packages/core/src/engine/engine";
import type { StreamRecord } from "../packages/core/src/trading/channels/ports";
import * as Channels from "../packages/core/src/trading/channels/stream";
import { startLocalRuntime } from "../packages/local/src/runtime";
import { printTable } from "./support/table";

const fills = Number(process.argv[2] ?? 100);
const dataDir = mkdtempSync(join(tmpdir(), "tp-bench-channels-"));
const runtime = await startLocalRuntime({
  env: { DATA_DIR: dataDir, PORT: "0", SESSION_WORKER: "off", CAPTCHA_TEST_CODE: "bench", ADMIN_PASSWORD: "bench-password-1" },
  log: () => undefined,
});

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

async function call(method: string, path: string, token?: string, body?: unknown) {
  const response = await fetch(`${runtime.urls.base}${path}`, {
    method,
    headers: { "Content-Type": "application/json", ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as any;
}

try {
  const { access_token: token } = await call("POST", "/api/v1/login", undefined, { username: "admin", password: "bench-password-1", captcha: "bench" });
  const session = await call("POST", "/api/v1/trading/sessions", token, {
    session_name: "bench",
    trading_mode: "simulation",
    asset_mode: "simulated",
    initial_capital: "100000",
    tradable_symbols: ["AAPL.US"],
    config: { channels: ChannelPresets.get("balanced-multi").channels, venue: "bars" },
  });
  await call("POST", `/api/v1/channels/sessions/${session.id}/start`, token);
  const deps = runtime.services.trading.channels;
  const stored = (await deps.sessions.get(session.id))!;
  const run = (await deps.runs.get(session.id))!;

  // One fill on a restored engine: a manual buy, filled by the next bar.
  const engine = run.snapshot ? TradingEngine.restore(run.setup, run.snapshot) : new TradingEngine(run.setup);
  const at = Date.now();
  engine.onBar({ symbol: "AAPL.US", timestamp: at - 60_000, open: 100, high: 100, low: 100, close: 100, volume: 1 }, "1m");
  engine.submit({ channel_id: "balanced", symbol: "AAPL.US", side: "buy", quantity: 10 }, at);
  engine.drainEvents();
  engine.onBar({ symbol: "AAPL.US", timestamp: at, open: 101, high: 101, low: 101, close: 101, volume: 1 }, "1m");
  const fillEvents = engine.drainEvents();

  const rows: Record<string, string | number>[] = [];
  for (const clients of [0, 1, 10, 100]) {
    const sockets: WebSocket[] = [];
    let waiting: { remaining: number; done: () => void } | null = null;
    for (let i = 0; i < clients; i++) {
      const socket = new WebSocket(`${runtime.urls.websocket}/ws/trading/${session.id}?token=${token}`);
      await new Promise<void>((resolve, reject) => {
        socket.once("open", () => resolve());
        socket.once("error", reject);
      });
      socket.on("message", (data) => {
        if (waiting && JSON.parse(data.toString()).type === "channel_update" && --waiting.remaining === 0) waiting.done();
      });
      sockets.push(socket);
    }
    const messagesPerFill = Channels.streamMessagesOf(engine, stored, fillEvents).length;
    const latencies: number[] = [];
    const started = performance.now();
    for (let i = 0; i < fills; i++) {
      const t0 = performance.now();
      const arrived = clients === 0 ? Promise.resolve() : new Promise<void>((done) => (waiting = { remaining: clients, done }));
      await Channels.publish(deps, session.id, Channels.streamMessagesOf(engine, stored, fillEvents));
      await arrived;
      latencies.push(performance.now() - t0);
    }
    const seconds = (performance.now() - started) / 1000;
    rows.push({
      clients,
      fills,
      "messages/fill": messagesPerFill,
      "p50 ms": percentile(latencies, 50).toFixed(1),
      "p99 ms": percentile(latencies, 99).toFixed(1),
      "fills/s": (fills / seconds).toFixed(1),
      "deliveries/s": Math.round((fills * messagesPerFill * clients) / seconds).toLocaleString("en-US"),
    });
    for (const socket of sockets) socket.close(1000);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  printTable(`Fill to socket (channel_update at every client), ${new Date().toISOString()}`, rows);

  // 10,000 stored updates (after those above), then catch-up reads over HTTP.
  const feedSession = (
    await call("POST", "/api/v1/trading/sessions", token, {
      session_name: "feed",
      trading_mode: "simulation",
      asset_mode: "simulated",
      initial_capital: "100000",
      tradable_symbols: ["AAPL.US"],
      config: { channels: ChannelPresets.get("balanced-multi").channels, venue: "bars" },
    })
  ).id;
  const records: StreamRecord[] = [];
  const message = Channels.metricsMessagesOf(engine, at)[0]!;
  const appendStarted = performance.now();
  for (let i = 0; i < 100; i++)
    records.push(
      ...(await deps.feed.append(
        feedSession,
        Array.from({ length: 100 }, () => message),
        Date.now(),
      )),
    );
  const appendSeconds = (performance.now() - appendStarted) / 1000;
  const readRows: Record<string, string | number>[] = [];
  for (const [label, index] of [
    ["last 10", records.length - 11],
    ["last 1,000", records.length - 1001],
    ["from the start (1,000 of 10,000)", 0],
  ] as const) {
    const since = encodeURIComponent(records[index]!.timestamp);
    const latencies: number[] = [];
    let count = 0;
    for (let i = 0; i < 30; i++) {
      const t0 = performance.now();
      count = (await call("GET", `/api/v1/sessions/${feedSession}/updates?since=${since}`, token)).count;
      latencies.push(performance.now() - t0);
    }
    readRows.push({ since: label, returned: count, "p50 ms": percentile(latencies, 50).toFixed(1), "p99 ms": percentile(latencies, 99).toFixed(1) });
  }
  printTable(`GET /updates?since= with 10,000 stored updates (stored at ${Math.round(10_000 / appendSeconds).toLocaleString("en-US")} records/s)`, readRows);
} finally {
  await runtime.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
