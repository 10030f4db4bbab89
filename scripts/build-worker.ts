import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Bundles the session worker (packages/worker/src/main.ts) into one ES module, as the functions
 * are bundled: `longport` (a native module) stays outside and is copied beside the bundle by the
 * image (packages/worker/Dockerfile). Usage: `tsx scripts/build-worker.ts [outfile]`.
 */
export async function buildWorker(outfile = join(root, ".build/worker/worker.mjs")): Promise<string> {
  await build({
    entryPoints: [join(root, "packages/worker/src/main.ts")],
    outfile,
    bundle: true,
    platform: "node",
    target: "node22",
    format: "esm",
    minify: true,
    sourcemap: false,
    external: ["longport"],
    // CommonJS dependencies call require(); an ES module bundle has none of its own.
    banner: { js: "import { createRequire as topLevelCreateRequire } from 'module'; const require = topLevelCreateRequire(import.meta.url);" },
    logLevel: "warning",
  });
  return outfile;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = await buildWorker(process.argv[2] ? resolve(process.argv[2]) : undefined);
  console.log(`Session worker bundled: ${out}`);
}
