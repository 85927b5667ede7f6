import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestWeb, type Site, type TestWeb } from '@tidemark/testkit';
import { SmtpServer } from '../../services/delivery/test/support/smtp-server.js';
import * as gateway from '@tidemark/gateway';
import { hashToken, mintToken, stepAt, totpCode } from '../support/authenticator.js';
import { startTestFleet, type Answer, type TestFleet } from '../support/fleet.js';
import { comparedRun } from '../support/runs.js';

/** The session cookie a response set, as a browser would send it back. */
const cookieOf = (res: Answer): string => {
  const set = res.headers.get('set-cookie') ?? '';
  const m = /tidemark_session=([^;]*)/.exec(set);
  if (!m) throw new Error(`no session cookie in ${res.status} ${JSON.stringify(res.body)}`);
  return `tidemark_session=${m[1]}`;
};

const prose = (topic: string, n: number) =>
  Array.from(
    { length: n },
    (_, i) => `<p>The ${topic} guide, part ${i + 1}, covers moorings, tides and the walk along the quay.</p>`,
  ).join('');

/** A two-page site whose price changes between runs: the second run has news for every member. */
const priceSite = (state: { price: number }): Site => ({
  '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nAllow: /\n' },
  '/': () => ({
    type: 'text/html; charset=utf-8',
    body: `<!doctype html><html lang="en"><head><title>Harbour</title></head><body><main><h1>Harbour</h1>${prose('home', 8)}<a href="/prices">Prices</a></main></body></html>`,
  }),
  '/prices': () => ({
    type: 'text/html; charset=utf-8',
    body: `<!doctype html><html lang="en"><head><title>Prices</title></head><body><main><h1>Prices</h1><p>A day mooring costs $${state.price} at the visitor pontoon.</p>${prose('price', 6)}</main></body></html>`,
  }),
});

