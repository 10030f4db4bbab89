import { KeyedQueue } from "@tp/core/util/keyed-queue";

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
  private readonly queue = new KeyedQueue<Waiting<T> & { load: () => Promise<T> }>(
    (waiting) => waiting.length,
    async (_key, readers) => {
      try {
        const value = await readers[0]!.load();
        readers.forEach((reader, index) => {
          reader.resolve(index === 0 ? value : structuredClone(value));
        });
      } catch (error) {
        for (const reader of readers) reader.reject(error);
      }
    },
  );

  read(key: string, load: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => this.queue.push(key, { resolve, reject, load }));
  }
}

/** `store` with its `get` going through `SharedReads` (by id); its other methods are its own. */
export function withSharedGets<S extends { get(id: string): Promise<unknown> }>(store: S): S {
  const reads = new SharedReads<unknown>();
  return Object.assign(Object.create(store) as S, { get: (id: string) => reads.read(id, () => store.get(id)) });
}
