/**
 * Coalesces calls: while `maxInFlight` calls are out, new items wait and go together in the
 * next one. Under load a worker's pages in flight share a call (one transaction in billing for
 * all of them); when idle an item goes at once, so nothing waits on a timer.
 */
export class CallBatcher<I, O> {
  private waiting: { item: I; resolve: (o: O) => void; reject: (err: unknown) => void }[] = [];
  private inFlight = 0;

  constructor(
    private readonly send: (items: I[]) => Promise<O[]>,
    private readonly maxInFlight: number,
    private readonly maxBatch: number,
  ) {}

  call(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.maxInFlight && this.waiting.length) {
      const batch = this.waiting.splice(0, this.maxBatch);
      this.inFlight += 1;
      this.send(batch.map((b) => b.item))
        .then(
          (outs) => batch.forEach((b, i) => b.resolve(outs[i]!)),
          (err: unknown) => batch.forEach((b) => b.reject(err)),
        )
        .finally(() => {
          this.inFlight -= 1;
          this.pump();
        });
    }
  }
}