describe('signed-in members (no mail host)', () => {
  let web: TestWeb;
  let t: TestFleet;
  const state = { price: 19 };
  let ana: string; // the owner's session cookie
  let anaId: string;
  let workspaceId: string;
  let ben: string;
  let benId: string;
  let adminKey: string;

  const as = (cookie: string) => ({ headers: { cookie } });

  beforeAll(async () => {
    web = await startTestWeb();
    web.addSite('harbour.test', priceSite(state));
    t = await startTestFleet({ FETCH_HOST_MAP: web.hostMap, CRAWL_TICK_MS: '50', DELIVERY_POLL_MS: '50' });
  });
  afterAll(async () => {
    await t.stop();
    await web.close();
  });

  it('signs up: an owner of a new workspace, signed in with an HttpOnly cookie', async () => {
    const res = await t.call('POST', '/auth/signup', {
      body: { email: 'Ana@Harbour.test', password: 'tide-tables-2026', name: 'Ana', workspace: 'Harbour' },
    });
    expect(res.status).toBe(201);
    const set = res.headers.get('set-cookie')!;
    expect(set).toMatch(/^tidemark_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=2592000$/);
    expect(res.body).toMatchObject({
      user: { email: 'ana@harbour.test', name: 'Ana', emailVerified: true },
      workspace: { name: 'Harbour', plan: 'free' },
      role: 'owner',
    });
    ana = cookieOf(res);
    anaId = res.body.user.id;
    workspaceId = res.body.workspace.id;
    // Only a hash of the token is stored.
    const stored = await t.db.prisma.session.findFirstOrThrow({ where: { userId: anaId } });
    expect(stored.hash).not.toContain(ana.split('=')[1]);

    const me = await t.call('GET', '/me', as(ana));
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      workspace: { id: workspaceId, name: 'Harbour' },
      key: null,
      member: { id: anaId, email: 'ana@harbour.test', role: 'owner', emailVerified: true },
      can: { read: true, write: true, admin: true },
    });
    expect(me.headers.get('x-ratelimit-limit')).toBeTruthy();
    // The welcome credits reach a workspace made by sign-up too.
    expect(me.body.credits.granted).toBeGreaterThan(0);
    const session = await t.call('GET', '/auth/session', as(ana));
    expect(session.body).toMatchObject({
      role: 'owner',
      workspaces: [{ id: workspaceId, name: 'Harbour', role: 'owner' }],
    });
  });

  it('refuses bad sign-ups and sign-ins with the envelope, changing nothing', async () => {
    const users = await t.db.prisma.user.count();
    for (const body of [
      { email: 'short@harbour.test', password: 'short' },
      { email: 'not-an-address', password: 'long-enough-pass' },
      { email: 'x@harbour.test', password: 'long-enough-pass', admin: true },
    ]) {
      const res = await t.call('POST', '/auth/signup', { body });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ code: 'validation', request_id: expect.any(String) });
    }
    const broken = await t.call('POST', '/auth/signup', {
      rawBody: '{"email":',
      headers: { 'content-type': 'application/json' },
    });
    expect(broken.status).toBe(400);
    const again = await t.call('POST', '/auth/signup', {
      body: { email: 'ana@harbour.test', password: 'another-pass-1' },
    });
    expect(again.status).toBe(409);
    expect(await t.db.prisma.user.count()).toBe(users);

    const wrong = await t.call('POST', '/auth/login', {
      body: { email: 'ana@harbour.test', password: 'not-her-pass' },
    });
    const unknown = await t.call('POST', '/auth/login', {
      body: { email: 'nobody@harbour.test', password: 'whatever-1' },
    });
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 'unauthorized', error: 'wrong e-mail or password' });
      expect(res.headers.get('set-cookie')).toBeNull();
    }
    const garbage = await t.call('GET', '/me', as('tidemark_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'));
    expect(garbage.status).toBe(401);
    const keyOnly = await t.call('GET', '/auth/session', { key: (await t.createWorkspace('keyed')).apiKey });
    expect(keyOnly.status).toBe(403);
  });

  it('invites a member who joins signed out; roles decide what each may do', async () => {
    const invited = await t.call('POST', '/auth/invites', { ...as(ana), body: { email: 'ben@harbour.test' } });
    expect(invited.status).toBe(201);
    expect(invited.body).toMatchObject({ email: 'ben@harbour.test', role: 'member', sent: false });
    const code = invited.body.token as string;

    const info = await t.call('GET', `/auth/invites/${code}`);
    expect(info.body).toMatchObject({
      workspace: { name: 'Harbour' },
      email: 'ben@harbour.test',
      role: 'member',
      accountExists: false,
    });
    const tooShort = await t.call('POST', '/auth/invites/accept', { body: { token: code, password: 'short' } });
    expect(tooShort.status).toBe(422);
    const joined = await t.call('POST', '/auth/invites/accept', {
      body: { token: code, password: 'moorings-and-tides', name: 'Ben' },
    });
    expect(joined.status).toBe(200);
    expect(joined.body).toMatchObject({
      workspace: { id: workspaceId },
      role: 'member',
      user: { emailVerified: true },
    });
    ben = cookieOf(joined);
    benId = joined.body.user.id;
    // An invitation admits one person.
    expect(
      (await t.call('POST', '/auth/invites/accept', { body: { token: code, password: 'x-1234567890' } })).status,
    ).toBe(404);

    // A member writes but does not administer; an owner does both.
    const project = await t.call('POST', '/projects', { ...as(ben), body: { seed: web.url('harbour.test', '/') } });
    expect(project.status).toBe(201);
    const key = await t.call('POST', '/me/keys', { ...as(ben), body: { name: 'ben', scopes: ['read'] } });
    expect(key.status).toBe(403);
    expect(key.body.error).toMatch(/admin role; you are member/);
    const made = await t.call('POST', '/me/keys', { ...as(ana), body: { name: 'ci', scopes: ['admin'] } });
    expect(made.status).toBe(201);
    adminKey = made.body.key;

    const members = await t.call('GET', '/auth/members', as(ben));
    expect(members.body.data.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([
      ['ana@harbour.test', 'owner'],
      ['ben@harbour.test', 'member'],
    ]);
    expect(members.body.invites).toEqual([]);
    // Only an owner makes owners; the last owner stays one.
    expect((await t.call('PATCH', `/auth/members/${benId}`, { key: adminKey, body: { role: 'owner' } })).status).toBe(
      403,
    );
    const demote = await t.call('PATCH', `/auth/members/${anaId}`, { ...as(ana), body: { role: 'admin' } });
    expect(demote.status).toBe(409);
    // Another workspace is not one to switch to.
    expect((await t.call('POST', '/auth/switch', { ...as(ben), body: { workspace_id: 'ws_elsewhere' } })).status).toBe(
      404,
    );
  });

  it('keeps each member’s notifications their own; a key has no inbox', async () => {
    const created = await t.call('POST', '/projects', {
      ...as(ana),
      body: { name: 'harbour', seed: web.url('harbour.test', '/') },
    });
    expect(created.status).toBe(201);
    const projectId = created.body.id as string;
    const run = async () => (await comparedRun(t, projectId, as(ana))).runId;
    await run();
    state.price = 24;
    const second = await run();

    const inbox = async (cookie: string) => {
      for (let i = 0; i < 100; i++) {
        const res = await t.call('GET', '/me/notifications', as(cookie));
        if (res.status === 200 && res.body.data.some((n: { runId: string }) => n.runId === second)) return res;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('no notification for the run');
    };
    const anas = await inbox(ana);
    const bens = await inbox(ben);
    const anaNote = anas.body.data.find((n: { runId: string }) => n.runId === second);
    const benNote = bens.body.data.find((n: { runId: string }) => n.runId === second);
    expect(anaNote).toMatchObject({ kind: 'run', event: 'run.finished', projectId, title: 'harbour: 1 page changed' });
    expect(benNote.id).not.toBe(anaNote.id);

    // Ben cannot see or dismiss Ana's; a key has no inbox at all.
    const theirs = await t.call('POST', `/me/notifications/${anaNote.id}/seen`, as(ben));
    expect(theirs.status).toBe(404);
    expect(theirs.body.code).toBe('not_found');
    expect((await t.call('GET', '/me/notifications', { key: adminKey })).status).toBe(403);
    const mine = await t.call('POST', `/me/notifications/${anaNote.id}/seen`, as(ana));
    expect(mine.body).toEqual({ seen: true });
    const after = await t.call('GET', '/me/notifications', as(ana));
    expect(after.body.data.map((n: { id: string }) => n.id)).not.toContain(anaNote.id);
    expect((await t.call('GET', '/me/notifications', as(ben))).body.data.map((n: { id: string }) => n.id)).toContain(
      benNote.id,
    );
  }, 120_000);

  it('lists and ends sessions; a removed member is signed out of the workspace', async () => {
    const second = await t.call('POST', '/auth/login', {
      body: { email: 'ana@harbour.test', password: 'tide-tables-2026' },
      headers: { 'user-agent': 'second-browser' },
    });
    expect(second.status).toBe(200);
    const other = cookieOf(second);
    const list = await t.call('GET', '/auth/sessions', as(ana));
    expect(list.body.data).toHaveLength(2);
    expect(list.body.data.filter((s: { current: boolean }) => s.current)).toHaveLength(1);
    expect(list.body.data.map((s: { userAgent: string }) => s.userAgent)).toContain('second-browser');
    expect((await t.call('DELETE', '/auth/sessions', as(ana))).body).toEqual({ ended: 1 });
    expect((await t.call('GET', '/me', as(other))).status).toBe(401);

    expect((await t.call('DELETE', `/auth/members/${benId}`, as(ana))).body).toEqual({ removed: true });
    const gone = await t.call('GET', '/me', as(ben));
    expect(gone.status).toBe(401);

    const out = await t.call('POST', '/auth/logout', as(ana));
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/^tidemark_session=; .*Max-Age=0/);
    expect((await t.call('GET', '/me', as(ana))).status).toBe(401);
  });
});

