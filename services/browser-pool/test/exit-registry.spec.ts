import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '../src/config.js';
import { ExitRegistry } from '../src/exits/exit-registry.js';

const registry = () =>
  new ExitRegistry([
    new URL('http://u1:p1@10.0.0.1:8000'),
    new URL('http://u2:p2@10.0.0.2:8000'),
    new URL('http://10.0.0.3:8000'),
  ]);

describe('ExitRegistry', () => {
  it('masks credentials', () => {
    expect(
      registry()
        .list()
        .map((e) => e.url),
    ).toEqual(['http://***:***@10.0.0.1:8000', 'http://***:***@10.0.0.2:8000', 'http://10.0.0.3:8000']);
  });

  it('adopts an exit that read a host another failed on, and prefers it next time', () => {
    const r = registry();
    const first = r.choose('shop.example')!;
    r.record(first.id, 'shop.example', 'blocked', 100);
    const second = r.choose('shop.example')!;
    expect(second.id).not.toBe(first.id);
    r.record(second.id, 'shop.example', 'read', 5_000);
    expect(r.list().find((e) => e.id === second.id)!.hostsAdopted).toEqual(['shop.example']);
    for (let i = 0; i < 3; i++) expect(r.choose('shop.example')!.id).toBe(second.id);
  });

  it('marks an exit burned after repeated blocks and dead after repeated connection failures', () => {
    const r = registry();
    for (let i = 0; i < 4; i++) r.record('exit-1', `h${i}.example`, 'blocked', 10);
    for (let i = 0; i < 3; i++) r.record('exit-2', 'x.example', 'unreachable', 0);
    const [one, two, three] = r.list();
    expect(one).toMatchObject({ status: 'burned', requests: 4, failures: 4, successRate: 0 });
    expect(two!.status).toBe('dead');
    expect(three!.status).toBe('ok');
    expect(r.choose('new.example')!.id).toBe('exit-3');
  });

  it('rejects a malformed exit without echoing its credentials', () => {
    expect(() => loadConfig({ BROWSER_EXITS: 'socks5://bob:hunter2@host:1080' })).toThrow(/exit #1/);
    expect(() => loadConfig({ BROWSER_EXITS: 'socks5://bob:hunter2@host:1080' })).not.toThrow(/hunter2/);
  });
});
