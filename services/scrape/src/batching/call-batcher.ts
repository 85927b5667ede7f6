/**
 * Coalesces calls: while `maxInFlight` calls are out, new items wait and go together in the
 * next one. Under load a worker's pages in flight share a call (one transaction in billing for
 * all of them); when idle an item goes at once, so nothing waits on a timer — unless `lingerMs`
 * is set: then a batch waits up to that long for company (or until `maxBatch` items wait), for
 * callers that are not waiting on the answer to go on (a crawl page's charge once its result is
 * handed back). `expecting`, when given, says whether more items may come soon: a batch lingers
 * only while it answers true (nothing else in the works: the batch goes at once).
 */
export class CallBatcher<I, O> {
  private waiting: { item: I; at: number; resolve: (o: O) => void; reject: (err: unknown) => void }[] = [];
  private inFlight = 0;
  private lingering: NodeJS.Timeout | null = null;

  constructor(
    private readonly send: (items: I[]) => Promise<O[]>,
    private readonly maxInFlight: number,
    private readonly maxBatch: number,
    private readonly lingerMs = 0,
    private readonly expecting: () => boolean = () => true,
  ) {}

  call(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, at: this.lingerMs > 0 ? performance.now() : 0, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    if (this.lingerMs > 0 && this.waiting.length && this.waiting.length < this.maxBatch && this.expecting()) {
      // The oldest waiting item sets the clock; the batch goes when its timer fires, with every
      // item that came before then: items of one turn go together even when that turn outlasts
      // the linger (a loaded machine), rather than the first of them alone.
      if (this.lingering) return;
      const left = this.waiting[0]!.at + this.lingerMs - performance.now();
      if (left > 0) {
        this.lingering = setTimeout(() => {
          this.lingering = null;
          this.flush();
        }, left);
        return;
      }
    }
    this.flush();
  }

  private flush(): void {
    if (this.lingering) {
      clearTimeout(this.lingering);
      this.lingering = null;
    }
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
