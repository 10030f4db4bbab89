import { beforeAll, describe, expect, it } from "vitest";
import type { EngineEvent } from "../../packages/core/src/engine/events";
import { COALESCED_EVENTS, CoalescingCommandSink, type SessionCommand } from "../../packages/core/src/trading/worker/commands";
import { createTestApi, type TestApi } from "../support/harness";

/**
 * The API's session commands to the worker, coalesced per session while a send is under way
 * (docs/session-worker.md "Commands from the API"), through the embedded runtime's table queue.
 */
let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
});

const line = (sequence: number): EngineEvent => ({ sequence, time: 0, type: "log", channel_id: null, data: { level: "info", message: `line ${sequence}` } });
const input = (session: string, action: string, ...sequences: number[]): SessionCommand => ({
  session_id: session,
  kind: "input",
  action,
  events: sequences.map(line),
  at: sequences[0] ?? 0,
});
const lifecycle = (session: string, action: string): SessionCommand => ({ session_id: session, kind: "lifecycle", action, events: [], at: 0 });

/** Every command waiting in the queue, in the order received, deleted once read. */
async function received(): Promise<SessionCommand[]> {
  const source = api.services.sessionCommands;
  const out: SessionCommand[] = [];
  for (;;) {
    const batch = await source.receive(10);
    if (batch.length === 0) return out;
    for (const { receipt, command } of batch) {
      out.push(command);
      await source.delete(receipt);
    }
  }
}
const shape = (command: SessionCommand) => [command.session_id, command.kind, command.action, command.events.map((e) => e.sequence)];

describe("coalesced session commands", () => {
  it("sends the inputs made while a send of their session is under way as one command, in order; lifecycle commands alone, in their place", async () => {
    const sink = new CoalescingCommandSink(api.services.sessionCommands);
    await Promise.all([
      sink.send(input("s1", "order", 1)),
      sink.send(input("s1", "order", 2)),
      sink.send(input("s2", "cancel", 1)),
      sink.send(input("s1", "reset_daily", 3)),
      sink.send(input("s1", "order", 4, 5)),
      sink.send(lifecycle("s1", "pause")),
      sink.send(input("s1", "cancel", 6)),
      sink.send(input("s1", "order", 7)),
    ]);
    const commands = await received();
    expect(commands.filter((c) => c.session_id === "s1").map(shape)).toEqual([
      ["s1", "input", "order", [1]],
      ["s1", "input", "order,reset_daily,order", [2, 3, 4, 5]],
      ["s1", "lifecycle", "pause", []],
      ["s1", "input", "cancel,order", [6, 7]],
    ]);
    expect(commands.filter((c) => c.session_id === "s2").map(shape)).toEqual([["s2", "input", "cancel", [1]]]);
  });

  it("puts at most COALESCED_EVENTS events in one command", async () => {
    const sink = new CoalescingCommandSink(api.services.sessionCommands);
    const many = (from: number) => Array.from({ length: COALESCED_EVENTS / 2 + 1 }, (_, i) => from + i);
    await Promise.all([sink.send(input("s3", "order", 0)), ...[1, 2, 3].map((k) => sink.send(input("s3", "order", ...many(k * 1000))))]);
    const counts = (await received()).map((c) => c.events.length);
    expect(counts).toEqual([1, COALESCED_EVENTS / 2 + 1, COALESCED_EVENTS / 2 + 1, COALESCED_EVENTS / 2 + 1]);
  });
});
