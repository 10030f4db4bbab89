interface Waiting<T> {
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

/**
 * Reads of one key that arrive together share one round trip, without ever answering from a read
 * that began before the caller asked: a read that arrives while another of its key is under way
 * waits for it to end and then shares the next one with every read that arrived meanwhile. Each
 * caller so sees every write that completed before it asked (the reads are strongly consistent),
 * and 100 requests reading one session at once cost two reads, not 100. Each caller gets its own
 * copy of the item.
 */
export class SharedReads<T> {
  private readonly waiting = new Map<string, Waiting<T>[]>();

  read(key: string, load: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const queue = this.waiting.get(key);
      if (queue) queue.push({ resolve, reject });
      else {
        const fresh = [{ resolve, reject }];
        this.waiting.set(key, fresh);
        void this.drain(key, fresh, load);
      }
    });
  }

  private async drain(key: string, queue: Waiting<T>[], load: () => Promise<T>) {
    while (queue.length > 0) {
      const readers = queue.splice(0);
      try {
        const value = await load();
        readers.forEach((reader, index) => {
          reader.resolve(index === 0 ? value : structuredClone(value));
        });
      } catch (error) {
        for (const reader of readers) reader.reject(error);
      }
    }
    this.waiting.delete(key);
  }
}
