import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ChannelPresets } from "../../packages/core/src/channel-presets/index";
import { callAs } from "../support/api-client";
import { startService, type RunningService } from "../support/local-process";
import { listen, until } from "../support/sockets";

/**
 * A multi-channel session through `npm start`'s runtime over real HTTP and WebSocket: channels
 * controlled over HTTP, their updates on the socket, and a client that reconnects catching up
 * through `updates?since=` with exactly what it missed.
 */
const dataDir = mkdtempSync(join(tmpdir(), "tp-e2e-channels-"));
let service: RunningService | undefined;

afterAll(async () => {
  await service?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const call = (method: string, path: string, token?: string, body?: unknown) => callAs(service!.base, token, method, path, body);

describe("channels in the embedded runtime", () => {
  it("pushes channel updates to the socket and lets a reconnecting client catch up through updates?since", { timeout: 120_000 }, async () => {
    service = await startService({ DATA_DIR: dataDir, CAPTCHA_TEST_CODE: "e2e-code", ADMIN_PASSWORD: "e2e-admin-password", SESSION_WORKER: "off" });
    const token = (await call("POST", "/api/v1/login", undefined, { username: "admin", password: "e2e-admin-password", captcha: "e2e-code" })).body
      .access_token;
    const session = (
      await call("POST", "/api/v1/trading/sessions", token, {
        session_name: "balanced",
        trading_mode: "simulation",
        asset_mode: "simulated",
        initial_capital: "100000",
        tradable_symbols: ["AAPL.US"],
        config: { channels: ChannelPresets.get("balanced-multi").channels, venue: "bars" },
      })
    ).body;
    const started = await call("POST", `/api/v1/channels/sessions/${session.id}/start`, token);
    expect(started.status).toBe(200);
    expect(started.body.channels.map((c: any) => c.status)).toEqual(["running", "running", "running"]);

    const wsBase = service.base.replace(/^http/, "ws");
    await expect(listen(`${wsBase}/ws/sessions/no-such-session/channels?token=${token}`)).rejects.toThrow("404");
    const first = await listen(`${wsBase}/ws/sessions/${session.id}/channels?token=${token}`);
    first.ws.send(JSON.stringify({ type: "ping" }));
    expect((await call("POST", `/api/v1/sessions/${session.id}/channels/aggressive/pause`, token)).body.status).toBe("paused");
    await until(() => first.received.some((m) => m.type === "channel_update"));
    expect(first.received.find((m) => m.type === "pong")).toBeDefined();
    const update = first.received.find((m) => m.type === "channel_update");
    expect(update.data).toMatchObject({ channel_id: "aggressive", status: "paused", metrics: { total_pnl: 0, win_rate: 0, total_trades: 0 } });
    const lastSeen = first.received.filter((m) => m.type !== "pong").at(-1).timestamp;
    first.ws.close(1000);

    // While disconnected: the channel resumes and its limits change.
    expect((await call("POST", `/api/v1/sessions/${session.id}/channels/aggressive/resume`, token)).status).toBe(200);
    const limits = await call("PUT", `/api/v1/sessions/${session.id}/channels/aggressive/risk-limits`, token, { max_drawdown: 0.1 });
    expect(limits.body).toMatchObject({ current_config_version: 2, pending_config_version: null, effective_at: expect.any(String) });

    const second = await listen(`${wsBase}/ws/trading/${session.id}?token=${token}`);
    // A socket that asks for batches: the same pushes, each push's messages in one JSON array.
    await expect(listen(`${wsBase}/ws/trading/${session.id}?token=${token}&batch=maybe`)).rejects.toThrow("400");
    const batched = await listen(`${wsBase}/ws/trading/${session.id}?token=${token}&batch=true`);
    const missed = (await call("GET", `/api/v1/sessions/${session.id}/updates?since=${encodeURIComponent(lastSeen)}`, token)).body;
    expect(missed.updates.map((u: any) => u.type)).toEqual(["channel_status", "channel_update", "risk_event"]);
    expect(missed.updates[1].data).toMatchObject({ channel_id: "aggressive", status: "running" });
    expect(missed.updates[2].data).toMatchObject({ kind: "limits_changed", limits: { max_drawdown: 0.1 } });
    expect(missed).toMatchObject({ count: 3, has_more: false, last_timestamp: missed.updates[2].timestamp });

    // After the catch-up, the new socket sees what follows.
    await call("POST", `/api/v1/channels/sessions/${session.id}/channels/conservative/pause`, token);
    await until(() => second.received.some((m) => m.type === "channel_update"));
    expect(second.received.find((m) => m.type === "channel_update").data).toMatchObject({ channel_id: "conservative", status: "paused" });
    expect(Date.parse(second.received[0].timestamp)).toBeGreaterThan(Date.parse(missed.last_timestamp));
    await until(() => batched.received.flat().length === second.received.length);
    expect(batched.received.every((frame) => Array.isArray(frame))).toBe(true);
    expect(batched.received.length).toBeLessThan(second.received.length);
    expect(batched.received.flat()).toEqual(second.received);
    second.ws.close(1000);
    batched.ws.close(1000);
  });
});
