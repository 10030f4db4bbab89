import { spawn, type ChildProcess } from "node:child_process";
import { resolve } from "node:path";

export interface RunningService {
  child: ChildProcess;
  base: string;
  output: () => string;
  /** What it wrote to stderr alone. */
  errors: () => string;
  stop(): Promise<number | null>;
  /** `kill -9` of the whole process group: the runtime and its DynamoDB Local die together, as in a machine crash. */
  crash(): Promise<void>;
}

/** Starts `packages/local/src/main.ts` (what `npm start` runs), or another entry, as a child process and waits for its URLs. */
export async function startService(env: Record<string, string>, entry = "packages/local/src/main.ts"): Promise<RunningService> {
  const root = resolve(import.meta.dirname, "../..");
  const child = spawn(process.execPath, ["--import", "tsx", entry], {
    cwd: root,
    env: { ...process.env, PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group, so a crash can take its children (DynamoDB Local) with it.
    detached: true,
  });
  let output = "";
  let errors = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => {
    output += chunk;
    errors += chunk;
  });
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
  const base = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`service did not start:\n${output}`)), 90_000);
    const check = () => {
      const match = /API:\s+(http:\/\/[^/\s]+)\/api\/v1/.exec(output);
      if (match && /WebSocket:\s+ws:\/\/\S+\n/.test(output)) {
        clearTimeout(timer);
        done(match[1]!);
      }
    };
    child.stdout!.on("data", check);
    child.once("exit", () => fail(new Error(`service exited:\n${output}`)));
  });
  return {
    child,
    base,
    output: () => output,
    errors: () => errors,
    async stop() {
      child.kill("SIGINT");
      return exited;
    },
    async crash() {
      process.kill(-child.pid!, "SIGKILL");
      await exited;
    },
  };
}