describe('two-factor: TOTP, mfa_required and mfa_stale', () => {
  let t: TestFleet;
  let secret = '';
  let lastStep = -Infinity;
  /** A code the server has not seen yet: steps only move forward (a code works once). */
  const nextCode = async (): Promise<string> => {
    for (;;) {
      const now = Date.now();
      let step = Math.max(lastStep + 1, stepAt(now) - 1);
      // A step is accepted until its next step's window ends. One that ends within a few seconds
      // may be refused by the time the request lands on a loaded machine (a clean-clone CI run
      // saw it): the next step is taken instead.
      while ((step + 2) * 30_000 - now < 5_000) step++;
      if (step <= stepAt(now) + 1) {
        lastStep = step;
        return totpCode(secret, step);
      }
      // Every code of the drift window is used: the next window brings one more.
      await new Promise((r) => setTimeout(r, (stepAt(now) + 1) * 30_000 - now + 50));
    }
  };

  const as = (cookie: string) => ({ headers: { cookie } });
  /** Codes of a few steps are all a test gets within the drift window; let the steps taken be forgotten. */
  const timePasses = async () => {
    lastStep = -Infinity;
    await t.db.prisma.user.update({ where: { email: 'fay@mfa.test' }, data: { mfaLastStep: null } });
  };

  beforeAll(async () => {
    t = await startTestFleet();
  });
  afterAll(() => t.stop());

  it('turns two-factor on, then a password alone opens a session that can only show a code', async () => {
    const signup = await t.call('POST', '/auth/signup', {
      body: { email: 'fay@mfa.test', password: 'fay-password-1' },
    });
    const fay = cookieOf(signup);
    expect(signup.body.mfa).toEqual({ enabled: false, verifiedAt: null, required: false });

    const setup = await t.call('POST', '/auth/2fa/setup', as(fay));
    expect(setup.status).toBe(200);
    secret = setup.body.secret;
    expect(setup.body.otpauthUrl).toBe(
      `otpauth://totp/Tidemark%3Afay%40mfa.test?secret=${secret}&issuer=Tidemark&algorithm=SHA1&digits=6&period=30`,
    );
    const stored = await t.db.prisma.user.findUniqueOrThrow({ where: { email: 'fay@mfa.test' } });
    expect(stored.mfaSecret).toMatch(/^v1\./);
    expect(stored.mfaSecret).not.toContain(secret);
    expect(stored.mfaEnabledAt).toBeNull();

    const wrong = await t.call('POST', '/auth/2fa/verify', { ...as(fay), body: { code: '000000' } });
    expect(wrong.status).toBe(403);
    const code = await nextCode();
    const on = await t.call('POST', '/auth/2fa/verify', { ...as(fay), body: { code } });
    expect(on.body).toMatchObject({ enabled: true, verifiedAt: expect.any(String) });
    // A code works once.
    expect((await t.call('POST', '/auth/2fa/verify', { ...as(fay), body: { code } })).status).toBe(403);

    const half = await t.call('POST', '/auth/login', { body: { email: 'fay@mfa.test', password: 'fay-password-1' } });
    expect(half.body.mfa).toMatchObject({ enabled: true, verifiedAt: null });
    const halfCookie = cookieOf(half);
    const refused = await t.call('GET', '/projects', as(halfCookie));
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('mfa_required');
    expect((await t.call('GET', '/auth/session', as(halfCookie))).status).toBe(200);
    expect(
      (await t.call('POST', '/auth/2fa/verify', { ...as(halfCookie), body: { code: await nextCode() } })).status,
    ).toBe(200);
    expect((await t.call('GET', '/projects', as(halfCookie))).status).toBe(200);

    // A wrong code with the password is refused outright; the right one signs in whole.
    const bad = await t.call('POST', '/auth/login', {
      body: { email: 'fay@mfa.test', password: 'fay-password-1', code: '123456' },
    });
    expect(bad.status).toBe(401);
    const whole = await t.call('POST', '/auth/login', {
      body: { email: 'fay@mfa.test', password: 'fay-password-1', code: await nextCode() },
    });
    expect(whole.body.mfa.verifiedAt).toEqual(expect.any(String));
    expect((await t.call('GET', '/me', as(cookieOf(whole)))).status).toBe(200);
  });

  it('asks again for a fresh code before keys, roles and the workspace requirement', async () => {
    await timePasses();
    const login = await t.call('POST', '/auth/login', {
      body: { email: 'fay@mfa.test', password: 'fay-password-1', code: await nextCode() },
    });
    const fay = cookieOf(login);
    const key = await t.call('POST', '/me/keys', { ...as(fay), body: { name: 'fresh', scopes: ['admin'] } });
    expect(key.status).toBe(201);

    // Eleven minutes later: the code shown at sign-in no longer counts for those few actions.
    await t.db.prisma.session.update({
      where: { id: login.body.session.id },
      data: { mfaAt: new Date(Date.now() - 11 * 60_000) },
    });
    const stale = await t.call('POST', '/me/keys', { ...as(fay), body: { name: 'stale', scopes: ['read'] } });
    expect(stale.status).toBe(403);
    expect(stale.body.code).toBe('mfa_stale');
    expect((await t.call('GET', '/projects', as(fay))).status).toBe(200); // reading is not one of them
    // Keys are never asked.
    expect(
      (await t.call('POST', '/me/keys', { key: key.body.key, body: { name: 'by key', scopes: ['read'] } })).status,
    ).toBe(201);
    // Time passes for the codes too, then a fresh one is shown.
    await timePasses();
    expect((await t.call('POST', '/auth/2fa/verify', { ...as(fay), body: { code: await nextCode() } })).status).toBe(
      200,
    );

    // Only a signed-in owner with a factor sets the requirement; a key cannot.
    const byKey = await t.call('PATCH', '/me', { key: key.body.key, body: { require_mfa: true } });
    expect(byKey.status).toBe(403);
    const required = await t.call('PATCH', '/me', { ...as(fay), body: { require_mfa: true } });
    expect(required.status).toBe(200);
    expect(required.body.workspace.settings.require_mfa).toBe(true);

    // A member without two-factor can then do nothing but set it up.
    const invite = await t.call('POST', '/auth/invites', { ...as(fay), body: { email: 'gus@mfa.test' } });
    const gus = cookieOf(
      await t.call('POST', '/auth/invites/accept', { body: { token: invite.body.token, password: 'gus-password-1' } }),
    );
    const blocked = await t.call('GET', '/me', as(gus));
    expect(blocked.status).toBe(403);
    expect(blocked.body).toMatchObject({ code: 'mfa_required', error: expect.stringContaining('requires two-factor') });
    expect((await t.call('GET', '/auth/session', as(gus))).body.mfa).toEqual({
      enabled: false,
      verifiedAt: null,
      required: true,
    });
    const gusSeed = (await t.call('POST', '/auth/2fa/setup', as(gus))).body.secret as string;
    const gusCode = totpCode(gusSeed, stepAt(Date.now()));
    expect((await t.call('POST', '/auth/2fa/verify', { ...as(gus), body: { code: gusCode } })).status).toBe(200);
    expect((await t.call('GET', '/me', as(gus))).status).toBe(200);
    // The key still works: the requirement is for people.
    expect((await t.call('GET', '/me', { key: key.body.key })).status).toBe(200);

    await timePasses();
    const off = await t.call('POST', '/auth/2fa/disable', { ...as(fay), body: { code: await nextCode() } });
    expect(off.body).toEqual({ enabled: false });
    expect((await t.call('GET', '/projects', as(fay))).body.code).toBe('mfa_required');
  });
});

