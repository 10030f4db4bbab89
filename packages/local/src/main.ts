import { JavaMissingError } from "./dynamodb-local";
import { PortInUseError, startLocalRuntime } from "./runtime";

/** `npm start`: the embedded runtime until Ctrl-C, which stops every child process. */
async function main() {
  // The AWS SDK warns on Node.js 20 that its releases after the first week of January 2027 will need
  // Node.js 22. The versions package-lock.json pins run on 20, which the project supports (README,
  // "Prerequisites"), so npm start turns the notice off with the SDK's documented switch; set the
  // variable to "false" to see it.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  // The handlers are in place before anything starts: a signal during the start stops what it started.
  const starting = startLocalRuntime({ env: process.env });
  let stopping = false;
  const shutdown = async (signal: string) => {
    // Ctrl-C reaches npm and this process at once, and npm passes it on: the second is the same stop.
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal} received: stopping...`);
    try {
      // A start that fails reports itself (main's catch below).
      const runtime = await starting.catch(() => new Promise<never>(() => undefined));
      await runtime.stop();
    } catch (error) {
      console.error(`Stopping failed: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    }
    console.log("Stopped.");
    process.exit(0);
  };
  // SIGINT (Ctrl-C), SIGTERM (kill, a service manager) and SIGHUP (the terminal closed) stop alike,
  // whichever process of `npm start`'s tree gets them: npm passes them to this one (the start script
  // execs node, so no shell sits between them to drop a SIGTERM), and DynamoDB Local ignores SIGINT
  // and SIGHUP so that it stops after the service (dynamodb-local.ts).
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => void shutdown(signal));
  await starting;
}

main().catch((error) => {
  // What the user can act on is said in one line, without a stack.
  if (error instanceof JavaMissingError || error instanceof PortInUseError) console.error(error.message);
  else console.error(error);
  process.exit(1);
});
