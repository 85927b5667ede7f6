import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  BlockedAddressError,
  FetchGuard,
  guardedAgents,
  HostNotFoundError,
  parseCidr,
  routeForHost,
} from '../src/index.js';

const dns = (table: Record<string, string[]>) => async (host: string) => {
  const addrs = table[host];
  if (!addrs) throw new Error('ENOTFOUND');
  return addrs.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

describe('FetchGuard', () => {
  const strict = new FetchGuard({ allowNetworks: [], hostMap: [] });

  it.each([
    '10.0.0.1',
    '169.254.169.254',
    '127.0.0.1',
    '192.168.1.1',
    '172.20.0.1',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
    '::ffff:10.1.2.3',
    '::ffff:7f00:1',
    '::ffff:0:0',
  ])('refuses %s', async (ip) => {
    await expect(strict.resolve(ip, 80)).rejects.toBeInstanceOf(BlockedAddressError);
  });

  it('lets public addresses through', async () => {
    await expect(strict.resolve('93.184.215.14', 443)).resolves.toEqual({
      address: '93.184.215.14',
      family: 4,
      port: 443,
    });
    await expect(strict.resolve('2606:2800:21f:cb07:6820:80da:af6b:8b2c', 443)).resolves.toMatchObject({ family: 6 });
  });

  it('checks every address a name resolves to', async () => {
    const guard = new FetchGuard({
      allowNetworks: [],
      hostMap: [],
      lookup: dns({ 'mixed.example': ['93.184.215.14', '10.0.0.5'], 'ok.example': ['93.184.215.14'] }),
    });
    await expect(guard.resolve('mixed.example', 80)).rejects.toMatchObject({ address: '10.0.0.5' });
    await expect(guard.resolve('ok.example', 80)).resolves.toMatchObject({ address: '93.184.215.14' });
    await expect(guard.resolve('nowhere.example', 80)).rejects.toBeInstanceOf(HostNotFoundError);
  });

  it('judges what DNS answers in every spelling: an AAAA record may carry a private IPv4 address', async () => {
    const guard = new FetchGuard({
      allowNetworks: [parseCidr('127.0.0.1/32')!],
      hostMap: [],
      lookup: dns({
        'mapped.example': ['::ffff:a00:1'],
        'nat64.example': ['64:ff9b::a9fe:a9fe'],
        'sixtofour.example': ['2002:c0a8:101::1'],
        'loop.example': ['::ffff:7f00:1'],
        'public64.example': ['64:ff9b::5db8:d70e'],
      }),
    });
    await expect(guard.resolve('mapped.example', 80)).rejects.toThrow(/private-use 10\.0\.0\.0\/8/);
    await expect(guard.resolve('nat64.example', 80)).rejects.toThrow(/NAT64.*link-local/);
    await expect(guard.resolve('sixtofour.example', 80)).rejects.toThrow(/6to4.*192\.168\.1\.1/);
    // The exempt address in its mapped spelling passes; a public one behind NAT64 too.
    await expect(guard.resolve('loop.example', 80)).resolves.toMatchObject({ address: '::ffff:7f00:1', family: 6 });
    await expect(guard.resolve('public64.example', 80)).resolves.toMatchObject({ address: '64:ff9b::5db8:d70e' });
  });

  it('exempts FETCH_ALLOW_NETWORKS and nothing else', async () => {
    const guard = new FetchGuard({ allowNetworks: [parseCidr('127.0.0.0/8')!], hostMap: [] });
    await expect(guard.resolve('127.0.0.1', 80)).resolves.toMatchObject({ address: '127.0.0.1' });
    await expect(guard.resolve('10.0.0.1', 80)).rejects.toBeInstanceOf(BlockedAddressError);
    await expect(guard.resolve('169.254.169.254', 80)).rejects.toBeInstanceOf(BlockedAddressError);
  });

  it('sends mapped hosts to their address and port, still guarded', async () => {
    const hostMap = [{ pattern: '*.test', address: '127.0.0.1', port: 9999 }];
    expect(routeForHost(hostMap, 'news.test')).toBeDefined();
    const open = new FetchGuard({ allowNetworks: [parseCidr('127.0.0.0/8')!], hostMap });
    await expect(open.resolve('news.test', 80)).resolves.toEqual({ address: '127.0.0.1', family: 4, port: 9999 });
    const closed = new FetchGuard({ allowNetworks: [], hostMap });
    await expect(closed.resolve('news.test', 80)).rejects.toBeInstanceOf(BlockedAddressError);
  });
});

describe('guardedAgents', () => {
  let server: http.Server;
  let port: number;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/hop') return void res.writeHead(302, { location: 'http://10.0.0.1/' }).end();
      res.end(`hello ${req.headers.host}`);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const get = (agent: http.Agent, url: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      http
        .get(url, { agent }, (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        })
        .on('error', reject);
    });

  it('connects through the host map when loopback is allowed, keeping the Host header', async () => {
    const agents = guardedAgents(
      new FetchGuard({
        allowNetworks: [parseCidr('127.0.0.0/8')!],
        hostMap: [{ pattern: 'site.test', address: '127.0.0.1', port }],
      }),
    );
    await expect(get(agents.http, 'http://site.test/')).resolves.toEqual({ status: 200, body: 'hello site.test' });
  });

  it('refuses loopback when it is not exempt', async () => {
    const agents = guardedAgents(new FetchGuard({ allowNetworks: [], hostMap: [] }));
    await expect(get(agents.http, `http://127.0.0.1:${port}/`)).rejects.toBeInstanceOf(BlockedAddressError);
  });
});
