import { afterEach, describe, expect, it, vi } from "vitest";
import { consoleLogger, log, useLogger, type LogFields } from "./log";

afterEach(() => {
  useLogger(consoleLogger);
  vi.restoreAllMocks();
});

describe("log", () => {
  it("prints a JSON line with level, message, timestamp, service and the line's fields before a runtime installs its logger", () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    log.error("Queue handler failed", { queue: "stock-import", error: "boom" });
    const line = JSON.parse(errors.mock.calls[0]![0] as string);
    expect(line).toEqual({
      level: "ERROR",
      message: "Queue handler failed",
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      service: "trading-platform",
      queue: "stock-import",
      error: "boom",
    });
  });

  it("sends every line to the logger a runtime installed", () => {
    const lines: [string, string, LogFields | undefined][] = [];
    useLogger({
      info: (message, fields) => lines.push(["info", message, fields]),
      warn: (message, fields) => lines.push(["warn", message, fields]),
      error: (message, fields) => lines.push(["error", message, fields]),
    });
    log.info("Polling gap fill", { filled: 3 });
    log.warn("Slow", undefined);
    log.error("Failed", { id: "x" });
    expect(lines).toEqual([
      ["info", "Polling gap fill", { filled: 3 }],
      ["warn", "Slow", undefined],
      ["error", "Failed", { id: "x" }],
    ]);
  });
});
