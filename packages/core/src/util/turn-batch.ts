/**
 * Calls made in the same turn of the event loop, done as one batch: `add` queues an item, and once
 * the turn's synchronous work and its microtasks are over (`setImmediate`) everything queued goes to
 * `many` together. Callers that reach it side by side (the worker's feeds of every session of a
 * step, each saving its run) so share one request instead of sending one each; each caller gets its
 * own item's outcome (`many` answers one settled result per item, in order), and a `many` that
 * throws rejects every item of its batch. Items queued while a batch is under way go in the next.
 */
export class TurnBatch<I, O> {
  private waiting: { item: I; resolve: (value: O) => void; reject: (error: unknown) => void }[] = [];

  constructor(private readonly many: (items: I[]) => Promise<PromiseSettledResult<O>[]>) {}

  add(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      if (this.waiting.length === 0) setImmediate(() => void this.flush());
      this.waiting.push({ item, resolve, reject });
    });
  }

  private async flush(): Promise<void> {
    const batch = this.waiting;
    this.waiting = [];
    try {
      const outcomes = await this.many(batch.map((waiting) => waiting.item));
      batch.forEach((waiting, index) => {
        const outcome = outcomes[index];
        if (outcome?.status === "fulfilled") waiting.resolve(outcome.value);
        else waiting.reject(outcome ? outcome.reason : new Error("The batch gave no outcome for this item"));
      });
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
    }
  }
}
