/**
 * Per-host politeness within this process: at most `limit` fetches in flight to one host, the
 * rest wait their turn in order. (Several scrape processes each apply their own limit.)
 */
export class HostLimiter {
  private readonly active = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();

  constructor(private readonly limit: number) {}

  async run<T>(host: string, limit: number, fn: () => Promise<T>): Promise<T> {
    const max = Math.max(1, Math.min(limit, this.limit));
    while ((this.active.get(host) ?? 0) >= max) {
      await new Promise<void>((resolve) => {
        const queue = this.waiting.get(host) ?? [];
        queue.push(resolve);
        this.waiting.set(host, queue);
      });
    }
    this.active.set(host, (this.active.get(host) ?? 0) + 1);
    try {
      return await fn();
    } finally {
      const left = (this.active.get(host) ?? 1) - 1;
      if (left === 0) this.active.delete(host);
      else this.active.set(host, left);
      const queue = this.waiting.get(host);
      const next = queue?.shift();
      if (queue && queue.length === 0) this.waiting.delete(host);
      next?.();
    }
  }
}
