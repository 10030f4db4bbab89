import type { WorkerContext } from "./context";

/** Batches of ten commands taken per step at most (the rest wait for the next step, so bars are never held up long). */
const COMMAND_ROUNDS = 10;

/** What the intake hands on: a session an input command changed (its venue reads its run), and a refresh for the lifecycle commands. */
export interface IntakeSeams {
  commanded(sessionId: string): void;
  refresh(): Promise<void>;
}

/** The intake of the API's session commands (docs/session-worker.md "Commands from the API"). */
export class Intake {
  constructor(
    private readonly context: WorkerContext,
    private readonly seams: IntakeSeams,
  ) {}

  /**
   * The API's session commands, in the order each session's were sent (docs/session-worker.md):
   * a lifecycle change reads the live sessions at once; an input's events (a manual order, a
   * cancel, a replacement, a reset, a risk change, already on the run) are pushed to the
   * session's socket. Deleted once handled; one that fails is received again later.
   */
  async takeCommands(): Promise<void> {
    const { services, driven } = this.context;
    const source = services.sessionCommands;
    let lifecycle = false;
    for (let round = 0; round < COMMAND_ROUNDS; round++) {
      const received = await source.receive(10);
      if (received.length === 0) break;
      for (const { receipt, command } of received) {
        if (command.kind === "lifecycle") lifecycle = true;
        else {
          this.seams.commanded(command.session_id);
          const session = driven.get(command.session_id)?.session ?? (await services.trading.sessions.sessions.get(command.session_id));
          if (session) await this.context.publish(session, command.events);
        }
        await source.delete(receipt);
      }
    }
    // One refresh for every lifecycle change taken in this step.
    if (lifecycle) await this.seams.refresh();
  }
}
