import { describe, expect, it } from "vitest";
import { runDayRollover } from "../support/day-rollover";
import type { SessionWorker } from "../../packages/worker/src/session-worker";
import { barsSessionConfig, WorkerHarness } from "../support/worker-harness";

/**
 * The day rollover against DynamoDB Local, on the session worker's manual clock: a simulation
 * session trades the last half hour of a US day; after the close (and its grace) the rollover
 * settles the day, expires the pending order and restarts the daily counters; run again, it
 * changes nothing; the next day's bars open a new day without closing the old one twice.
 */
// 15:30 New York (EDT); the close is 20:00Z.
const h = WorkerHarness.forSuite("2024-03-15T19:30:00Z");
const minutes = (count: number) => h.minutes(worker, count);
let worker: SessionWorker;

const rollover = () => runDayRollover(h.api.services);
const config = barsSessionConfig;

describe("the day rollover", () => {
  it("settles a closed day once: day orders expire, the daily counters restart, a second run changes nothing", async () => {
    const session = await h.api.json("POST", "/api/v1/trading/sessions", 201, {
      token: h.token,
      body: { session_name: "rollover", trading_mode: "simulation", asset_mode: "simulated", initial_capital: "100000", config },
    });
    const id = session.id as string;
    await h.api.services.realtime.connections.add({
      connection_id: "watcher",
      topic: `session:${id}`,
      user_id: "x",
      connected_at: new Date().toISOString(),
      expires_at: Math.floor(Date.now() / 1000) + 7200,
    });
    await h.api.json("POST", `/api/v1/trading/sessions/${id}/start`, 200, { token: h.token });
    worker = await h.newWorker();
    await minutes(20);
    const resting = await h.api.json("POST", "/api/v1/trading/orders", 201, {
      token: h.token,
      body: { session_id: id, symbol: "AAPL.US", side: "buy", order_type: "limit", price: "1", quantity: "1" },
    });
    expect(resting.status).toBe("pending");
    await minutes(10); // to 20:00Z: the day's last bar closes
    const runs = h.api.services.trading.sessions.runs;
    const before = (await runs.get(id))!;
    expect(before.snapshot!.day).toBeGreaterThan(0);
    expect(before.snapshot!.channels[Object.keys(before.snapshot!.channels)[0]!]!.daily_trades).toBeGreaterThan(0);

    // Inside the grace after the close: nothing yet (the worker may still be feeding the last bar).
    h.clock = Date.parse("2024-03-15T20:02:00Z");
    expect(await rollover()).toMatchObject({ rolled: 0, rolled_sessions: [] });
    expect((await runs.get(id))!.version).toBe(before.version);

    h.clock = Date.parse("2024-03-15T20:15:00Z");
    h.pushed.length = 0;
    const first = await rollover();
    // The resting limit, and any order a signal on the day's last bar left for the next open.
    const pending = before.snapshot!.pending.map((order) => order.order_id);
    expect(pending).toContain(resting.id);
    expect(first).toMatchObject({
      sessions: 1,
      rolled: 1,
      rolled_sessions: [{ session_id: id, date: "2024-03-15", orders_expired: pending.length }],
      calendars: ["AAPL.US"],
      calendar_failures: [],
    });
    const after = (await runs.get(id))!;
    expect(after.version).toBe(before.version + 1);
    expect(after.snapshot!.day).toBe(-1);
    expect(after.snapshot!.session.equity_days).toHaveLength(1);
    for (const channel of Object.values(after.snapshot!.channels)) expect(channel.daily_trades).toBe(0);
    expect(after.snapshot!.pending).toEqual([]);
    // A late bar of the closed day would not be fed: the run's cursor is at the close.
    expect(after.progress!.cursor_ms).toBe(Date.parse("2024-03-15T20:00:00Z"));
    // The day's events, in order; the socket saw them.
    const close = Date.parse("2024-03-15T20:00:00Z");
    const types = h.pushed.map((message) => message.type);
    expect(types).toEqual([...pending.map(() => "order_cancelled"), "day_end", "risk_event"]);
    // Stamped with the close (`event_time`), h.pushed through the session's update feed.
    expect(h.pushed.every((message) => message.data.event_time === new Date(close).toISOString())).toBe(true);
    expect(h.pushed.slice(0, pending.length).map((message) => message.data)).toEqual(
      pending.map((orderId) => expect.objectContaining({ order_id: orderId, expired: true })),
    );
    expect(h.pushed.at(-1).data).toMatchObject({ kind: "daily_reset" });
    expect((await h.api.json("GET", `/api/v1/trading/orders/${resting.id}`, 200, { token: h.token })).status).toBe("expired");
    // The calendar of the session's symbol is stored a week ahead.
    const week = await h.api.services.calendar.entries.list("AAPL.US", "2024-03-18", "2024-03-22");
    expect(week.map((entry) => [entry.date, entry.day_type])).toEqual(["18", "19", "20", "21", "22"].map((day) => [`2024-03-${day}`, "full"]));

    // Twice for the same day: nothing changes.
    h.clock = Date.parse("2024-03-15T21:15:00Z");
    const second = await rollover();
    expect(second).toMatchObject({ sessions: 1, rolled: 0, rolled_sessions: [], calendars: [] });
    expect((await runs.get(id))!).toEqual(after);

    // The next trading day's bars open a new day; the old one is not closed again.
    h.clock = Date.parse("2024-03-18T13:30:00Z");
    await minutes(5);
    const monday = (await runs.get(id))!;
    expect(monday.progress!.cursor_ms).toBe(Date.parse("2024-03-18T13:35:00Z"));
    expect(monday.snapshot!.day).toBeGreaterThan(0);
    expect(monday.snapshot!.session.equity_days).toHaveLength(1);
    const days = await runs.events(id, { limit: 500, category: "day" });
    expect(days.items.map((event) => event.type)).toEqual(["day_end"]);
  });
});
