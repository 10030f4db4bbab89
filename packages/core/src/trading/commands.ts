import type { EngineEvent } from "../engine/events";

/**
 * Session commands (docs/session-worker.md): what the API did to a simulation or live session,
 * sent to the session worker through a FIFO queue whose message group is the session, so one
 * session's commands arrive in the order they were made.
 *
 * The API applies each input to the session's run itself (one conditional save, `updateRun`), so
 * its answer can carry the result; the command then tells the worker what changed:
 *
 * - `lifecycle` (start, stop, pause, resume): the worker reads its list of live sessions at
 *   once, rather than on its next refresh.
 * - `input` (a manual order, a cancel, a replacement, a daily reset, a risk change): the events
 *   it wrote, which the worker pushes to the session's socket through the update feed, as it
 *   pushes its own.
 */
export interface SessionCommand {
  session_id: string;
  kind: "lifecycle" | "input";
  /** `start`, `stop`, `pause`, `resume`; `order`, `cancel`, `replace`, `reset_daily`, `risk_config`. */
  action: string;
  /** The events the input wrote (none for a lifecycle command). */
  events: EngineEvent[];
  /** Epoch ms (the market's clock) when it was made. */
  at: number;
}

/** The API's side: sends a command (SQS FIFO on AWS, the table-backed queue locally). */
export interface SessionCommandSink {
  send(command: SessionCommand): Promise<void>;
}

/** The worker's side: receives commands in order and deletes them once handled. */
export interface SessionCommandSource {
  receive(max: number): Promise<{ receipt: string; command: SessionCommand }[]>;
  delete(receipt: string): Promise<void>;
}

/** Sends a command when the deps carry a sink (functions and runtimes that trade do; tests of the views alone need not). */
export async function notifyWorker(
  deps: { commands?: SessionCommandSink; now: () => number },
  sessionId: string,
  kind: SessionCommand["kind"],
  action: string,
  events: EngineEvent[] = [],
) {
  if (!deps.commands) return;
  if (kind === "input" && events.length === 0) return;
  await deps.commands.send({ session_id: sessionId, kind, action, events, at: deps.now() });
}
