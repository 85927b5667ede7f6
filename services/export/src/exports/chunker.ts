/**
 * Gathers the text of an export into messages of `size` bytes: rows are small and many, a
 * message per row would cost more in framing than it carries, and one huge page is cut up
 * rather than sent whole. Cutting may split a UTF-8 character; the file is the bytes in order.
 */
export class Chunker {
  private parts: Buffer[] = [];
  private bytes = 0;

  constructor(private readonly size: number) {}

  /** Adds text; answers the messages now full (often none). */
  push(text: string): Buffer[] {
    if (!text) return [];
    const buf = Buffer.from(text, 'utf8');
    this.parts.push(buf);
    this.bytes += buf.length;
    if (this.bytes < this.size) return [];
    const all = Buffer.concat(this.parts, this.bytes);
    const out: Buffer[] = [];
    let at = 0;
    for (; all.length - at >= this.size; at += this.size) out.push(all.subarray(at, at + this.size));
    // A copy, so the rest does not keep the whole concatenation alive.
    const rest = Buffer.from(all.subarray(at));
    this.parts = rest.length ? [rest] : [];
    this.bytes = rest.length;
    return out;
  }

  /** What is left, or null. */
  flush(): Buffer | null {
    if (!this.bytes) return null;
    const out = Buffer.concat(this.parts, this.bytes);
    this.parts = [];
    this.bytes = 0;
    return out;
  }
}
