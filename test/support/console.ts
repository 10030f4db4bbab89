import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** Builds the console (what `npm run build:console` does) into a new folder of its own and returns it. */
export function buildConsole(): string {
  const out = mkdtempSync(join(tmpdir(), "tp-console-"));
  const root = resolve(import.meta.dirname, "../..");
  execFileSync("npm", ["run", "build", "--silent", "-w", "@tp/console", "--", "--outDir", out], { cwd: root, stdio: "pipe" });
  return out;
}
