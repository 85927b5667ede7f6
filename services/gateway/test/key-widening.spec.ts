import { describe, expect, it } from '@jest/globals';
import type { AuthContext } from '../src/http/route.js';
import { wideningOf, type NewKey } from '../src/services/api-key.service.js';

const NOW = Date.parse('2026-03-01T00:00:00Z');

const caller = (over: Partial<AuthContext>): AuthContext =>
  ({
    member: null,
    scope: 'admin',
    scopes: ['admin'],
    projects: [],
    keyRpm: null,
    expiresAt: null,
    workspaceId: 'ws_1',
    ...over,
  }) as AuthContext;

const asked = (over: Partial<NewKey>): NewKey => ({
  name: 'k',
  scopes: ['read'],
  projects: [],
  expiresInDays: null,
  rpm: null,
  ...over,
});

const fields = (c: AuthContext, k: NewKey) => wideningOf(c, k, NOW).map((w) => w.field);

describe('wideningOf', () => {
  it('lets an unlimited admin ask for anything', () => {
    expect(fields(caller({}), asked({ scopes: ['admin'] }))).toEqual([]);
  });

  it('caps the scope at the caller’s (a member acting with write cannot grant admin)', () => {
    expect(fields(caller({ scope: 'write' }), asked({ scopes: ['read', 'admin'] }))).toEqual(['body.scopes']);
    expect(fields(caller({ scope: 'write' }), asked({ scopes: ['write'] }))).toEqual([]);
  });

  it('keeps a limited caller’s keys inside its allow-list, never empty', () => {
    const c = caller({ projects: ['prj_a', 'prj_b'] });
    expect(fields(c, asked({ projects: [] }))).toEqual(['body.projects']);
    expect(fields(c, asked({ projects: ['prj_a', 'prj_c'] }))).toEqual(['body.projects']);
    expect(fields(c, asked({ projects: ['prj_b'] }))).toEqual([]);
  });

  it('caps rpm and expiry; null counts as unlimited', () => {
    const c = caller({ keyRpm: 30, expiresAt: new Date(NOW + 3.5 * 86_400_000) });
    expect(fields(c, asked({ rpm: null, expiresInDays: null }))).toEqual(['body.rpm', 'body.expires_in_days']);
    expect(fields(c, asked({ rpm: 31, expiresInDays: 4 }))).toEqual(['body.rpm', 'body.expires_in_days']);
    expect(fields(c, asked({ rpm: 30, expiresInDays: 3 }))).toEqual([]);
  });

  it('a session’s sliding expiry is no limit', () => {
    const member = caller({ member: {} as AuthContext['member'], expiresAt: new Date(NOW + 86_400_000) });
    expect(fields(member, asked({ expiresInDays: null }))).toEqual([]);
  });

  it('a key expiring within a day creates none', () => {
    const c = caller({ expiresAt: new Date(NOW + 3600_000) });
    const [w] = wideningOf(c, asked({ expiresInDays: 1 }), NOW);
    expect(w?.message).toMatch(/within a day: it cannot create keys/);
  });
});
