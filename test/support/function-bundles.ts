import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { initProject } from "sst/project.js";
import { App } from "sst/constructs";
import config from "../../sst.config";

const root = join(import.meta.dirname, "../..");
const artifacts = join(root, ".sst/artifacts");

/**
 * Builds every function of the app exactly as `sst deploy` does (`app.finish()` with
 * `NODE_ENV=test`: SST's esbuild with the project's function props, copied files; only AWS
 * look-ups and container builds are skipped) and returns the `.mjs` entry of each, keyed by its
 * handler path under packages/functions/src (`http/auth`, `queue/data-sync`…).
 */
export async function buildFunctions(stage = "test"): Promise<Map<string, string>> {
  const started = Date.now() - 1000;
  process.env.NODE_ENV = "test";
  await initProject({ stage });
  const app = new App({ mode: "deploy", stage, name: "trading-platform", region: "us-east-1" });
  config.stacks(app);
  await app.finish();
  const found = new Map<string, string>();
  for (const folder of readdirSync(artifacts)) {
    const dir = join(artifacts, folder);
    if (statSync(dir).mtimeMs < started) continue;
    const walk = (at: string): void => {
      for (const entry of readdirSync(at, { withFileTypes: true })) {
        const path = join(at, entry.name);
        if (entry.isDirectory() && entry.name !== "node_modules") walk(path);
        else if (entry.name.endsWith(".mjs")) found.set(relative(join(dir, "packages/functions/src"), path).replace(/\.mjs$/, ""), path);
      }
    };
    walk(dir);
  }
  return found;
}
