import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChannelPresets } from "../../packages/core/src/channel-presets/index";
import { SessionWorker } from "../../packages/worker/src/session-worker";
import { createTestApi, type TestApi } from "../support/harness";

/**
 * A session's start, pause, resume and stop are each channel's (docs/channels.md "Channel status
 * events"): a `channel_status` event in the run's log with its sequence, pushed on the session's
 * socket with a `channel_update` carrying the same sequence, through `/api/v1/trading/sessions`
 * (the console's buttons) as through the channels prefix.
 */
let api: TestApi;
let owner: { id: string; token: string };
let clock = Date.parse("2024-03-15T14:30:00Z");
const pushed: any[] = [];
let worker: SessionWorker;

beforeAll(async () => {
  api = await createTestApi({}, { now: () => clock });
  owner = await api.createUser();
  api.services.realtime.pusher = { post: async (_connection, data) => (pushed.push(JSON.parse(data)), "sent") };
  worker = new SessionWorker(api.services, { marketData: await api.services.marketData(), tickMs: 1e9, refreshMs: 1e9, metricsMs: 1e9 });
  await worker.start();
});

afterAll(async () => {
  await worker?.stop();
});

const channelIds = ChannelPresets.get("balanced-multi").channels.map((c) => c.channel_id);
const S = (id: string) => `/api/v1/trading/sessions/${id}`;

async function statusEvents(id: string) {
  const page = await api.json("GET", `${S(id)}/logs?limit=500`, 200, { token: owner.token });
  return page.items.filter((e: any) => e.type === "channel_status");
}

describe("channel status events from the session's lifecycle", () => {
  it("records and pushes every channel's start, pause, resume and stop with its sequence", async () => {
    const session = await api.json("POST", "/api/v1/trading/sessions", 201, {
      token: owner.token,
      body: {
        session_name: "Lifecycle",
        trading_mode: "simulation",
        asset_mode: "simulated",
        initial_capital: "100000",
        config: { channels: ChannelPresets.get("balanced-multi").channels, symbols: ["AAPL.US"], venue: "bars" },
      },
    });
    await api.services.realtime.connections.add({
      connection_id: "page",
      topic: `session:${session.id}`,
      user_id: owner.id,
      connected_at: new Date().toISOString(),
      expires_at: Math.floor(Date.now() / 1000) + 7200,
    });
    const expected: string[] = [];
    for (const [action, previous, status] of [
      ["start", "stopped", "running"],
      ["pause", "running", "paused"],
      ["resume", "paused", "running"],
      ["stop", "running", "stopped"],
    ] as const) {
      clock += 60_000;
      await api.json("POST", `${S(session.id)}/${action}`, 200, { token: owner.token });
      await worker.tick();
      for (const channel of channelIds) expected.push(`${action} ${channel} ${previous}>${status}`);
    }

    const events = await statusEvents(session.id);
    expect(events.map((e: any) => `${e.data.session_action} ${e.channel_id} ${e.data.previous}>${e.data.status}`)).toEqual(expected);
    const sequences = events.map((e: any) => e.sequence);
    expect(sequences).toEqual([...sequences].sort((a: number, b: number) => a - b));
    expect(new Set(sequences).size).toBe(sequences.length);
    expect(events[0].message).toBe(`[${channelIds[0]}] Channel stopped → running`);

    // Each pushed as the log has it, its channel_update carrying the same sequence and the status it moved to.
    const pushedStatus = pushed.filter((m) => m.type === "channel_status");
    expect(pushedStatus.map((m) => [m.data.channel_id, m.data.sequence, m.data.status])).toEqual(
      events.map((e: any) => [e.channel_id, e.sequence, e.data.status]),
    );
    const updates = pushed.filter((m) => m.type === "channel_update" && m.data.cause === "status_change");
    expect(updates.map((m) => [m.data.channel_id, m.data.sequence, m.data.status])).toEqual(events.map((e: any) => [e.channel_id, e.sequence, e.data.status]));
    expect(updates.every((m) => Number.isInteger(m.data.sequence))).toBe(true);
  });
});
