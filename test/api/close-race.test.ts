import { describe, expect, it } from "vitest";
import { runDayRollover } from "../support/day-rollover";
import type { SessionWorker } from "../../packages/worker/src/session-worker";
import { WorkerHarness } from "../support/worker-harness";

/**
 * The close, raced (docs/session-worker.md "One order of events"): on each day of a week the day
 * rollover, the worker's step (the day's last bar and the broker's reports) and an API command
 * reach one session at the same moment, in a different order every day. Each day ends once, every
 * event the socket carried is in /logs, and an order the close overtook expires instead of being
 * sent to the closed market.
 */
// Monday 18 March 2024, 15:50 New York (EDT); the close is 20:00Z.
const h = WorkerHarness.forSuite("2024-03-18T19:50:00Z");
let worker: SessionWorker;
const rollover = () => runDayRollover(h.api.services);
const config = {
  strategy_name: "ma_crossover",
  parameters: { fast_period: 20, slow_period: 60 },
  symbols: ["AAPL.US"],
  timeframe: "1m",
  execution: { sizing: { model: "cash_fraction", fraction: 0.05 } },
};
const DAYS = ["2024-03-18", "2024-03-19", "2024-03-20", "2024-03-21", "2024-03-22"];

describe("the close, raced", () => {
  it("ends each day once, logs what the socket carried, and expires the orders the close overtook", async () => {
    const session = await h.startSession("close race", config);
    const id = session.id as string;
    expect(session.config.venue).toBe("broker");
    worker = await h.newWorker();
    const overtaken: string[] = [];

    for (const [index, day] of DAYS.entries()) {
      h.clock = Date.parse(`${day}T19:50:00Z`);
      await h.minutes(worker, 9); // the bars to 19:59
      // Placed after the worker's last step of the day: the close overtakes it before it is sent.
      h.clock += 30_000;
      const late = await h.api.json("POST", "/api/v1/trading/orders", 201, {
        token: h.token,
        body: { session_id: id, symbol: "AAPL.US", side: "buy", quantity: "1" },
      });
      expect([late.status, late.denials]).toEqual(["pending", []]);
      overtaken.push(late.id);
      // After the close and its grace: the last bar's step (fills and reports), the rollover and a command at once, started in a different order each day.
      h.clock = Date.parse(`${day}T20:06:00Z`);
      const racers = [
        () => worker.tick(),
        () => rollover(),
        () => h.api.request("POST", `/api/v1/trading/sessions/${id}/risk/reset-daily`, { token: h.token }),
      ];
      const order = [index % 3, (index + 1 + (index % 2)) % 3, (index + 2 - (index % 2)) % 3];
      const answers = await Promise.all(order.map((i) => racers[i]!()));
      const reset = answers[order.indexOf(2)] as Response;
      expect(reset.status).toBe(200);
      // The worker's next step, after the close: nothing is sent.
      h.clock += 60_000;
      await worker.tick();
    }

    const events = await h.logs(id);
    // One sequence without a gap, and one day_end per day.
    expect(events.map((e) => e.sequence)).toEqual(Array.from({ length: events.length }, (_, i) => i + 1));
    const dayEnds = events.filter((e) => e.type === "day_end");
    expect(dayEnds.map((e) => e.timestamp.slice(0, 10))).toEqual(DAYS);
    // What the socket carried is what /logs lists, sequence for sequence.
    const bySequence = new Map(events.map((e) => [e.sequence, e.type]));
    // (A `channel_update` or `channel_metrics` is a figure, not an event: it names the sequence it follows.)
    const carried = h.pushed.filter((m) => typeof m.data?.sequence === "number" && m.type !== "channel_update" && m.type !== "channel_metrics");
    expect(carried.length).toBeGreaterThan(0);
    for (const message of carried) expect([message.data.sequence, bySequence.get(message.data.sequence)]).toEqual([message.data.sequence, message.type]);
    // The orders the close overtook expired as day orders; none reached the broker.
    for (const orderId of overtaken) {
      const stored = await h.api.json("GET", `/api/v1/trading/orders/${orderId}`, 200, { token: h.token });
      expect([orderId, stored.status, stored.venue_order_id ?? null]).toEqual([orderId, "expired", null]);
    }
    expect(events.filter((e) => e.type === "order_rejected")).toEqual([]);
  });
});
