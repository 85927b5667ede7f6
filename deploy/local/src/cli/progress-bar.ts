/**
 * One line of progress on a terminal: a bar (or, with no known total, a moving block) and a
 * text, redrawn in place at most ten times a second. Drawn only when the stream is a terminal, so
 * pipes and files never see it.
 */
export class ProgressBar {
  private lastDraw = 0;
  private tick = 0;
  private drawn = false;
  readonly enabled: boolean;

  constructor(
    private readonly stream: NodeJS.WriteStream,
    enabled = true,
  ) {
    this.enabled = enabled && stream.isTTY === true;
  }

  /** `fraction` 0..1, or null when the total is unknown. */
  update(fraction: number | null, text: string, force = false): void {
    if (!this.enabled) return;
    const now = Date.now();
    if (!force && now - this.lastDraw < 100) return;
    this.lastDraw = now;
    const columns = this.stream.columns || 80;
    const width = Math.max(10, Math.min(30, columns - text.length - 4));
    const line = `${bar(fraction, width, this.tick++)} ${text}`.slice(0, columns - 1);
    this.stream.write(`\r\x1b[2K${line}`);
    this.drawn = true;
  }

  /** Clears the line (the summary is printed after it). */
  done(): void {
    if (this.enabled && this.drawn) this.stream.write('\r\x1b[2K');
    this.drawn = false;
  }
}

export const bar = (fraction: number | null, width: number, tick = 0): string => {
  if (fraction === null) {
    const block = Math.max(3, Math.floor(width / 5));
    const span = width - block;
    const at = span > 0 ? Math.abs((tick % (2 * span)) - span) : 0;
    return `[${' '.repeat(at)}${'='.repeat(block)}${' '.repeat(width - block - at)}]`;
  }
  const filled = Math.round(Math.min(1, Math.max(0, fraction)) * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
};

export const formatBytes = (n: number): string =>
  n < 1024 ? `${n} B` : n < 1024 ** 2 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 ** 2).toFixed(1)} MB`;

export const formatSeconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
