import type { EngineEvent } from "../../engine/events";
import { KeyedQueue } from "../../util/keyed-queue";

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
  /** `start`, `stop`, `pause`, `resume`; `order`, `cancel`, `replace`, `reset_daily`, `risk_config` (coalesced inputs: theirs, comma-separated). */
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

/** Events one coalesced command carries at most (an SQS message holds 256 KB). */
export const COALESCED_EVENTS = 200;

interface Unsent {
  command: SessionCommand;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * A sink that sends, per session, the input commands made while an earlier send of that session
 * is under way as one command, their events in the order the commands were made (`action` lists
 * theirs, comma-separated): a burst of orders into one session costs the queue, and the worker
 * that pushes their events, one message per send instead of one per order. Lifecycle commands
 * are sent alone, in their place. A caller's `send` settles when the message carrying its command
 * is sent (docs/session-worker.md "Commands from the API").
 */
export class CoalescingCommandSink implements SessionCommandSink {
  private readonly queue = new KeyedQueue<Unsent>(coalescible, async (_sessionId, group) => {
    try {
      await this.sink.send(group.length === 1 ? group[0]!.command : merged(group.map((u) => u.command)));
      for (const unsent of group) unsent.resolve();
    } catch (error) {
      for (const unsent of group) unsent.reject(error);
    }
  });

  constructor(private readonly sink: SessionCommandSink) {}

  send(command: SessionCommand): Promise<void> {
    return new Promise<void>((resolve, reject) => this.queue.push(command.session_id, { command, resolve, reject }));
  }
}

/** How many of the first commands go in one message: a lifecycle command alone, else the inputs in a row up to `COALESCED_EVENTS` events. */
function coalescible(waiting: readonly Unsent[]): number {
  if (waiting[0]!.command.kind !== "input") return 1;
  let count = 0;
  let events = 0;
  for (const { command } of waiting) {
    if (command.kind !== "input" || (count > 0 && events + command.events.length > COALESCED_EVENTS)) break;
    count++;
    events += command.events.length;
  }
  return count;
}

const merged = (commands: SessionCommand[]): SessionCommand => ({
  session_id: commands[0]!.session_id,
  kind: "input",
  action: commands.map((c) => c.action).join(","),
  events: commands.flatMap((c) => c.events),
  at: commands[0]!.at,
});
