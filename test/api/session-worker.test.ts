import { describe, expect, it } from "vitest";
import { DynamoWorkerStore } from "../../packages/adapters/src/stores/worker-store";
import { TradingEngine } from "../../packages/core/src/engine/engine";
import type { EngineEvent } from "../../packages/core/src/engine/events";
import { emitSessionStatus } from "../../packages/core/src/trading/run/status";
import { recentBars } from "../../packages/core/src/trading/drivers/warm-up";
import type { SessionWorker } from "../../packages/worker/src/session-worker";
import { barsSessionConfig, WorkerHarness } from "../support/worker-harness";

/**
 * The session worker against DynamoDB Local and the simulated market on a manual clock: a
 * simulation session trades on 1-minute bars as they close, the worker is killed and restarted
 * mid-session, and the event log equals that of one engine fed the same stored bars without
 * interruption.
 */
// The US regular session opens (EDT).
const h = WorkerHarness.forSuite("2024-03-15T13:30:00Z");
const minutes = (worker: SessionWorker, count: number) => h.minutes(worker, count);

const config = barsSessionConfig;

describe("the session worker", () => {
  let sessionId: string;

  // Two hours of minutes, each saved in its step: a minute or so on DynamoDB Local when the machine is busy.
  it("drives a running simulation session on closed 1-minute bars, survives a restart, and matches an uninterrupted engine", { timeout: 120_000 }, async () => {
    const session = await h.api.json("POST", "/api/v1/trading/sessions", 201, {
      token: h.token,
      body: { session_name: "live AAPL", trading_mode: "simulation", asset_mode: "simulated", initial_capital: "100000", config },
    });
    sessionId = session.id;
    await h.api.services.realtime.connections.add({
      connection_id: "watcher",
      topic: `session:${sessionId}`,
      user_id: "x",
      connected_at: new Date().toISOString(),
      expires_at: Math.floor(Date.now() / 1000) + 7200,
    });
    await h.api.json("POST", `/api/v1/trading/sessions/${sessionId}/start`, 200, { token: h.token });

    const first = await h.newWorker();
    await minutes(first, 60);
    // Killed: nothing it held in memory matters. A new worker picks the session up from its snapshot.
    await first.stop();
    const second = await h.newWorker();
    await minutes(second, 60);

    const status = await h.api.json("GET", `/api/v1/trading/sessions/${sessionId}/engine/status`, 200, { token: h.token });
    expect(status.run_id).toBe(sessionId);
    expect(status.worker).toEqual({
      alive: true,
      last_heartbeat: new Date(h.clock).toISOString(),
      sessions: 1,
      feeds: ["AAPL.US|1m"],
      last_bar_at: "2024-03-15T15:30:00.000Z",
    });
    // The data sync status reports the same worker.
    expect((await h.api.json("GET", "/api/v1/data-sync/status", 200, { token: h.token })).worker).toMatchObject({ alive: true, feeds: ["AAPL.US|1m"] });
    const run = (await h.api.services.trading.sessions.runs.get(sessionId))!;
    // Minutes 13:30–15:30 closed; the restart lost or repeated none of them.
    expect(run.progress).toMatchObject({ bars: 120, cursor_ms: Date.parse("2024-03-15T15:30:00Z") });

    // The closed candles were stored; fed to one engine without interruption, warmed up on the
    // same history (the previous session's last minutes), they give the same events.
    const stored = await h.api.services.candles.load("AAPL.US", "1m", ["2024-03-15"]);
    const batch = stored.get("2024-03-15")!;
    const engine = new TradingEngine(run.setup);
    const [need] = engine.warmupNeeds();
    const history = await recentBars(await h.api.services.marketData(), "AAPL.US", "1m", need!.bars, Date.parse("2024-03-15T13:30:00Z"));
    expect(history.map((bar) => new Date(bar.timestamp).toISOString())).toEqual(Array.from({ length: 9 }, (_, i) => `2024-03-14T19:${51 + i}:00.000Z`));
    engine.warmUp(need!, history);
    // The session's start is its channel's, recorded with the run the worker made at the open.
    emitSessionStatus(engine, { action: "start", previous: "created", status: "running" }, Date.parse("2024-03-15T13:30:00Z"));
    let fed = 0;
    for (let i = 0; i < batch.length; i++) {
      const ts = batch.timestamp[i]! * 1000;
      if (ts < Date.parse("2024-03-15T13:30:00Z") || ts >= Date.parse("2024-03-15T15:30:00Z")) continue;
      engine.onBar(
        { symbol: "AAPL.US", timestamp: ts, open: batch.open[i]!, high: batch.high[i]!, low: batch.low[i]!, close: batch.close[i]!, volume: batch.volume[i]! },
        "1m",
      );
      fed++;
    }
    expect(fed).toBe(120);
    const expected = engine.drainEvents();
    const logged: EngineEvent[] = [];
    let cursor: string | undefined;
    do {
      const page = await h.api.services.trading.sessions.runs.events(sessionId, { limit: 500, cursor });
      logged.push(...page.items.map(({ run_id: _r, level: _l, category: _c, ...event }) => event as EngineEvent));
      cursor = page.cursor;
    } while (cursor);
    expect(logged).toEqual(expected);
    const fills = expected.filter((e) => e.type === "order_filled");
    expect(fills.length).toBeGreaterThan(2);

    // The views read the run: orders filled, a position or cash moved; the socket saw every event.
    const orders = await h.api.json("GET", `/api/v1/trading/sessions/${sessionId}/orders?status=filled`, 200, { token: h.token });
    expect(orders.orders).toHaveLength(fills.length);
    // Besides the events, the socket carries channel updates and metrics (docs/channels.md); each event once, in order.
    // The run started with its warm-up's log line, which the worker that made the run pushed first.
    expect(expected[0]!.data.warm_up).toEqual({ symbol: "AAPL.US", timeframe: "1m", bars: 9, wanted: 9 });
    const { items } = await h.api.json("GET", `/api/v1/trading/sessions/${sessionId}/logs?limit=1`, 200, { token: h.token });
    expect(items[0]).toMatchObject({
      level: "info",
      message: "Strategies on AAPL.US 1m warmed up with 9 of 9 bars (2024-03-14T19:51:00.000Z to 2024-03-14T19:59:00.000Z)",
    });
    const events = h.pushed.filter((message) => message.type !== "channel_update" && message.type !== "channel_metrics");
    expect(events.map((message) => message.data.sequence)).toEqual(expected.map((event) => event.sequence));
    expect(events[0]).toMatchObject({ type: "log", data: { event_time: new Date(expected[0]!.time).toISOString() } });
    expect(h.pushed.filter((message) => message.type === "channel_update" && message.data.cause === "fill")).toHaveLength(fills.length);

    const beat = (await new DynamoWorkerStore(h.api.services.db).last())!;
    expect(beat).toMatchObject({ at: h.clock, sessions: 1, feeds: ["AAPL.US|1m"] });
    // Nothing per session in the heartbeat (it stays small whatever the sessions): the status reads the run's last bar.
    expect(beat).not.toHaveProperty("last_bar");
  });

  it("takes a manual order into the running session, which fills on the next bar that opens after it", async () => {
    const worker = h.workers.at(-1)!;
    const before = (await h.api.json("GET", `/api/v1/trading/sessions/${sessionId}/positions/latest`, 200, { token: h.token })).positions;
    const held = before.find((p: { symbol: string }) => p.symbol === "AAPL.US")?.quantity ?? "0";
    const side = Number(held) > 0 ? "sell" : "buy";
    h.clock += 30_000; // mid-minute: the bar now forming opened before the order
    const placed = await h.api.json("POST", "/api/v1/trading/orders", 201, {
      token: h.token,
      body: { session_id: sessionId, symbol: "AAPL.US", side, order_type: "market", quantity: Number(held) > 0 ? held : "5" },
    });
    expect(placed).toMatchObject({ session_id: sessionId, status: "pending", symbol: "AAPL.US", side, reason: "manual order" });
    await minutes(worker, 1); // the bar that opened before the order closes: not filled on it
    expect((await h.api.json("GET", `/api/v1/trading/orders/${placed.id}`, 200, { token: h.token })).status).toBe("pending");
    // The API wrote the order on the run; its command told the worker, which h.pushed the event to the socket.
    const pushedOf = (type: string, orderId: string) => h.pushed.filter((m) => m.type === type && m.data.order_id === orderId);
    expect(pushedOf("order_submitted", placed.id)).toHaveLength(1);
    await minutes(worker, 1);
    const filled = await h.api.json("GET", `/api/v1/trading/orders/${placed.id}`, 200, { token: h.token });
    expect(filled).toMatchObject({ status: "filled", filled_at: expect.any(String) });
    expect(Date.parse(filled.filled_at)).toBeGreaterThan(Date.parse(placed.submitted_at));

    // A resting limit far below the market stays pending until cancelled; filled and cancelled orders cannot be.
    const resting = await h.api.json("POST", "/api/v1/trading/orders", 201, {
      token: h.token,
      body: { session_id: sessionId, symbol: "AAPL.US", side: "buy", order_type: "limit", price: "1", quantity: "1" },
    });
    expect(resting.status).toBe("pending");
    await minutes(worker, 1);
    // Replaced: new quantity and price, still pending; a replacement the checks deny leaves it as it was.
    const replaced = await h.api.json("PUT", `/api/v1/trading/orders/${resting.id}`, 200, { token: h.token, body: { quantity: "2", price: "1.5" } });
    expect(replaced).toMatchObject({ replaced: true, denials: [], order: { id: resting.id, status: "pending", quantity: "2", price: "1.5" } });
    const refused = await h.api.json("PUT", `/api/v1/trading/orders/${resting.id}`, 200, { token: h.token, body: { quantity: "1000000" } });
    expect(refused.replaced).toBe(false);
    expect(refused.denials.map((d: { reason: string }) => d.reason)).toContain("INSUFFICIENT_CASH");
    expect(refused.order).toMatchObject({ quantity: "2", price: "1.5", status: "pending" });
    expect((await h.api.json("PUT", `/api/v1/trading/orders/${placed.id}`, 422, { token: h.token, body: { price: "1" } })).detail).toEqual([
      expect.objectContaining({ loc: ["body", "price"] }),
    ]);
    await h.api.json("PUT", `/api/v1/trading/orders/${resting.id}`, 422, { token: h.token, body: {} });
    expect((await h.api.json("PUT", `/api/v1/trading/orders/${placed.id}`, 409, { token: h.token, body: { quantity: "3" } })).error_code).toBe(
      "ORDER_NOT_REPLACEABLE",
    );
    const log = await h.api.json("GET", `/api/v1/trading/sessions/${sessionId}/logs?level=warning`, 200, { token: h.token });
    expect(JSON.stringify(log)).toContain(`Replace of order ${resting.id} denied`);
    const cancelled = await h.api.json("POST", `/api/v1/trading/orders/${resting.id}/cancel`, 200, { token: h.token });
    await worker.takeCommands();
    expect(pushedOf("order_replaced", resting.id).map((m) => m.data.quantity)).toEqual([2]);
    expect(pushedOf("order_cancelled", resting.id)).toHaveLength(1);
    expect(h.pushed.filter((m) => m.type === "log" && String(m.data.message).startsWith(`Replace of order ${resting.id} denied`))).toHaveLength(1);
    expect(cancelled).toMatchObject({ id: resting.id, status: "cancelled", cancelled_at: expect.any(String) });
    expect((await h.api.json("POST", `/api/v1/trading/orders/${resting.id}/cancel`, 409, { token: h.token })).error_code).toBe("ORDER_NOT_CANCELLABLE");
    expect((await h.api.json("POST", `/api/v1/trading/orders/${placed.id}/cancel`, 409, { token: h.token })).current_status).toBe("filled");
    await h.api.json("POST", "/api/v1/trading/orders/no-such-order/cancel", 404, { token: h.token });

    // Denials are data; bad orders are 4xx.
    const denied = await h.api.json("POST", "/api/v1/trading/orders", 201, {
      token: h.token,
      body: { session_id: sessionId, symbol: "AAPL.US", side: "buy", quantity: "1000000" },
    });
    expect(denied.status).toBe("denied");
    expect(denied.denials.length).toBeGreaterThan(0);
    expect(
      (
        await h.api.json("POST", "/api/v1/trading/orders", 400, {
          token: h.token,
          body: { session_id: sessionId, symbol: "700.HK", side: "buy", quantity: "100" },
        })
      ).error_code,
    ).toBe("SYMBOL_NOT_IN_SESSION");
    expect(
      (
        await h.api.json("POST", "/api/v1/trading/orders", 404, {
          token: h.token,
          body: { session_id: sessionId, channel_id: "nope", symbol: "AAPL.US", side: "buy", quantity: "1" },
        })
      ).error_code,
    ).toBe("CHANNEL_NOT_FOUND");
    await h.api.json("POST", "/api/v1/trading/orders", 422, {
      token: h.token,
      body: { session_id: sessionId, symbol: "AAPL.US", side: "hold", quantity: "-1" },
    });
    const other = await h.api.createUser();
    expect(
      (
        await h.api.json("POST", "/api/v1/trading/orders", 403, {
          token: other.token,
          body: { session_id: sessionId, symbol: "AAPL.US", side: "buy", quantity: "1" },
        })
      ).error_code,
    ).toBe("ACCESS_DENIED");
  });

  it("follows the selected provider's market data when its adapters are rebuilt (a provider switch, new credentials or token): its feeds move, bars keep coming", async () => {
    const worker = h.workers.at(-1)!;
    const before = await h.api.services.marketData();
    const admin = await h.api.adminToken();
    await h.api.json("PUT", "/api/v1/settings/data-source", 200, { token: admin, body: { type: "simulated", provider_config: { enable_overnight: true } } });
    const after = await h.api.services.marketData();
    expect(after).not.toBe(before);
    const fed = (await h.api.services.trading.sessions.runs.get(sessionId))!.progress!.bars;
    await worker.refresh();
    expect((await after.subscriptions()).map((s) => s.symbol)).toContain("AAPL.US");
    expect(await before.subscriptions()).toEqual([]);
    await minutes(worker, 5);
    expect((await h.api.services.trading.sessions.runs.get(sessionId))!.progress!.bars).toBe(fed + 5);
    await h.api.json("PUT", "/api/v1/settings/data-source", 200, { token: admin, body: { type: "simulated", provider_config: { enable_overnight: false } } });
    await worker.refresh();
  });

  it("does not feed a paused session, and lets go of a stopped one", async () => {
    const worker = h.workers.at(-1)!;
    await h.api.json("POST", `/api/v1/trading/sessions/${sessionId}/pause`, 200, { token: h.token });
    await worker.refresh();
    const fed = (await h.api.services.trading.sessions.runs.get(sessionId))!.progress!.bars;
    await minutes(worker, 5);
    expect((await h.api.services.trading.sessions.runs.get(sessionId))!.progress!.bars).toBe(fed);
    expect(
      (
        await h.api.json("POST", "/api/v1/trading/orders", 409, {
          token: h.token,
          body: { session_id: sessionId, symbol: "AAPL.US", side: "buy", quantity: "1" },
        })
      ).error_code,
    ).toBe("SESSION_NOT_RUNNING");
    await h.api.json("POST", `/api/v1/trading/sessions/${sessionId}/resume`, 200, { token: h.token });
    await worker.refresh();
    await minutes(worker, 5);
    expect((await h.api.services.trading.sessions.runs.get(sessionId))!.progress!.bars).toBe(fed + 5);
    const stopped = await h.api.json("POST", `/api/v1/trading/sessions/${sessionId}/stop`, 200, { token: h.token });
    // It shows what it ended with: the equity of its run's latest snapshot.
    const performance = await h.api.json("GET", `/api/v1/trading/sessions/${sessionId}/performance`, 200, { token: h.token });
    expect(stopped.final_capital).toBe(performance.session.final_equity);
    expect(Number(stopped.final_capital)).toBeGreaterThan(0);
    expect((await h.api.json("GET", `/api/v1/trading/sessions/${sessionId}`, 200, { token: h.token })).final_capital).toBe(stopped.final_capital);
    // No refresh: the stop's lifecycle command makes the worker read its sessions in its next step.
    await minutes(worker, 1);
    expect(await new DynamoWorkerStore(h.api.services.db).last()).toMatchObject({ sessions: 0, feeds: [] });
  });

  it("writes its heartbeats at most once per `beatMs` of the wall clock, however fast its steps come, and at its start", async () => {
    const { SessionWorker } = await import("../../packages/worker/src/session-worker");
    let wall = Date.parse("2026-11-28T12:00:00Z");
    const worker = new SessionWorker(h.api.services, {
      marketData: await h.api.services.marketData(),
      tickMs: 1e9,
      refreshMs: 1e9,
      taskId: "beat-cadence",
      wall: () => wall,
      beatMs: 1_000,
    });
    const beatAt = async () => (await new DynamoWorkerStore(h.api.services.db).last())!.at;
    await worker.start();
    try {
      const started = h.clock;
      expect(await beatAt()).toBe(started);
      // Three steps within the same wall second: no heartbeat written.
      await minutes(worker, 3);
      expect(await beatAt()).toBe(started);
      // A second later the next step writes it, at the market's clock.
      wall += 1_000;
      await minutes(worker, 1);
      expect(await beatAt()).toBe(h.clock);
    } finally {
      await worker.stop();
    }
  });
});
