import { JavaMissingError } from "./dynamodb-local";
import { PortInUseError, startLocalRuntime } from "./runtime";

/** `npm start`: the embedded runtime until Ctrl-C, which stops every child process. */
async function main() {
  // The AWS SDK warns on Node.js 20 that its releases after the first week of January 2027 will need
  // Node.js 22. The versions package-lock.json pins run on 20, which the project supports (README,
  // "Prerequisites"), so npm start turns the notice off with the SDK's documented switch; set the
  // variable to "false" to see it.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  const runtime = await startLocalRuntime({ env: process.env });
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal} received: stopping...`);
    await runtime.stop();
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
}

main().catch((error) => {
  // What the user can act on is said in one line, without a stack.
  if (error instanceof JavaMissingError || error instanceof PortInUseError) console.error(error.message);
  else console.error(error);
  process.exit(1);
});
