import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// The shape of the tree, checked on every run: no import cycle between modules (type-only imports
// count: a cycle of types is still a cycle of ownership) and no import that runs up the layers.

const root = resolve(import.meta.dirname, "../..");
const packagesDir = join(root, "packages");

/** Packages each package may not import (the layers: core < adapters < api < functions, local, worker). */
const forbidden: Record<string, readonly string[]> = {
  core: ["adapters", "api", "functions", "local", "worker", "client"],
  adapters: ["api", "functions", "local", "worker", "client"],
  api: ["functions", "local", "worker", "client"],
};

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "node_modules" ? [] : sourceFiles(path);
    return path.endsWith(".ts") && !path.endsWith(".d.ts") ? [path] : [];
  });

const packageOf = (file: string): string => relative(packagesDir, file).split("/")[0];

const resolveFile = (base: string): string | undefined =>
  [base, `${base}.ts`, join(base, "index.ts"), base.replace(/\.js$/, ".ts")].find((path) => existsSync(path) && statSync(path).isFile());

/** Every specifier a file imports or re-exports, static, dynamic or in an `import("…")` type. */
const specifiers = (file: string): string[] => ts.preProcessFile(readFileSync(file, "utf8"), true, true).importedFiles.map((entry) => entry.fileName);

/** The project file a specifier names, or undefined for a third-party or Node module. */
const target = (from: string, specifier: string): string | undefined => {
  if (specifier.startsWith(".")) return resolveFile(resolve(dirname(from), specifier));
  const ours = /^@tp\/([a-z-]+)(?:\/(.*))?$/.exec(specifier);
  if (!ours) return undefined;
  return resolveFile(join(packagesDir, ours[1], "src", ours[2] ?? "index"));
};

const files = readdirSync(packagesDir).flatMap((name) => {
  const src = join(packagesDir, name, "src");
  return existsSync(src) ? sourceFiles(src) : [];
});

const graph = new Map<string, string[]>(
  files.map((file) => [
    file,
    specifiers(file)
      .map((specifier) => target(file, specifier))
      .filter((path): path is string => path !== undefined),
  ]),
);

/** Strongly connected components of more than one module, or a module importing itself (Tarjan). */
const cycles = (edges: Map<string, string[]>): string[][] => {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (edges.get(node) ?? []).includes(node)) found.push(component.map((path) => relative(root, path)).sort());
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return found;
};

/**
 * A file's folder `depth` levels under its package's `src/`: at 1 the folder right under it
 * (`core/trading`, `adapters/stores`), at 2 the one inside that (`core/trading/session`); a file
 * shallower than that is a folder of its own (`core/auth.ts`, `core/trading/index.ts`).
 */
const folderOf = (file: string, depth = 1): string => {
  const [pkg, , ...rest] = relative(packagesDir, file).split("/");
  return [pkg, ...rest.slice(0, depth)].join("/");
};

/**
 * The import graph between folders at a depth (an edge per folder a folder's files import, none to
 * itself); below the first level, only between folders inside the same folder (a circle through
 * another top-level folder is one at the first level).
 */
const folderGraph = (depth = 1): Map<string, string[]> => {
  const edges = new Map<string, Set<string>>();
  for (const [file, imports] of graph) {
    const from = folderOf(file, depth);
    const set = edges.get(from) ?? new Set<string>();
    for (const target of imports) {
      const to = folderOf(target, depth);
      if (to !== from && (depth === 1 || folderOf(target, depth - 1) === folderOf(file, depth - 1))) set.add(to);
    }
    edges.set(from, set);
  }
  return new Map([...edges].map(([folder, set]) => [folder, [...set]]));
};

describe("the structure of the tree", () => {
  it("reads the import graph of every package (the guard is not checking an empty tree)", () => {
    expect(files.length).toBeGreaterThan(100);
    const coreFile = files.find((file) => file.endsWith(join("core", "src", "trading", "session", "sessions.ts")))!;
    expect(graph.get(coreFile)!.length).toBeGreaterThan(0);
  });

  it("finds a cycle, type-only imports included, in a graph built to have one", () => {
    const sample = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a"]],
      ["d", ["a"]],
    ]);
    expect(cycles(sample)).toEqual([["a", "b", "c"]]);
    const typeOnly = ts.preProcessFile('import type { X } from "./x";\nexport type Y = import("./y").Y;\n', true, true);
    expect(typeOnly.importedFiles.map((entry) => entry.fileName)).toEqual(["./x", "./y"]);
  });

  it("has no import cycle between modules", () => {
    expect(cycles(graph)).toEqual([]);
  });

  it("has no import cycle between folders (a folder right under a package's src/)", () => {
    const folders = folderGraph();
    // The graph is the folders' (not checking an empty one): backtests import trading, and the engine the money folder.
    expect(folders.get("core/backtests")).toContain("core/trading");
    expect(folders.get("core/engine")).toContain("core/money");
    expect(cycles(folders).map((cycle) => cycle.join(" <-> "))).toEqual([]);
  });

  it("has no import cycle between the folders inside a folder (core/trading/session, core/trading/channels)", () => {
    const folders = folderGraph(2);
    // The graph is the inner folders' (not checking an empty one): the channels import the session, the session the run.
    expect(folders.get("core/trading/channels")).toContain("core/trading/session");
    expect(folders.get("core/trading/session")).toContain("core/trading/run");
    expect(cycles(folders).map((cycle) => cycle.join(" <-> "))).toEqual([]);
  });

  it("keeps every source file at 500 lines or fewer, but the two kernels and generated code", () => {
    const exempt = [
      "packages/adapters/src/provider/simulated/simulation-engine.ts",
      "packages/adapters/src/provider/longport/codec.ts",
      "packages/client/src/generated/",
    ];
    const long = files
      .map((file) => ({ file: relative(root, file), lines: readFileSync(file, "utf8").split("\n").length - 1 }))
      .filter(({ file, lines }) => lines > 500 && !exempt.some((path) => file.startsWith(path)));
    expect(long).toEqual([]);
  });

  it("imports nothing up the layers: core none of ours, adapters not api or the runtimes, api not the runtimes", () => {
    const upward = files.flatMap((file) =>
      (graph.get(file) ?? [])
        .filter((to) => forbidden[packageOf(file)]?.includes(packageOf(to)))
        .map((to) => `${relative(root, file)} -> ${relative(root, to)}`),
    );
    expect(upward).toEqual([]);
  });
});
