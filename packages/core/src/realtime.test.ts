import { describe, expect, it } from "vitest";
import { BATCH_FRAME_BYTES, framesOf } from "./realtime";

const body = (n: number, bytes: number) => JSON.stringify({ type: "log", data: { n, pad: "x".repeat(bytes) } });

describe("framesOf", () => {
  it("sends a frame per message to a connection that did not ask for batches", () => {
    const bodies = [body(1, 10), body(2, 10)];
    expect(framesOf(bodies, undefined)).toEqual(bodies.map((text) => ({ text, count: 1 })));
  });

  it("packs a batch connection's messages into JSON arrays, in order, none over BATCH_FRAME_BYTES; a larger message alone", () => {
    const bodies = [...Array.from({ length: 30 }, (_, n) => body(n, 10_000)), body(30, 200_000), body(31, 10)];
    const frames = framesOf(bodies, true);
    expect(frames.map((f) => f.count)).toEqual([9, 9, 9, 3, 1, 1]);
    expect(frames.flatMap((f) => JSON.parse(f.text))).toEqual(bodies.map((b) => JSON.parse(b)));
    for (const frame of frames.slice(0, 4)) expect(Buffer.byteLength(frame.text)).toBeLessThanOrEqual(BATCH_FRAME_BYTES);
    expect(framesOf([], true)).toEqual([]);
  });
});
