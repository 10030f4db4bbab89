import { describe, expect, it } from "vitest";
import { sendBackoffMs } from "./send-backoff";

describe("a session's sends after failures that decided nothing", () => {
  it("wait a second, doubling with each failure in a row up to 30 s, and at least what the broker asked", () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((failures) => sendBackoffMs(failures, 0))).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
    expect(sendBackoffMs(1, 2000)).toBe(2000);
    expect(sendBackoffMs(3, 2000)).toBe(4000);
  });
});
