import { describe, expect, it } from "vitest";
import type { SessionWorker } from "../../packages/worker/src/session-worker";
import { WorkerHarness } from "../support/worker-harness";

/**
 * Many clients at once into one running session (docs/session-worker.md "Commands from the
 * API"): every command is applied once, in the order received, or denied as data; none fails
 * because the session was busy, and the run's event log has no gap.
 */
// 10:30 New York (EDT), inside the US regular session.
const h = WorkerHarness.forSuite("2024-03-15T14:30:00Z");
let worker: SessionWorker;
const config = { strategy_name: "ma_crossover", parameters: { fast_period: 3, slow_period: 8 }, symbols: ["AAPL.US"], timeframe: "1m", venue: "bars" };

describe("commands under contention", () => {
  it("applies 50 orders and 50 reset-daily sent at once, with a bar fed meanwhile: no 5xx, each order once, no gap in the events", async () => {
    const id = (await h.startSession("contention", config)).id as string;
    worker = await h.newWorker();
    await h.minutes(worker, 3);

    const order = (i: number) =>
      h.api.request("POST", "/api/v1/trading/orders", {
        token: h.token,
        body: { session_id: id, symbol: "AAPL.US", side: "buy", order_type: "limit", price: String(1 + i / 100), quantity: "1" },
      });
    const reset = () => h.api.request("POST", `/api/v1/trading/sessions/${id}/risk/reset-daily`, { token: h.token });
    const sent = Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? order(i / 2) : reset()));
    // The worker feeds a bar meanwhile: it writes the same run.
    h.clock += 60_000;
    const [answers] = await Promise.all([Promise.all(sent), worker.tick()]);

    expect(answers.map((a) => a.status).filter((status) => status >= 500)).toEqual([]);
    const placed: any[] = await Promise.all(answers.filter((_, i) => i % 2 === 0).map((a) => a.json()));
    expect(answers.filter((_, i) => i % 2 === 0).map((a) => a.status)).toEqual(Array(50).fill(201));
    expect(answers.filter((_, i) => i % 2 === 1).map((a) => a.status)).toEqual(Array(50).fill(200));
    // Applied or denied with its reasons, each with its own id.
    for (const o of placed) {
      expect(["pending", "denied"]).toContain(o.status);
      expect(o.denials.length > 0).toBe(o.status === "denied");
    }
    expect(new Set(placed.map((o: { id: string }) => o.id)).size).toBe(50);

    // The session's orders hold each exactly once, at the price it was sent with.
    const listed = await h.api.json("GET", `/api/v1/trading/sessions/${id}/orders?limit=500`, 200, { token: h.token });
    const manual = listed.orders.filter((o: { id: string }) => placed.some((p: { id: string }) => p.id === o.id));
    expect(manual).toHaveLength(50);
    expect(manual.map((o: { price: string }) => Number(o.price)).sort((a: number, b: number) => a - b)).toEqual(
      Array.from({ length: 50 }, (_, i) => 1 + i / 100),
    );

    // The event log: sequences 1..n without a gap, 50 resets, every order's event once.
    const events = await h.logs(id);
    const sequences = events.map((e: { sequence: number }) => e.sequence);
    expect(sequences).toEqual(Array.from({ length: sequences.length }, (_, i) => i + 1));
    const run = (await h.api.services.trading.sessions.runs.get(id))!;
    expect(run.snapshot!.sequence).toBe(sequences.length);
    expect(events.filter((e: { type: string; data: { kind?: string } }) => e.type === "risk_event" && e.data.kind === "daily_reset")).toHaveLength(50);
    const manualEvents = events.filter(
      (e: { type: string; data: { order_id?: string; reason?: string } }) => e.type === "order_submitted" || e.type === "order_denied",
    );
    const limitPrices = manualEvents.filter((e: { data: { order_type?: string } }) => e.data.order_type === "limit");
    expect(limitPrices).toHaveLength(50);
  });
});
