/**
 * Per key, one drainer at a time: an item pushed while a batch of its key is under way waits and
 * goes in a later batch, batches taken in the order the items arrived. What a batch is (how many
 * of the waiting items, `take`) and what it does (`run`, which must settle each of its items and
 * not throw) are the caller's; `drain` is state that lives while a key's queue drains (created
 * with the first item, dropped when the queue runs empty). It serves the run's writers (group
 * commit, trading/run/update.ts), the shared reads of one item (adapters' SharedReads) and the
 * coalesced session commands (trading/worker/commands.ts).
 */
export class KeyedQueue<I, D = undefined> {
  private readonly queues = new Map<string, I[]>();

  constructor(
    private readonly take: (waiting: readonly I[]) => number,
    private readonly run: (key: string, batch: I[], drain: D) => Promise<void>,
    private readonly startDrain: () => D = () => undefined as D,
  ) {}

  push(key: string, item: I): void {
    const queue = this.queues.get(key);
    if (queue) queue.push(item);
    else {
      const fresh = [item];
      this.queues.set(key, fresh);
      void this.drain(key, fresh);
    }
  }

  private async drain(key: string, queue: I[]) {
    const state = this.startDrain();
    while (queue.length > 0) await this.run(key, queue.splice(0, this.take(queue)), state);
    this.queues.delete(key);
  }
}
