import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import WebSocket from "ws";
import { callAs } from "../support/api-client";
import { startService, type RunningService } from "../support/local-process";

/**
 * `npm start` with SIMULATED_CLOCK_SPEED: the simulated market runs 600 times faster from a
 * chosen start inside market hours, so a simulation session trades within seconds whatever the
 * hour, and its socket shows the orders and fills.
 */
let service: RunningService | undefined;

afterAll(async () => {
  await service?.stop();
});

const call = (base: string, method: string, path: string, body?: unknown, token?: string) => callAs(base, token, method, path, body);

describe("the accelerated simulated clock (npm start)", () => {
  it("lets a simulation session trade at any hour: bars, orders and fills within seconds, then the day's close and rollover", {
    timeout: 120_000,
  }, async () => {
    service = await startService({
      DATA_DIR: mkdtempSync(join(tmpdir(), "tp-clock-")),
      DYNAMODB_ENDPOINT: inject("dynamoEndpoint"),
      TABLE_NAME: `test-clock-${randomUUID()}`,
      ADMIN_PASSWORD: "clock-admin-password-1",
      CAPTCHA_TEST_CODE: "e2e-code",
      SIMULATED_CLOCK_SPEED: "600",
      SIMULATED_CLOCK_START: "2024-03-15T19:00:00Z",
    });
    expect(service.output()).toContain("Simulated clock: 600x from 2024-03-15T19:00:00.000Z");
    const { base } = service;
    const login = await call(base, "POST", "/api/v1/login", { username: "admin", password: "clock-admin-password-1", captcha: "e2e-code" });
    expect(login.status).toBe(200);
    const token = login.body.access_token as string;
    const session = await call(
      base,
      "POST",
      "/api/v1/trading/sessions",
      {
        session_name: "watch it trade",
        trading_mode: "simulation",
        asset_mode: "simulated",
        initial_capital: "100000",
        config: {
          strategy_name: "ma_crossover",
          parameters: { fast_period: 3, slow_period: 8 },
          symbols: ["AAPL.US"],
          timeframe: "1m",
          execution: { sizing: { model: "cash_fraction", fraction: 0.08 } },
        },
      },
      token,
    );
    expect(session.status).toBe(201);
    const id = session.body.id as string;

    const messages: any[] = [];
    const socket = new WebSocket(`${base.replace("http", "ws")}/ws/trading/${id}?token=${token}`);
    await new Promise((resolve, reject) => (socket.once("open", resolve), socket.once("error", reject)));
    socket.on("message", (data) => messages.push(JSON.parse(data.toString())));
    expect((await call(base, "POST", `/api/v1/trading/sessions/${id}/start`, undefined, token)).status).toBe(200);

    for (let waited = 0; !messages.some((m) => m.type === "order_filled") && waited < 60_000; waited += 250) await new Promise((r) => setTimeout(r, 250));
    const filled = messages.find((m) => m.type === "order_filled");
    expect(filled, service.output()).toBeDefined();
    expect(messages.some((m) => m.type === "order_submitted")).toBe(true);
    // Events carry the simulated market's time: a trading day in March 2024, inside its regular session.
    expect(Date.parse(filled.data.event_time)).toBeGreaterThan(Date.parse("2024-03-15T19:00:00Z"));
    // …before the close (a fill is at a bar's open, so no later than 19:59).
    expect(Date.parse(filled.data.event_time)).toBeLessThan(Date.parse("2024-03-15T20:00:00Z"));
    const status = await call(base, "GET", `/api/v1/trading/sessions/${id}/engine/status`, undefined, token);
    expect(status.body.worker).toMatchObject({ alive: true, sessions: 1, feeds: ["AAPL.US|1m"] });
    expect(Date.parse(status.body.worker.last_bar_at)).toBeGreaterThan(Date.parse("2024-03-15T19:05:00Z"));

    // Half an hour later in market time the day closes, and the rollover settles it on its own.
    // The day's end and the daily reset after it are two messages, posted one after the other: wait for both.
    const settled = () => messages.some((m) => m.type === "day_end") && messages.some((m) => m.type === "risk_event" && m.data.kind === "daily_reset");
    for (let waited = 0; !settled() && waited < 60_000; waited += 250) await new Promise((r) => setTimeout(r, 250));
    socket.close(1000);
    const dayEnd = messages.find((m) => m.type === "day_end");
    expect(dayEnd, service.output()).toMatchObject({ data: { day: expect.any(Number), equity: expect.any(Number) } });
    // At the close, or just after it when the broker's last answers of the day (an order the closed
    // market refused) came in first: the session trades through its paper account (venue broker, the default).
    expect(Date.parse(dayEnd.data.event_time)).toBeGreaterThanOrEqual(Date.parse("2024-03-15T20:00:00Z"));
    expect(Date.parse(dayEnd.data.event_time)).toBeLessThan(Date.parse("2024-03-15T20:10:00Z"));
    expect(messages.some((m) => m.type === "order_routed")).toBe(true);
    expect(messages.some((m) => m.type === "risk_event" && m.data.kind === "daily_reset")).toBe(true);

    // The session traded its sleeve of the administrator's simulated account, opened with PAPER_INITIAL_CASH at its
    // start (docs/accounts.md): the account shows the session's cash set aside and its shares, to the cent.
    const account = await call(base, "GET", "/api/v1/assets/simulated/", undefined, token);
    expect(account.status).toBe(200);
    const books = await call(base, "GET", `/api/v1/channels/sessions/${id}/positions`, undefined, token);
    const sessionCash = books.body.channels.reduce((sum: number, c: { cash: { USD: string } }) => sum + Number(c.cash.USD), 0);
    expect(account.body.in_sessions_by_currency.USD).toBe(sessionCash.toFixed(2));
    expect(account.body.cash_by_currency.USD).not.toBe("1000000.00");
    const held = await call(base, "GET", "/api/v1/assets/simulated/positions", undefined, token);
    const sessionShares = books.body.channels
      .flatMap((c: { positions: { symbol: string; quantity: string }[] }) => c.positions)
      .reduce((sum: number, p: { quantity: string }) => sum + Number(p.quantity), 0);
    expect(held.body.reduce((sum: number, p: { quantity: string }) => sum + Number(p.quantity), 0)).toBe(sessionShares);
    const alerts = await call(base, "GET", `/api/v1/sessions/${id}/alerts`, undefined, token);
    expect(alerts.body.alerts.filter((a: { message: string }) => a.message.includes("disagree"))).toEqual([]);
  });
});
