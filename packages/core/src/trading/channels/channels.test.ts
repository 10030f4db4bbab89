import { describe, expect, it } from "vitest";
import { TradingEngine } from "../../engine/engine";
import { singleStrategySetup } from "../../engine/testing/setups";
import { DomainError } from "../../errors";
import { defaults as riskDefaults } from "../../risk/risk";
import { CHANNEL_TRANSITIONS } from "./actions";
import { applyCommand, deliver } from "./commands";
import { effectiveStatus } from "./figures";
import { streamMessagesOf } from "./stream";
import { messageOf, type StoredRun } from "../run/runs";
import type { ViewDeps } from "../session/deps";

const setup = () => singleStrategySetup({ symbols: ["AAPL.US"], risk: riskDefaults() });
const bar = (timestamp: number, price: number) => ({ symbol: "AAPL.US", timestamp, open: price, high: price, low: price, close: price, volume: 1 });

/** A run store holding one run in memory; `refuse` makes every save lose the race. */
function memoryDeps(refuse = false) {
  let run: StoredRun = { run_id: "r1", session_id: "s1", user_id: "u1", setup: setup(), snapshot: null, progress: null, version: 1, updated_at: "" };
  const saved: unknown[] = [];
  const deps = {
    now: () => 1_700_000_000_000,
    runs: {
      get: async () => run,
      save: async (next: StoredRun, expected: number, events: unknown[]) => {
        if (refuse || expected !== run.version) return false;
        run = next;
        saved.push(...events);
        return true;
      },
    },
  } as unknown as ViewDeps;
  return { deps, saved, current: () => run };
}

