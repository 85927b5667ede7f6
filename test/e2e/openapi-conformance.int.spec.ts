import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestWeb, type TestWeb } from '@tidemark/testkit';
import { startTestFleet, type Answer, type TestFleet } from '../support/fleet.js';
import { openApiChecker } from '../support/openapi.js';

/**
 * The OpenAPI document is generated from the route schemas; this checks the other direction:
 * real answers of the running fleet validate against the document's response schemas.
 */
describe('answers match the OpenAPI document', () => {
  let t: TestFleet;
  let admin: string;
  let doc: any;
  let web: TestWeb;
  let check: ReturnType<typeof openApiChecker>;

  beforeAll(async () => {
    web = await startTestWeb();
    t = await startTestFleet({ FETCH_HOST_MAP: web.hostMap });
    admin = (await t.createWorkspace('conformance')).apiKey;
    doc = (await t.call('GET', '/docs/openapi.json')).body;
    check = openApiChecker(doc);
  });
  afterAll(async () => {
    await t.stop();
    await web.close();
  });

  const conforms = (path: string, method: string, res: Answer) => check.conforms(path, method, res);

  it('is a check that can fail', () => {
    const me = check.compile(doc.paths['/me'].get.responses['200'].content['application/json'].schema);
    expect(me({ workspace: {} })).toBe(false);
    const error = check.compile(doc.paths['/me'].get.responses['401'].content['application/json'].schema);
    expect(error({ error: 'x', code: 'y' })).toBe(false);
    expect(error({ error: 'x', code: 'y', request_id: 'z' })).toBe(true);
  });

  it('for every route, on success and on error', async () => {
    const project = await t.call('POST', '/projects', {
      key: admin,
      body: { seed: 'https://c.example/', config: { chat_url: 'https://hooks.example.com/x/y/zzzz' } },
    });
    conforms('/projects', 'post', project);
    const id = project.body.id;
    conforms('/projects', 'get', await t.call('GET', '/projects', { key: admin }));
    conforms('/projects/{id}', 'get', await t.call('GET', `/projects/${id}`, { key: admin }));
    conforms(
      '/projects/{id}',
      'patch',
      await t.call('PATCH', `/projects/${id}`, { key: admin, body: { config: { delay: 1 } } }),
    );
    conforms('/me', 'get', await t.call('GET', '/me', { key: admin }));
    conforms('/me', 'patch', await t.call('PATCH', '/me', { key: admin, body: { max_rpm: 30 } }));
    conforms('/meta', 'get', await t.call('GET', '/meta', { key: admin }));
    const key = await t.call('POST', '/me/keys', { key: admin, body: { name: 'k', scopes: ['read'] } });
    conforms('/me/keys', 'post', key);
    conforms('/me/keys', 'get', await t.call('GET', '/me/keys?limit=1', { key: admin }));
    conforms('/me/keys/{id}', 'delete', await t.call('DELETE', `/me/keys/${key.body.id}`, { key: admin }));
    conforms('/projects/{id}', 'delete', await t.call('DELETE', `/projects/${id}`, { key: admin }));

    conforms('/projects/{id}', 'get', await t.call('GET', `/projects/${id}`, { key: admin }));
    conforms('/projects', 'post', await t.call('POST', '/projects', { key: admin, body: {} }));
    conforms('/me', 'get', await t.call('GET', '/me'));
    conforms('/projects', 'get', await t.call('GET', '/projects?limit=-1', { key: admin }));
  });

  it('for the session and member routes', async () => {
    const signup = await t.call('POST', '/auth/signup', {
      body: { email: 'owner@conformance.test', password: 'conformance-pass-1' },
    });
    conforms('/auth/signup', 'post', signup);
    const cookie = /tidemark_session=[^;]*/.exec(signup.headers.get('set-cookie') ?? '')![0];
    const as = { headers: { cookie } };
    conforms('/auth/signup', 'post', await t.call('POST', '/auth/signup', { body: { email: 'x', password: 'y' } }));
    conforms(
      '/auth/signup',
      'post',
      await t.call(
        'POST',
        '/auth/signup',
        signup.status === 201 ? { body: { email: 'owner@conformance.test', password: 'conformance-pass-2' } } : {},
      ),
    );
    conforms(
      '/auth/login',
      'post',
      await t.call('POST', '/auth/login', {
        body: { email: 'owner@conformance.test', password: 'conformance-pass-1' },
      }),
    );
    conforms(
      '/auth/login',
      'post',
      await t.call('POST', '/auth/login', { body: { email: 'owner@conformance.test', password: 'wrong' } }),
    );
    conforms('/auth/session', 'get', await t.call('GET', '/auth/session', as));
    conforms('/auth/session', 'get', await t.call('GET', '/auth/session', { key: admin }));
    conforms('/me', 'get', await t.call('GET', '/me', as));
    const invite = await t.call('POST', '/auth/invites', {
      ...as,
      body: { email: 'new@conformance.test', role: 'viewer' },
    });
    conforms('/auth/invites', 'post', invite);
    conforms('/auth/invites/{token}', 'get', await t.call('GET', `/auth/invites/${invite.body.token}`));
    conforms('/auth/invites/{token}', 'get', await t.call('GET', `/auth/invites/${'x'.repeat(43)}`));
    conforms('/auth/members', 'get', await t.call('GET', '/auth/members', as));
    conforms('/auth/invites/{id}', 'delete', await t.call('DELETE', `/auth/invites/${invite.body.id}`, as));
    conforms(
      '/auth/invites/accept',
      'post',
      await t.call('POST', '/auth/invites/accept', { body: { token: invite.body.token, password: 'whatever-123' } }),
    );
    conforms(
      '/auth/members/{user}',
      'patch',
      await t.call('PATCH', `/auth/members/${signup.body.user.id}`, { ...as, body: { role: 'admin' } }),
    );
    conforms('/auth/profile', 'patch', await t.call('PATCH', '/auth/profile', { ...as, body: { name: 'Owner' } }));
    conforms(
      '/auth/workspace',
      'patch',
      await t.call('PATCH', '/auth/workspace', { ...as, body: { name: 'Conformance' } }),
    );
    conforms(
      '/auth/switch',
      'post',
      await t.call('POST', '/auth/switch', { ...as, body: { workspace_id: signup.body.workspace.id } }),
    );
    conforms('/auth/verify/request', 'post', await t.call('POST', '/auth/verify/request', as));
    conforms('/auth/verify', 'post', await t.call('POST', '/auth/verify', { body: { token: 'y'.repeat(43) } }));
    conforms(
      '/auth/forgot',
      'post',
      await t.call('POST', '/auth/forgot', { body: { email: 'owner@conformance.test' } }),
    );
    conforms(
      '/auth/reset',
      'post',
      await t.call('POST', '/auth/reset', { body: { token: 'z'.repeat(43), password: 'conformance-pass-3' } }),
    );
    conforms(
      '/auth/password',
      'post',
      await t.call('POST', '/auth/password', { ...as, body: { current: 'wrong', password: 'conformance-pass-4' } }),
    );
    conforms('/auth/2fa/setup', 'post', await t.call('POST', '/auth/2fa/setup', as));
    conforms('/auth/2fa/verify', 'post', await t.call('POST', '/auth/2fa/verify', { ...as, body: { code: '000000' } }));
    conforms('/auth/2fa/verify', 'post', await t.call('POST', '/auth/2fa/verify', { ...as, body: { code: 'abc' } }));
    conforms(
      '/auth/2fa/disable',
      'post',
      await t.call('POST', '/auth/2fa/disable', { ...as, body: { code: '000000' } }),
    );
    conforms('/auth/sessions', 'get', await t.call('GET', '/auth/sessions', as));
    conforms('/auth/sessions', 'delete', await t.call('DELETE', '/auth/sessions', as));
    conforms('/auth/members/{user}', 'delete', await t.call('DELETE', `/auth/members/${signup.body.user.id}`, as));
    conforms('/auth/logout', 'post', await t.call('POST', '/auth/logout', as));
    conforms('/auth/logout', 'post', await t.call('POST', '/auth/logout', as));
  });

  it('for the scrape and playground routes', async () => {
    const one = await t.call('POST', '/scrape', {
      key: admin,
      body: { url: web.url('pages.test', '/article'), formats: 'markdown,links,text' },
    });
    conforms('/scrape', 'post', one);
    const batch = await t.call('POST', '/scrape', {
      key: admin,
      body: { urls: [web.url('pages.test', '/missing'), 'http://10.0.0.1/'], webhook_url: 'https://hook.example/' },
    });
    conforms('/scrape', 'post', batch);
    expect(batch.body.webhookSecret).toMatch(/^whsec_/);
    conforms('/scrape', 'get', await t.call('GET', '/scrape?limit=1', { key: admin }));
    conforms('/scrape/{id}', 'get', await t.call('GET', `/scrape/${one.body.id}`, { key: admin }));
    conforms('/scrape/{id}', 'get', await t.call('GET', '/scrape/job_nothere', { key: admin }));
    conforms('/scrape/{id}', 'delete', await t.call('DELETE', `/scrape/${batch.body.id}`, { key: admin }));
    conforms('/scrape', 'post', await t.call('POST', '/scrape', { key: admin, body: { url: 'nope' } }));
    const pg = await t.call('POST', '/playground/extract', {
      key: admin,
      body: { url: web.url('pages.test', '/article'), allow_browser: false },
    });
    conforms('/playground/extract', 'post', pg);
    conforms('/playground/{id}', 'get', await t.call('GET', `/playground/${pg.body.id}?wait=20`, { key: admin }));
    conforms('/me/proxies', 'get', await t.call('GET', '/me/proxies', { key: admin }));
  });
});