describe('members with a mail host: confirming the address, resetting the password', () => {
  let smtp: SmtpServer;
  let t: TestFleet;

  beforeAll(async () => {
    smtp = await SmtpServer.start();
    t = await startTestFleet({ DELIVERY_SMTP_URL: smtp.url, GATEWAY_AUTH_IP_RPM: '1000' });
  });
  afterAll(async () => {
    await t.stop();
    await smtp.close();
  });

  /** The mails sent to `to`, once `count` have come, bodies decoded from quoted-printable. */
  const mailsTo = async (to: string, count: number): Promise<string[]> => {
    for (let i = 0; i < 100 && smtp.mails.filter((m) => m.to.includes(to)).length < count; i++)
      await new Promise((r) => setTimeout(r, 50));
    const mails = smtp.mails.filter((m) => m.to.includes(to));
    expect(mails).toHaveLength(count);
    // The body is quoted-printable: soft line breaks out, =XX escapes decoded.
    return mails.map((m) =>
      m.data
        .replace(/=\r?\n/g, '')
        .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    );
  };
  /** The one-time code of the last mail to `to` (it stands on a line of its own). */
  const codeMailedTo = async (to: string, count: number): Promise<string> => {
    const body = (await mailsTo(to, count))[count - 1]!;
    const code = /\r?\n([A-Za-z0-9_-]{43})(?:\r?\n|$)/.exec(body)?.[1];
    if (!code) throw new Error(`no code in ${body}`);
    return code;
  };
  const login = (email: string, password: string) => t.call('POST', '/auth/login', { body: { email, password } });
  /** Signs up, confirms by the mailed code and signs in: the cookie. */
  const member = async (email: string, password: string): Promise<string> => {
    expect((await t.call('POST', '/auth/signup', { body: { email, password } })).status).toBe(202);
    await t.call('POST', '/auth/verify', { body: { token: await codeMailedTo(email, 1) } });
    return cookieOf(await login(email, password));
  };

  it('signs up without signing in: the address is confirmed by mail first', async () => {
    const res = await t.call('POST', '/auth/signup', { body: { email: 'cy@quay.test', password: 'quay-side-walks' } });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ accepted: true });
    expect(res.headers.get('set-cookie')).toBeNull();
    const code = await codeMailedTo('cy@quay.test', 1);

    // Before confirming, the right password answers like a wrong one (one answer for both).
    const early = await login('cy@quay.test', 'quay-side-walks');
    const wrong = await login('cy@quay.test', 'not-the-password');
    expect(early.status).toBe(401);
    expect(early.body.error).toBe(wrong.body.error);
    expect(early.body.error).toMatch(/not confirmed yet/);

    expect((await t.call('POST', '/auth/verify', { body: { token: code } })).body).toEqual({ verified: true });
    expect((await t.call('POST', '/auth/verify', { body: { token: code } })).status).toBe(404);
    const cy = cookieOf(await login('cy@quay.test', 'quay-side-walks'));
    const allowed = await t.call('POST', '/projects', {
      headers: { cookie: cy },
      body: { seed: 'https://quay.test/' },
    });
    expect(allowed.status).toBe(201);
  });

  it('does not tell whether an address has an account: the same answer, and the owner is told by mail', async () => {
    const users = await t.db.prisma.user.count();
    const workspaces = await t.db.prisma.workspace.count();
    const fresh = await t.call('POST', '/auth/signup', {
      body: { email: 'new@quay.test', password: 'new-password-1' },
    });
    const taken = await t.call('POST', '/auth/signup', {
      body: { email: 'CY@quay.test', password: 'someone-elses-pass' },
    });
    for (const res of [fresh, taken]) {
      expect(res.status).toBe(202);
      expect(res.headers.get('set-cookie')).toBeNull();
    }
    expect(taken.body).toEqual(fresh.body);
    // The new address got its account; the taken one nothing but a mail to its owner.
    expect(await t.db.prisma.user.count()).toBe(users + 1);
    expect(await t.db.prisma.workspace.count()).toBe(workspaces + 1);
    const [, notice] = await mailsTo('cy@quay.test', 2);
    expect(notice).toMatch(/tried to create a Tidemark account with this address, which already has one/);
    // Her password is untouched, and the other one opens nothing.
    expect((await login('cy@quay.test', 'quay-side-walks')).status).toBe(200);
    expect((await login('cy@quay.test', 'someone-elses-pass')).status).toBe(401);

    // An address that signed up and never confirmed gets a fresh code instead; the first password stays.
    const again = await t.call('POST', '/auth/signup', { body: { email: 'new@quay.test', password: 'other-pass-22' } });
    expect(again.body).toEqual(fresh.body);
    const code = await codeMailedTo('new@quay.test', 2);
    expect((await mailsTo('new@quay.test', 2))[1]).toMatch(/password chosen the first time/);
    await t.call('POST', '/auth/verify', { body: { token: code } });
    expect((await login('new@quay.test', 'new-password-1')).status).toBe(200);
    expect((await login('new@quay.test', 'other-pass-22')).status).toBe(401);
  });

  it('reads but changes nothing while the address is unconfirmed', async () => {
    const ivy = await member('ivy@quay.test', 'ivy-password-1');
    // The address stops being confirmed (as for an account made before mail was set up).
    await t.db.prisma.user.update({ where: { email: 'ivy@quay.test' }, data: { emailVerifiedAt: null } });
    const me = await t.call('GET', '/me', { headers: { cookie: ivy } });
    expect(me.body.can).toEqual({ read: true, write: false, admin: false });
    const refused = await t.call('POST', '/projects', {
      headers: { cookie: ivy },
      body: { seed: 'https://ivy.test/' },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('email_unverified');
    const sent = await t.call('POST', '/auth/verify/request', { headers: { cookie: ivy } });
    expect(sent.body).toEqual({ sent: true, verified: false });
    await t.call('POST', '/auth/verify', { body: { token: await codeMailedTo('ivy@quay.test', 2) } });
    expect(
      (await t.call('POST', '/projects', { headers: { cookie: ivy }, body: { seed: 'https://ivy.test/' } })).status,
    ).toBe(201);
  });

  it('mails the invitation code and never hands it to the inviter; the mailed code confirms the address', async () => {
    const owner = await member('owner@harbour-mail.test', 'owner-password-1');
    const invited = await t.call('POST', '/auth/invites', {
      headers: { cookie: owner },
      body: { email: 'joe@harbour-mail.test', role: 'member' },
    });
    expect(invited.status).toBe(201);
    expect(invited.body).toMatchObject({ email: 'joe@harbour-mail.test', sent: true });
    expect(invited.body).not.toHaveProperty('token');
    const code = await codeMailedTo('joe@harbour-mail.test', 1);
    expect(JSON.stringify(invited.body)).not.toContain(code);
    const joined = await t.call('POST', '/auth/invites/accept', {
      body: { token: code, password: 'joe-password-1' },
    });
    expect(joined.status).toBe(200);
    expect(joined.body.user.emailVerified).toBe(true);
    expect(
      (await t.call('POST', '/projects', { headers: { cookie: cookieOf(joined) }, body: { seed: 'https://j.test/' } }))
        .status,
    ).toBe(201);
  });

  it('an invitation code that did not travel by mail confirms nothing', async () => {
    // Made while no mail host was configured (the code was handed to the inviter), accepted now.
    const ws = await t.createWorkspace('handed over');
    const code = mintToken();
    await t.db.prisma.invite.create({
      data: {
        id: 'inv_handedover00000000000000',
        workspaceId: ws.workspaceId,
        email: 'kim@quay.test',
        role: 'member',
        hash: hashToken(code),
        expiresAt: new Date(Date.now() + 86_400_000),
      },
    });
    const joined = await t.call('POST', '/auth/invites/accept', { body: { token: code, password: 'kim-password-1' } });
    expect(joined.status).toBe(200);
    expect(joined.body.user.emailVerified).toBe(false);
    const refused = await t.call('POST', '/projects', {
      headers: { cookie: cookieOf(joined) },
      body: { seed: 'https://kim.test/' },
    });
    expect(refused.body.code).toBe('email_unverified');
  });

  it('resets a forgotten password by mail, ending every session', async () => {
    const di = await member('di@quay.test', 'first-password-1');

    const nobody = await t.call('POST', '/auth/forgot', { body: { email: 'nobody@quay.test' } });
    expect(nobody.status).toBe(202);
    expect(await t.call('POST', '/auth/forgot', { body: { email: 'di@quay.test' } })).toMatchObject({
      status: 202,
      body: nobody.body,
    });
    const code = await codeMailedTo('di@quay.test', 2);
    expect(smtp.mails.some((m) => m.to.includes('nobody@quay.test'))).toBe(false);

    expect((await t.call('POST', '/auth/reset', { body: { token: code, password: 'second-password-2' } })).status).toBe(
      200,
    );
    expect((await t.call('GET', '/me', { headers: { cookie: di } })).status).toBe(401);
    expect((await login('di@quay.test', 'first-password-1')).status).toBe(401);
    const back = await login('di@quay.test', 'second-password-2');
    expect(back.status).toBe(200);
    expect(back.body.user.emailVerified).toBe(true);
    expect((await t.call('POST', '/auth/reset', { body: { token: code, password: 'third-password-3' } })).status).toBe(
      404,
    );
  });

  it('a forgotten-password reset confirms an address that never was', async () => {
    await t.call('POST', '/auth/signup', { body: { email: 'lu@quay.test', password: 'lu-password-1' } });
    await codeMailedTo('lu@quay.test', 1);
    await t.call('POST', '/auth/forgot', { body: { email: 'lu@quay.test' } });
    const code = await codeMailedTo('lu@quay.test', 2);
    await t.call('POST', '/auth/reset', { body: { token: code, password: 'lu-password-2' } });
    expect((await login('lu@quay.test', 'lu-password-2')).body.user.emailVerified).toBe(true);
  });
});