describe("channel commands", () => {
  it("applies a state change and new limits to the run in one conditional save, limits into the setup", async () => {
    const { deps, saved, current } = memoryDeps();
    const limits = { max_drawdown: 0.05, max_daily_loss: 0.02, max_loss_per_trade: 0.01, leverage_limit: 1 };
    const { events } = await deliver(deps, "r1", [
      { kind: "set_channel_state", channel_id: "main", state: "paused" },
      { kind: "set_channel_limits", channel_id: "main", limits },
    ]);
    expect(events.map((e) => e.type)).toEqual(["channel_status", "risk_event"]);
    expect(saved).toHaveLength(2);
    expect(current().version).toBe(2);
    expect(current().setup.channels[0]!.limits).toEqual(limits);
    expect(TradingEngine.restore(current().setup, current().snapshot!).view("main").state).toBe("paused");
    // The same limits again change nothing.
    expect((await deliver(deps, "r1", [{ kind: "set_channel_limits", channel_id: "main", limits }])).events).toEqual([]);
  });

  it("answers 503 SERVICE_UNAVAILABLE with retry_after when the run changes on every attempt", async () => {
    const { deps } = memoryDeps(true);
    const error = await deliver(deps, "r1", [{ kind: "set_channel_state", channel_id: "main", state: "paused" }]).catch((e) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect([error.status, error.code, error.extra.retry_after]).toEqual([503, "SERVICE_UNAVAILABLE", 1]);
  });

  it("accepts each operation only from the states of the documented table", () => {
    expect(CHANNEL_TRANSITIONS).toEqual({
      start: { from: ["stopped"], to: "running" },
      pause: { from: ["running"], to: "paused" },
      resume: { from: ["paused"], to: "running" },
      stop: { from: ["paused"], to: "stopped" },
    });
    expect(effectiveStatus({ status: "created" }, "running")).toBe("stopped");
    expect(effectiveStatus({ status: "paused" }, "running")).toBe("paused");
    expect(effectiveStatus({ status: "paused" }, "stopped")).toBe("stopped");
    expect(effectiveStatus({ status: "running" }, "paused")).toBe("paused");
  });
});

describe("a limit change on a live run", () => {
  it("raises the alert of a limit it breaches at the change's instant, never before it, even when the next bar fed opened earlier", async () => {
    const { deps, current } = memoryDeps();
    // 18:02 a buy fills, 18:03 the price falls: the channel is in drawdown under a loose limit.
    const t = Date.parse("2026-11-20T18:02:00Z");
    const engine = new TradingEngine(setup());
    engine.onBar(bar(t - 60_000, 100), "1m");
    engine.submit({ channel_id: "main", symbol: "AAPL.US", side: "buy", quantity: 90 }, t - 1);
    engine.onBar(bar(t, 100), "1m");
    engine.onBar(bar(t + 60_000, 97), "1m");
    engine.drainEvents();
    const drawdown = engine.view("main").current_drawdown;
    expect(drawdown).toBeGreaterThan(0.002);
    expect(engine.view("main").positions).toHaveLength(1);
    const run = current();
    Object.assign(run, { snapshot: engine.snapshot() });

    // 18:05:02 on the run's clock the limit is tightened below the drawdown; the 18:04 bar reaches the run after that.
    const changeAt = Date.parse("2026-11-20T18:05:02Z");
    (deps as { now: () => number }).now = () => changeAt;
    const limits = { ...run.setup.channels[0]!.limits, max_drawdown: 0.002 };
    const { events } = await deliver(deps, "r1", [{ kind: "set_channel_limits", channel_id: "main", limits }]);
    const changed = events.find((e) => e.type === "risk_event" && e.data.kind === "limits_changed")!;
    const alert = events.find((e) => e.type === "alert")!;
    expect(new Date(changed.time).toISOString()).toBe("2026-11-20T18:05:02.000Z");
    // The session log's line names the change (it read "[main] undefined").
    const before = run.setup.channels[0]!.limits.max_drawdown;
    expect(messageOf(changed)).toBe(`[main] Risk limits changed: max_drawdown ${before} → 0.002`);
    expect(alert.data).toMatchObject({ level: "critical", type: "risk_limit", reason: "MAX_DRAWDOWN_BREACHED" });
    expect(alert.time).toBeGreaterThanOrEqual(changed.time);
    expect(alert.sequence).toBeGreaterThan(changed.sequence);

    const after = TradingEngine.restore(current().setup, current().snapshot!);
    expect(after.view("main").halt).toBe("drawdown");
    after.onBar(bar(t + 120_000, 97), "1m");
    // The late bar raises no second alert: the one alert stands, stamped at the change.
    expect(after.drainEvents().filter((e) => e.type === "alert")).toEqual([]);
  });
});

describe("the channel stream's messages", () => {
  it("follows every fill and status change with a channel_update carrying the channel's figures", () => {
    const engine = new TradingEngine(setup());
    engine.onBar(bar(0, 100), "1m");
    engine.submit({ channel_id: "main", symbol: "AAPL.US", side: "buy", quantity: 10 }, 1);
    engine.onBar(bar(60_000, 101), "1m");
    applyCommand(engine, { kind: "set_channel_state", channel_id: "main", state: "paused" }, 120_000);
    const messages = streamMessagesOf(engine, { status: "running" }, engine.drainEvents());
    // The entry's protective stop and target (the default risk configuration's) follow its position.
    expect(messages.map((m) => m.type)).toEqual([
      "order_submitted",
      "order_filled",
      "channel_update",
      "position_changed",
      "order_submitted",
      "order_submitted",
      "channel_status",
      "channel_update",
    ]);
    expect(messages[2]!.data).toEqual({
      channel_id: "main",
      status: "paused",
      metrics: { total_pnl: expect.any(Number), win_rate: 0, total_trades: 0 },
      cause: "fill",
      sequence: messages[1]!.data.sequence,
    });
    expect(messages[7]!.data).toMatchObject({ cause: "status_change", status: "paused" });
    expect(messages[1]!.data).toMatchObject({ channel_id: "main", event_time: new Date(60_000).toISOString() });
  });
});
