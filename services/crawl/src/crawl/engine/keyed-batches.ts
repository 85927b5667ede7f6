interface Queue<T> {
  waiting: { item: T; resolve: () => void; reject: (err: unknown) => void }[];
  running: boolean;
}

/**
 * Items of one key that arrive while that key's batch runs wait, and go together in its next
 * batch: for a crawl, results settle in one step (one transaction, one dispatch), so the lock a
 * crawl's steps take in turn costs once per batch rather than once per page. Each item's promise
 * resolves when its batch has run. A failing batch runs again item by item, so one bad item does
 * not hold back the others (its own promise rejects).
 */
export class KeyedBatches<T> {
  private readonly queues = new Map<string, Queue<T>>();

  constructor(
    private readonly run: (items: T[]) => Promise<void>,
    private readonly maxBatch: number,
  ) {}

  add(key: string, item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      let queue = this.queues.get(key);
      if (!queue) this.queues.set(key, (queue = { waiting: [], running: false }));
      queue.waiting.push({ item, resolve, reject });
      if (!queue.running) void this.drain(key, queue);
    });
  }

  private async drain(key: string, queue: Queue<T>): Promise<void> {
    queue.running = true;
    try {
      while (queue.waiting.length) {
        const batch = queue.waiting.splice(0, this.maxBatch);
        try {
          await this.run(batch.map((b) => b.item));
          for (const b of batch) b.resolve();
        } catch (err) {
          if (batch.length === 1) {
            batch[0]!.reject(err);
            continue;
          }
          for (const b of batch) await this.run([b.item]).then(b.resolve, b.reject);
        }
      }
    } finally {
      queue.running = false;
      if (!queue.waiting.length) this.queues.delete(key);
    }
  }
}
