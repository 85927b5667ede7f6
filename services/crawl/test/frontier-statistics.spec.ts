import { describe, expect, it } from '@jest/globals';
import { createLogger } from '@tidemark/telemetry';
import { FrontierStatistics } from '../src/frontier/frontier-statistics.js';

const logger = createLogger('frontier-statistics-test', 'silent');

/** An ANALYZE that ends when the test says, recording the frontier sizes it ran at. */
const analyzer = () => {
  const ran: number[] = [];
  let finish: (err?: Error) => void = () => undefined;
  let size = 0;
  const analyze = () =>
    new Promise<void>((resolve, reject) => {
      ran.push(size);
      finish = (err) => (err ? reject(err) : resolve());
    });
  return { ran, analyze, at: (n: number) => (size = n), finish: (err?: Error) => finish(err) };
};
const settle = () => new Promise((r) => setImmediate(r));

describe('FrontierStatistics', () => {
  it('analyzes a run from 1,000 URLs on, then each time its frontier has grown fourfold', async () => {
    const a = analyzer();
    const stats = new FrontierStatistics(a.analyze, logger);
    for (const size of [10, 500, 999, 1_000, 1_500, 3_999, 4_000, 9_000, 16_000, 20_000]) {
      a.at(size);
      stats.grew('run_a', size);
      a.finish();
      await settle();
    }
    expect(a.ran).toEqual([1_000, 4_000, 16_000]);
  });

  it('runs one ANALYZE at a time: growth while one runs waits for the next step', async () => {
    const a = analyzer();
    const stats = new FrontierStatistics(a.analyze, logger);
    a.at(1_000);
    stats.grew('run_a', 1_000);
    a.at(2_000);
    stats.grew('run_b', 2_000); // run_b is due, but one is running
    expect(a.ran).toEqual([1_000]);
    a.finish();
    await settle();
    a.at(2_100);
    stats.grew('run_b', 2_100);
    expect(a.ran).toEqual([1_000, 2_100]);
  });

  it('tries again at the next growth when an ANALYZE fails', async () => {
    const a = analyzer();
    const stats = new FrontierStatistics(a.analyze, logger);
    a.at(1_000);
    stats.grew('run_a', 1_000);
    a.finish(new Error('the database is out of reach'));
    await settle();
    a.at(1_050);
    stats.grew('run_a', 1_050);
    expect(a.ran).toEqual([1_000, 1_050]);
  });
});
