import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { createTradingClient, unwrap, type SessionMessage, type SocketStatus, type WebSocketConstructor } from "../../packages/client/src/index";
import { ChannelPresets } from "../../packages/core/src/channel-presets/index";
import { cuttingProxy } from "../support/cutting-proxy";
import { EMBEDDED_ADMIN, EMBEDDED_CAPTCHA, startEmbedded } from "../support/embedded";
import { until } from "../support/sockets";

/**
 * The client's session stream against the embedded runtime when the service side cuts the socket
 * mid-stream: it reconnects (after 1 s), catches up through `updates?since=` and the application
 * sees every pushed message once, in order.
 */
let runtime: Awaited<ReturnType<typeof startEmbedded>>;
let proxy: Awaited<ReturnType<typeof cuttingProxy>>;

beforeAll(async () => {
  runtime = await startEmbedded();
  proxy = await cuttingProxy({ host: "127.0.0.1", port: runtime.port });
}, 60_000);
afterAll(async () => {
  await proxy?.close();
  await runtime?.stop();
});

describe("the client's session stream", () => {
  it("reconnects after a cut from the service's side and hands the app every message once, in order", { timeout: 60_000 }, async () => {
    const client = createTradingClient({ baseUrl: proxy.base, WebSocket: WebSocket as unknown as WebSocketConstructor });
    await client.login({ ...EMBEDDED_ADMIN, captcha: EMBEDDED_CAPTCHA });
    const session = unwrap(
      await client.api.POST("/api/v1/trading/sessions", {
        body: {
          session_name: "cut",
          trading_mode: "simulation",
          asset_mode: "simulated",
          initial_capital: 100_000,
          tradable_symbols: ["AAPL.US"],
          config: { channels: ChannelPresets.get("balanced-multi").channels, venue: "bars" } as never,
        },
      }),
    );
    unwrap(await client.api.POST("/api/v1/channels/sessions/{session_id}/start", { params: { path: { session_id: session.id } } }));
    const before = unwrap(await client.api.GET("/api/v1/sessions/{session_id}/updates", { params: { path: { session_id: session.id } } }));

    const received: SessionMessage[] = [];
    const statuses: SocketStatus[] = [];
    const stream = await client.followSession(session.id, { onMessage: (message) => received.push(message), onStatus: (status) => statuses.push(status) });
    await until(() => proxy.open === 1 && statuses.at(-1) === "open");

    let paused = false;
    const toggle = async () => {
      const action = paused ? "resume" : "pause";
      paused = !paused;
      unwrap(
        await client.api.POST(`/api/v1/sessions/{session_id}/channels/{channel_id}/${action}`, {
          params: { path: { session_id: session.id, channel_id: "aggressive" } },
        }),
      );
    };
    for (let i = 0; i < 3; i++) await toggle();
    await until(() => received.length >= 6);
    proxy.cutSockets();
    // Pushed while the socket is down: only the session's feed keeps these.
    for (let i = 0; i < 3; i++) await toggle();
    await until(() => statuses.filter((status) => status === "open").length === 2, 10_000);
    for (let i = 0; i < 2; i++) await toggle();

    const feed = unwrap(
      await client.api.GET("/api/v1/sessions/{session_id}/updates", {
        params: { path: { session_id: session.id }, query: { since: before.last_timestamp ?? undefined } },
      }),
    );
    expect(feed.updates).toHaveLength(16);
    await until(() => received.length >= feed.updates.length);
    stream.close();
    await until(() => statuses.at(-1) === "closed");
    expect(received).toEqual(feed.updates);
    expect(statuses).toEqual(["connecting", "open", "reconnecting", "reconnecting", "open", "closed"]);
    expect(received.map((message) => message.type)).toEqual(Array(8).fill(["channel_status", "channel_update"]).flat());
  });
});
