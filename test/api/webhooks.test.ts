import { createHmac } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChannelPresets } from "../../packages/core/src/channel-presets/index";
import { verifySignature } from "../../packages/core/src/webhooks/index";
import type { TableQueue } from "../../packages/adapters/src/queues/table-queue";
import { audit, principals } from "../../packages/adapters/src/compose/users";
import { serviceContext } from "../../packages/adapters/src/compose/context";
import { tradingChannels } from "../../packages/adapters/src/compose/trading";
import { channelsGroup } from "../../packages/api/src/groups/channels";
import { createSingleGroupApp } from "../../packages/api/src/http/group";
import { webhookDeliveryHandler } from "../../packages/functions/src/queue/webhook-delivery";
import { LocalQueueRunner } from "../../packages/local/src/queue-runner";
import { SessionWorker } from "../../packages/worker/src/session-worker";
import { createTestApi, type TestApi } from "../support/harness";

/**
 * Webhooks (docs/security.md "Webhooks"): a receiver on loopback (allowed by the operator's
 * BROKER_ALLOWED_HOSTS) gets signed deliveries, retried after a 500; a loopback URL without the
 * allowance is refused at registration and not sent at delivery; a real session's events reach the
 * webhooks subscribed to their kind only.
 */

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local receiver answering the statuses of `answers` in turn (200 once they run out). */
async function receiver(answers: number[] = []): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      received.push({ headers: request.headers, body });
      response.statusCode = answers.shift() ?? 200;
      response.end("ok");
    });
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/abc`, received, server };
}

/** The delivery queue's local runner: the handler the Lambda function exports, over the test's services. */
const runnerOf = (api: TestApi) =>
  new LocalQueueRunner(
    api.services.jobs as TableQueue,
    { "webhook-delivery": webhookDeliveryHandler(async () => api.services) },
    { batchSizes: { "webhook-delivery": 10 } },
  );

/** Drains the queue until `done()` or `timeoutMs` (a retry becomes visible after its delay). */
async function deliverUntil(runner: LocalQueueRunner, done: () => boolean, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    await runner.drain("webhook-delivery");
    if (done()) return;
    await new Promise((wait) => setTimeout(wait, 200));
  }
}

const servers: Server[] = [];
afterAll(() => {
  for (const server of servers) server.close();
});

describe("webhook deliveries to an allowed receiver", () => {
  let api: TestApi;
  let user: { id: string; token: string };

  beforeAll(async () => {
    api = await createTestApi({ BROKER_ALLOWED_HOSTS: "127.0.0.1" });
    user = await api.createUser();
  });

  it("signs each try, retries after a 500 and records both tries", async () => {
    const target = await receiver([500]);
    servers.push(target.server);
    const created = await api.json("POST", "/api/v1/webhooks", 201, {
      token: user.token,
      body: { url: target.url, event_kinds: ["fill", "session_status"], name: "desk" },
    });
    expect(created.secret).toMatch(/^whsec_/);
    expect(created.url).toBe("http://127.0.0.1:" + new URL(target.url).port + "/hooks/…");
    expect(created).toMatchObject({ format: "json", enabled: true, event_kinds: ["fill", "session_status"] });
    // The secret is shown once: never in a read.
    const listed = await api.json("GET", "/api/v1/webhooks", 200, { token: user.token });
    expect(listed.total).toBe(1);
    expect(JSON.stringify(listed)).not.toContain(created.secret);
    expect(JSON.stringify(listed)).not.toContain("/hooks/abc");

    const queued = await api.json("POST", `/api/v1/webhooks/${created.id}/test`, 202, { token: user.token });
    const started = Date.now();
    await deliverUntil(runnerOf(api), () => target.received.length >= 2);
    expect(target.received).toHaveLength(2);
    // The retry waited its second (the schedule's first delay).
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);

    for (const [index, { headers, body }] of target.received.entries()) {
      const timestamp = headers["x-tp-timestamp"] as string;
      const expected = `v1=${createHmac("sha256", created.secret).update(`${timestamp}.${body}`).digest("hex")}`;
      expect(headers["x-tp-signature"]).toBe(expected);
      expect(verifySignature(created.secret, timestamp, body, expected, Date.now())).toBe(true);
      expect(verifySignature("whsec_other", timestamp, body, expected, Date.now())).toBe(false);
      expect(headers["x-tp-delivery"]).toBe(queued.delivery_id);
      expect(headers["x-tp-event"]).toBe("test");
      expect(headers["x-tp-attempt"]).toBe(String(index + 1));
      expect(JSON.parse(body)).toMatchObject({ id: queued.delivery_id, kind: "test", text: "Test delivery of webhook desk", data: { webhook_id: created.id } });
    }

    const page = await api.json("GET", `/api/v1/webhooks/${created.id}/deliveries`, 200, { token: user.token });
    expect(page.items).toHaveLength(1);
    const [delivery] = page.items;
    expect(delivery).toMatchObject({ id: queued.delivery_id, kind: "test", status: "delivered", next_attempt_at: null });
    expect(delivery.attempts.map((a: any) => [a.attempt, a.status_code, a.error])).toEqual([
      [1, 500, null],
      [2, 200, null],
    ]);
    expect(delivery.attempts.every((a: any) => Number.isInteger(a.duration_ms) && a.duration_ms >= 0)).toBe(true);
    // Each item carries its expiry (30 days).
    const stored = await api.services.webhookDelivery.store.getDelivery(created.id, queued.delivery_id);
    expect(stored!.expires_at - Math.floor(Date.now() / 1000)).toBeGreaterThan(29 * 86_400);
  });

  it("answers 404 for another user's webhook and 422 listing every problem of a body", async () => {
    const other = await api.createUser();
    const created = await api.json("POST", "/api/v1/webhooks", 201, { token: user.token, body: { url: "http://127.0.0.1:9/x", event_kinds: ["fill"] } });
    await api.json("GET", `/api/v1/webhooks/${created.id}`, 404, { token: other.token });
    await api.json("POST", `/api/v1/webhooks/${created.id}/test`, 404, { token: other.token });
    const bad = await api.json("POST", "/api/v1/webhooks", 422, {
      token: user.token,
      body: { url: "ftp://example.com/x", event_kinds: ["fill", "fill", "nope"], format: "telegram" },
    });
    expect(bad.detail.map((issue: any) => issue.loc.join("."))).toContain("body.event_kinds.2");
    const scheme = await api.json("POST", "/api/v1/webhooks", 422, {
      token: user.token,
      body: { url: "ftp://example.com/x", event_kinds: ["fill"], format: "telegram" },
    });
    expect(scheme.detail.map((issue: any) => [issue.loc.join("."), issue.type])).toEqual([
      ["body.url", "url_scheme"],
      ["body.chat_id", "missing"],
    ]);
  });
});

describe("webhook destinations outside the egress rules", () => {
  let api: TestApi;
  let user: { id: string; token: string };

  beforeAll(async () => {
    api = await createTestApi();
    user = await api.createUser();
  });

  it("refuses a loopback or private URL with 422 unless allowed, and sends nothing to it once the allowance is gone", async () => {
    const target = await receiver();
    servers.push(target.server);
    for (const url of [target.url, "http://10.0.0.8/hook", "https://169.254.169.254/latest", "http://[::1]:8080/x"]) {
      const refused = await api.json("POST", "/api/v1/webhooks", 422, { token: user.token, body: { url, event_kinds: ["fill"] } });
      expect(refused.detail).toEqual([expect.objectContaining({ loc: ["body", "url"], type: "destination_refused" })]);
      expect(refused.detail[0].msg).toContain("is not an allowed destination");
    }
    // An administrator allows the host in the broker network settings: the same rules, the same list.
    const admin = await api.adminToken();
    await api.json("PUT", "/api/v1/settings/broker-network", 200, { token: admin, body: { allowed_hosts: ["127.0.0.1"] } });
    const created = await api.json("POST", "/api/v1/webhooks", 201, { token: user.token, body: { url: target.url, event_kinds: ["fill"] } });
    await api.json("PUT", "/api/v1/settings/broker-network", 200, { token: admin, body: { allowed_hosts: [] } });

    const queued = await api.json("POST", `/api/v1/webhooks/${created.id}/test`, 202, { token: user.token });
    await runnerOf(api).drain("webhook-delivery");
    expect(target.received).toHaveLength(0);
    const page = await api.json("GET", `/api/v1/webhooks/${created.id}/deliveries`, 200, { token: user.token });
    expect(page.items).toHaveLength(1);
    expect(page.items[0]).toMatchObject({ id: queued.delivery_id, status: "refused", next_attempt_at: null });
    expect(page.items[0].attempts).toHaveLength(1);
    expect(page.items[0].attempts[0]).toMatchObject({ attempt: 1, status_code: null });
    expect(page.items[0].attempts[0].error).toContain("is not an allowed destination");
    expect(await (api.services.jobs as TableQueue).depth("webhook-delivery")).toEqual({ pending: 0, deadLetter: 0 });
  });
});

describe("a real session's events", () => {
  let api: TestApi;
  let owner: { id: string; token: string };
  let clock = Date.parse("2024-03-15T14:30:00Z");
  let worker: SessionWorker;

  beforeAll(async () => {
    api = await createTestApi({ BROKER_ALLOWED_HOSTS: "127.0.0.1" }, { now: () => clock });
    owner = await api.createUser();
    api.services.realtime.pusher = { post: async () => "sent" };
    worker = new SessionWorker(api.services, { marketData: await api.services.marketData(), tickMs: 1e9, refreshMs: 1e9, metricsMs: 1e9 });
    await worker.start();
  });

  afterAll(async () => {
    await worker?.stop();
  });

  it("deliver a session's start and stop to the webhook subscribed to session_status, and nothing to one subscribed to fills", async () => {
    const statuses = await receiver();
    const fills = await receiver();
    servers.push(statuses.server, fills.server);
    const watching = await api.json("POST", "/api/v1/webhooks", 201, { token: owner.token, body: { url: statuses.url, event_kinds: ["session_status"] } });
    await api.json("POST", "/api/v1/webhooks", 201, { token: owner.token, body: { url: fills.url, event_kinds: ["fill", "alert_critical"] } });
    const session = await api.json("POST", "/api/v1/trading/sessions", 201, {
      token: owner.token,
      body: {
        session_name: "Notified",
        trading_mode: "simulation",
        asset_mode: "simulated",
        initial_capital: "100000",
        config: { channels: ChannelPresets.get("balanced-multi").channels, symbols: ["AAPL.US"], venue: "bars" },
      },
    });
    for (const action of ["start", "stop"]) {
      clock += 60_000;
      await api.json("POST", `/api/v1/trading/sessions/${session.id}/${action}`, 200, { token: owner.token });
      await worker.tick();
    }
    const runner = runnerOf(api);
    await deliverUntil(runner, () => statuses.received.length >= 2, 20_000);
    await runner.drain("webhook-delivery");

    // One delivery per session change, however many channels it moved.
    expect(statuses.received.map(({ headers }) => headers["x-tp-event"])).toEqual(["session_status", "session_status"]);
    // A batch's deliveries are sent side by side: they arrive in either order, each stamped with when its event occurred.
    const bodies = statuses.received.map(({ body }) => JSON.parse(body)).sort((a, b) => a.occurred_at.localeCompare(b.occurred_at));
    expect(bodies.map((b) => [b.session_id, b.data.session_action, b.data.session_status])).toEqual([
      [session.id, "start", "running"],
      [session.id, "stop", "stopped"],
    ]);
    expect(bodies[1].text).toBe(`Session ${session.id}: stop, now stopped`);
    expect(fills.received).toHaveLength(0);
    const page = await api.json("GET", `/api/v1/webhooks/${watching.id}/deliveries`, 200, { token: owner.token });
    expect(page.items.map((d: any) => [d.kind, d.status, d.session_id])).toEqual([
      ["session_status", "delivered", session.id],
      ["session_status", "delivered", session.id],
    ]);
  });

  it("deliver a change made through the channel routes' own function (as composed on AWS) too", async () => {
    const statuses = await receiver();
    servers.push(statuses.server);
    await api.json("POST", "/api/v1/webhooks", 201, { token: owner.token, body: { url: statuses.url, event_kinds: ["session_status"] } });
    const session = await api.json("POST", "/api/v1/trading/sessions", 201, {
      token: owner.token,
      body: {
        session_name: "Through channels",
        trading_mode: "simulation",
        asset_mode: "simulated",
        initial_capital: "100000",
        config: { channels: ChannelPresets.get("balanced-multi").channels, symbols: ["AAPL.US"], venue: "bars" },
      },
    });
    // The channels function's services, as functions/src/http/channels.ts composes them on its own context.
    const c = serviceContext(api.services.config, { now: () => clock });
    const channels = createSingleGroupApp(channelsGroup, {
      config: c.config,
      principals: principals(c),
      audit: audit(c),
      trading: { channels: tradingChannels(c) },
    });
    clock += 60_000;
    const started = await channels.request(`/api/v1/channels/sessions/${session.id}/start`, {
      method: "POST",
      headers: { Authorization: `Bearer ${owner.token}` },
    });
    expect(started.status).toBe(200);
    const runner = runnerOf(api);
    await deliverUntil(runner, () => statuses.received.length >= 1, 20_000);
    const bodies = statuses.received.map(({ body }) => JSON.parse(body));
    expect(bodies.map((b) => [b.session_id, b.data.session_action, b.data.session_status])).toEqual([[session.id, "start", "running"]]);
  });
});
