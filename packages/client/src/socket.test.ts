import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { SessionStream, type UpdatesPage, type WebSocketLike } from "./socket";

/** A stand-in WebSocket the test opens, feeds and cuts. */
class FakeSocket implements WebSocketLike {
  static opened: FakeSocket[] = [];
  readyState = 0;
  sent: string[] = [];
  closedWith: number | undefined;
  onopen: ((event: never) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number; reason: string }) => void) | null = null;
  onerror: ((event: never) => void) | null = null;
  constructor(readonly url: string) {
    FakeSocket.opened.push(this);
  }
  send(data: string) {
    this.sent.push(data);
  }
  close(code = 1000) {
    this.closedWith = code;
    this.drop(code);
  }
  open() {
    this.readyState = 1;
    this.onopen?.(undefined as never);
  }
  push(message: unknown) {
    this.onmessage?.({ data: JSON.stringify(message) });
  }
  drop(code: number) {
    this.readyState = 3;
    this.onclose?.({ code, reason: "" });
  }
}

const record = (second: number) => ({
  type: "channel_update",
  data: { channel_id: "a", sequence: second },
  timestamp: `2026-01-01T00:00:${String(second).padStart(2, "0")}.000Z`,
});

/** A feed holding `records`, answering `since` as the service does. */
function feed(records: ReturnType<typeof record>[]) {
  const asked: (string | undefined)[] = [];
  const updates = async (since: string | undefined): Promise<UpdatesPage> => {
    asked.push(since);
    const after = records.filter((r) => since === undefined || r.timestamp > since);
    return { updates: after, last_timestamp: after.at(-1)?.timestamp ?? since ?? null, has_more: false };
  };
  return { updates, asked, records };
}

async function follow(source: ReturnType<typeof feed>, since?: string) {
  const received: unknown[] = [];
  const statuses: string[] = [];
  const stream = new SessionStream(
    { url: () => "ws://service/ws/trading/s1?token=t", updates: source.updates },
    { onMessage: (message) => received.push(message), onStatus: (status) => statuses.push(status) },
    { WebSocket: FakeSocket, since },
  );
  await stream.start();
  return { stream, received, statuses };
}

const settle = () => vi.advanceTimersByTimeAsync(0);

beforeEach(() => {
  vi.useFakeTimers();
  FakeSocket.opened = [];
});
afterEach(() => vi.useRealTimers());

describe("SessionStream", () => {
  it("pings every 15 s while open, and stops when the socket closes", async () => {
    const { stream } = await follow(feed([]));
    const socket = FakeSocket.opened[0]!;
    socket.open();
    await vi.advanceTimersByTimeAsync(45_000);
    expect(socket.sent).toEqual(Array(3).fill('{"type":"ping"}'));
    stream.close();
    await vi.advanceTimersByTimeAsync(30_000);
    expect(socket.sent).toHaveLength(3);
    expect(socket.closedWith).toBe(1000);
  });

  it("reconnects after 1 s, 3 s and 10 s, then gives up; a close with 1000 is not retried", async () => {
    const { statuses } = await follow(feed([]));
    FakeSocket.opened[0]!.open();
    // Each attempt fails too: the waits are 1 s, 3 s, 10 s.
    for (const [index, delay] of [1_000, 3_000, 10_000].entries()) {
      FakeSocket.opened[index]!.drop(1006);
      await vi.advanceTimersByTimeAsync(delay - 1);
      expect(FakeSocket.opened).toHaveLength(index + 1);
      await vi.advanceTimersByTimeAsync(1);
      expect(FakeSocket.opened).toHaveLength(index + 2);
    }
    FakeSocket.opened[3]!.drop(1006);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(FakeSocket.opened).toHaveLength(4);
    expect(statuses).toEqual(["connecting", "open", "reconnecting", "reconnecting", "reconnecting", "reconnecting", "reconnecting", "reconnecting", "closed"]);

    FakeSocket.opened = [];
    const normal = await follow(feed([]));
    FakeSocket.opened[0]!.open();
    FakeSocket.opened[0]!.drop(1000);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(FakeSocket.opened).toHaveLength(1);
    expect(normal.statuses).toEqual(["connecting", "open", "closed"]);
  });

  it("starts after where the feed ends, and after a cut catches up through updates?since= the last timestamp it handed on, each message once, in order", async () => {
    const source = feed([record(1), record(2)]);
    const { received } = await follow(source);
    const first = FakeSocket.opened[0]!;
    first.open();
    await settle();
    // Pushed live; then the socket is cut while 5 and 6 are pushed (only the feed keeps them).
    source.records.push(record(3), record(4));
    first.push(record(3));
    first.push({ type: "pong", data: {}, timestamp: "x" });
    first.push(record(4));
    first.drop(1006);
    source.records.push(record(5), record(6));
    await vi.advanceTimersByTimeAsync(1_000);
    const second = FakeSocket.opened[1]!;
    second.open();
    // A push that arrives while catching up, already in the feed, and a new one after it.
    source.records.push(record(7));
    second.push(record(6));
    second.push(record(7));
    await settle();
    second.push(record(8));
    expect(received).toEqual([record(3), record(4), record(5), record(6), record(7), record(8)]);
    expect(source.asked).toEqual([undefined, "2026-01-01T00:00:02.000Z", "2026-01-01T00:00:04.000Z"]);
  });

  it("hands on the messages of a batched frame (a JSON array) one by one, in order, held while catching up like single ones", async () => {
    const source = feed([record(1)]);
    const { received } = await follow(source);
    const socket = FakeSocket.opened[0]!;
    socket.open();
    // While the catch-up reads the feed (which now holds 2), a batch of 2 and 3 arrives.
    source.records.push(record(2));
    socket.push([record(2), record(3)]);
    await settle();
    socket.push([record(4), { type: "pong", data: {}, timestamp: "x" }, record(5)]);
    socket.push(record(6));
    expect(received).toEqual([record(2), record(3), record(4), record(5), record(6)]);
  });
});
