import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

// The Node versions the project supports (README "Prerequisites", `engines`): 22 from 22.12 (what
// the functions run) and 20 from 20.19. `npm install` warns (EBADENGINE) for every installed package
// whose `engines` leaves one of them out: on 22 none does, on 20 only aws-local-stepfunctions (the
// README says so and why), whose one Node 22 call the local workflow runner supplies.

const root = resolve(import.meta.dirname, "../..");
const semver = createRequire(import.meta.url)("semver") as { satisfies(version: string, range: string): boolean };
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as {
  packages: Record<string, { engines?: { node?: string } | string[]; optional?: boolean }>;
};
const SUPPORTED = ["20.19.0", "22.12.0"];

/** Installed packages (optional ones are skipped by npm where they do not fit) whose `engines.node` excludes `version`. */
const excluding = (version: string) =>
  Object.entries(lock.packages)
    .filter(([path, entry]) => path !== "" && !entry.optional && !Array.isArray(entry.engines) && entry.engines?.node)
    .filter(([, entry]) => !semver.satisfies(version, (entry.engines as { node: string }).node))
    .map(([path]) => path.replace(/^.*node_modules\//, ""));

describe("supported Node versions", () => {
  it("are what package.json's engines says", () => {
    for (const version of SUPPORTED) expect(semver.satisfies(version, manifest.engines.node), version).toBe(true);
    expect(semver.satisfies("20.18.0", manifest.engines.node)).toBe(false);
    expect(semver.satisfies("22.11.0", manifest.engines.node)).toBe(false);
  });

  it("install without an engine notice on 22, and with only the one the README names on 20", () => {
    expect(excluding("22.12.0")).toEqual([]);
    expect(excluding("20.19.0")).toEqual(["aws-local-stepfunctions"]);
    expect(readFileSync(join(root, "README.md"), "utf8")).toMatch(/`EBADENGINE` notice: `aws-local-stepfunctions`/);
  });

  it("give the local workflow runner the one Node 22 function its Step Functions interpreter calls", async () => {
    await import("../../packages/local/src/workflow-runner");
    const withResolvers = (Promise as unknown as { withResolvers: () => { promise: Promise<unknown>; resolve: (value: unknown) => void } }).withResolvers;
    expect(withResolvers).toBeTypeOf("function");
    const { promise, resolve: settle } = withResolvers.call(Promise);
    settle(42);
    expect(await promise).toBe(42);
  });
});
