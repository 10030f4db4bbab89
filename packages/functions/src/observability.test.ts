import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/** Imports the observability module in a fresh process with `env`; whether it made a tracer and whether the X-Ray SDK was loaded. */
function loaded(env: Record<string, string>) {
  const module = join(import.meta.dirname, "observability.ts");
  const script = `const o = await import(${JSON.stringify(module)}); const { createRequire } = await import("node:module"); console.log(JSON.stringify({ tracer: o.tracer !== undefined, xray: Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes("aws-xray-sdk-core")) }));`;
  const { AWS_LAMBDA_FUNCTION_NAME: _unset, ...parent } = process.env;
  return JSON.parse(
    execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { env: { ...parent, ...env }, encoding: "utf8" })
      .trim()
      .split("\n")
      .at(-1)!,
  );
}

/** Imports the observability module in a fresh process, writes one line through core's `log`; the line printed. */
function loggedLine() {
  const module = join(import.meta.dirname, "observability.ts");
  const log = join(import.meta.dirname, "../../core/src/log.ts");
  const script = `await import(${JSON.stringify(module)}); const { log } = await import(${JSON.stringify(log)}); log.info("Polling gap fill", { source: "data-sync", filled: 3 });`;
  const { AWS_LAMBDA_FUNCTION_NAME: _unset, POWERTOOLS_DEV: _dev, ...parent } = process.env;
  return JSON.parse(
    execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { env: parent, encoding: "utf8" }).trim().split("\n").at(-1)!,
  );
}

describe("observability", () => {
  it("installs Powertools' logger as the one logger: a line of the domain carries Powertools' fields and its own", () => {
    expect(loggedLine()).toEqual(
      expect.objectContaining({
        level: "INFO",
        message: "Polling gap fill",
        service: "trading-platform",
        source: "data-sync",
        filled: 3,
        timestamp: expect.any(String),
      }),
    );
  });

  it("loads the X-Ray tracer in Lambda only: the embedded runtime and the worker do not pay its async hook", () => {
    expect(loaded({})).toEqual({ tracer: false, xray: false });
    expect(loaded({ AWS_LAMBDA_FUNCTION_NAME: "test" })).toEqual({ tracer: true, xray: true });
  });
});