describe('sign-in attempts: failures only, and never counted blind', () => {
  let t: TestFleet;

  beforeAll(async () => {
    t = await startTestFleet({ GATEWAY_AUTH_IP_RPM: '1000' });
    await t.call('POST', '/auth/signup', { body: { email: 'ed@quay.test', password: 'the-right-pass' } });
    await t.call('POST', '/auth/signup', { body: { email: 'di@quay.test', password: 'di-password-1' } });
  });
  afterAll(() => t.stop());

  const login = (email: string, password: string) => t.call('POST', '/auth/login', { body: { email, password } });

  it('21 good sign-ins do not lock the owner out', async () => {
    for (let i = 0; i < 21; i++) expect((await login('di@quay.test', 'di-password-1')).status).toBe(200);
    expect((await login('di@quay.test', 'di-password-1')).status).toBe(200);
  });

  it('20 failed sign-ins for one address in 15 minutes: 429, even for the right password', async () => {
    for (let i = 0; i < 20; i++) expect((await login('ed@quay.test', `guess-${i}`)).status).toBe(401);
    const limited = await login('ED@quay.test', 'the-right-pass');
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another address is not held up.
    expect((await login('di@quay.test', 'di-password-1')).status).toBe(200);
  });

  it('concurrent guesses cannot slip past the limit together', async () => {
    await t.call('POST', '/auth/signup', { body: { email: 'fo@quay.test', password: 'fo-password-1' } });
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => login('fo@quay.test', `guess-${i}`)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(20);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(10);
    expect((await login('fo@quay.test', 'fo-password-1')).status).toBe(429);
  });

  it('with Redis unreachable, sign-in and second-factor codes answer 503 rather than go uncounted', async () => {
    const cookie = cookieOf(await login('di@quay.test', 'di-password-1'));
    // A second gateway on the same fleet whose Redis is a closed port.
    const blind = await gateway.buildApp(gateway.loadConfig({ ...t.dialEnv, REDIS_URL: 'redis://127.0.0.1:1' }));
    const { url } = await blind.start();
    try {
      const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
        fetch(`${url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body),
        });
      const res = await post('/auth/login', { email: 'di@quay.test', password: 'di-password-1' });
      expect(res.status).toBe(503);
      const body = (await res.json()) as { code: string; error: string };
      expect(body.code).toBe('unavailable');
      expect(res.headers.get('set-cookie')).toBeNull();
      const wrong = await post('/auth/login', { email: 'di@quay.test', password: 'a-guess-123' });
      expect(wrong.status).toBe(503);
      const code = await post('/auth/2fa/verify', { code: '123456' }, { cookie });
      expect(code.status).toBe(503);
      // Everything else still answers: the rate limit lets requests through without Redis.
      expect((await fetch(`${url}/me`, { headers: { cookie } })).status).toBe(200);
    } finally {
      await blind.stop();
    }
  });
});
