import { afterEach, describe, expect, it, vi } from "vitest";
import { consoleLogger, useLogger, type LogFields } from "@tp/core/log";

const polled = vi.hoisted(() => ({ result: { sync_state: "stopped", started: false } as { sync_state: string; started: boolean } }));
vi.mock("@tp/core/data-sync/index", () => ({ DataSync: { poll: async () => polled.result } }));

const { dataSyncPollHandler } = await import("./data-sync-poll");

afterEach(() => useLogger(consoleLogger));

describe("the polling gap fill's log line", () => {
  it("is written when a poll starts a gap fill, and not for a poll with nothing to do (every 5 s under npm start's accelerated clock)", async () => {
    const lines: [string, LogFields | undefined][] = [];
    const record = (message: string, fields?: LogFields) => lines.push([message, fields]);
    useLogger({ info: record, warn: record, error: record });
    const poll = dataSyncPollHandler(async () => ({ dataSync: {} as never }));

    polled.result = { sync_state: "stopped", started: false };
    expect(await poll()).toEqual({ sync_state: "stopped", started: false });
    polled.result = { sync_state: "ready", started: false };
    await poll();
    expect(lines).toEqual([]);

    polled.result = { sync_state: "syncing", started: true };
    await poll();
    expect(lines).toEqual([["Polling gap fill", { source: "data-sync", sync_state: "syncing", started: true }]]);
  });
});
