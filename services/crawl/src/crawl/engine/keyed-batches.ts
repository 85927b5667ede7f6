interface Queue<T> {
  waiting: { item: T; resolve: () => void; reject: (err: unknown) => void }[];
  running: boolean;
  /** When the oldest waiting item arrived (the linger counts from it). */
  firstAt: number;
  /** Ends a linger early: set while the queue lingers. */
  wake?: () => void;
}

/**
 * A batch may wait a little for more of its key's items: up to `ms` from its first item's
 * arrival, while fewer than `enough(key)` are waiting.
 */
export interface Linger {
  ms: number;
  enough: (key: string) => number;
}

/**
 * Items of one key that arrive while that key's batch runs wait, and go together in its next
 * batch: for a crawl, results settle in one step (one transaction, one dispatch), so the lock a
 * crawl's steps take in turn costs once per batch rather than once per page. With a `linger`, a
 * batch also waits briefly for the items its key still expects, so a batch is not one item
 * because the last one ended just before it. Each item's promise resolves when its batch has run.
 * A failing batch runs again item by item, so one bad item does not hold back the others (its own
 * promise rejects).
 */
export class KeyedBatches<T> {
  private readonly queues = new Map<string, Queue<T>>();

  constructor(
    private readonly run: (items: T[]) => Promise<void>,
    private readonly maxBatch: number,
    private readonly linger?: Linger,
  ) {}

  add(key: string, item: T): Promise<void> {
    return this.addAll(key, [item]);
  }

  /** Items that arrived together: they wait (and go) together. Resolves when all have run. */
  async addAll(key: string, items: T[]): Promise<void> {
    let queue = this.queues.get(key);
    if (!queue) this.queues.set(key, (queue = { waiting: [], running: false, firstAt: 0 }));
    if (!queue.waiting.length) queue.firstAt = performance.now();
    const done = items.map(
      (item) => new Promise<void>((resolve, reject) => queue.waiting.push({ item, resolve, reject })),
    );
    if (queue.wake && queue.waiting.length >= this.enough(key)) queue.wake();
    if (!queue.running) void this.drain(key, queue);
    await Promise.all(done);
  }

  private enough(key: string): number {
    return Math.min(this.maxBatch, Math.max(1, this.linger?.enough(key) ?? 1));
  }

  /**
   * Waits until the key has enough items waiting, or its first waiting item has waited `ms`;
   * null when it need not wait (no tick is spent, so a batch takes what has arrived so far).
   */
  private gather(key: string, queue: Queue<T>): Promise<void> | null {
    const left = (this.linger?.ms ?? 0) - (performance.now() - queue.firstAt);
    if (left <= 0 || queue.waiting.length >= this.enough(key)) return null;
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => queue.wake?.(), left);
      queue.wake = () => {
        clearTimeout(timer);
        queue.wake = undefined;
        resolve();
      };
    });
  }

  private async drain(key: string, queue: Queue<T>): Promise<void> {
    queue.running = true;
    try {
      while (queue.waiting.length) {
        const gathering = this.gather(key, queue);
        if (gathering) await gathering;
        const batch = queue.waiting.splice(0, this.maxBatch);
        // Items left over the bound have waited already: they go next without lingering.
        if (queue.waiting.length) queue.firstAt = 0;
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
