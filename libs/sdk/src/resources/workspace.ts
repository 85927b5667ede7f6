import type { Body, Me, Meta, Query } from '../api-types.js';
import type { HttpClient } from '../http.js';

/** The calling key's workspace: /me, keys, notifications, exits, the vocabulary (/meta). */
export class Workspace {
  constructor(private readonly http: HttpClient) {}

  /** GET /me: workspace, plan, limits, credits and what this key may do. */
  me(): Promise<Me> {
    return this.http.call('get', '/me', {});
  }
  /** PATCH /me (admin): workspace settings (max_rpm). */
  update(body: Body<'/me', 'patch'>): Promise<Me> {
    return this.http.call('patch', '/me', { body });
  }
  /** GET /meta: verdict meanings, engine costs, every config key with its default, the ladder. */
  meta(): Promise<Meta> {
    return this.http.call('get', '/meta', {});
  }
  /** GET /me/keys (admin). */
  keys(query: Query<'/me/keys', 'get'> = {}) {
    return this.http.call('get', '/me/keys', { query });
  }
  /** POST /me/keys (admin): the secret is in this answer only. */
  createKey(body: Body<'/me/keys', 'post'>) {
    return this.http.call('post', '/me/keys', { body });
  }
  /** DELETE /me/keys/{id} (admin). */
  revokeKey(id: string): Promise<void> {
    return this.http.call('delete', '/me/keys/{id}', { params: { id } }) as Promise<void>;
  }
  /** GET /me/proxies: the deployment's exits and their health. */
  proxies() {
    return this.http.call('get', '/me/proxies', {});
  }
  /** GET /me/usage: pages fetched and credits used per day for 30 days, and this month. */
  usage() {
    return this.http.call('get', '/me/usage', {});
  }
  /** GET /me/monitor: the workspace's work queued and running, the lanes, workers and browser pool. */
  monitor() {
    return this.http.call('get', '/me/monitor', {});
  }
  /** GET /me/notifications: a signed-in member's inbox (a key has none: empty). */
  notifications(query: Query<'/me/notifications', 'get'> = {}) {
    return this.http.call('get', '/me/notifications', { query });
  }
  /** POST /me/notifications/{id}/seen. */
  dismissNotification(id: string) {
    return this.http.call('post', '/me/notifications/{id}/seen', { params: { id } });
  }
}

/** Project webhooks, their deliveries, and workspace connections. */
export class Webhooks {
  constructor(private readonly http: HttpClient) {}

  /** GET /webhooks: every project's webhook and chat channel with its health. */
  list(query: Query<'/webhooks', 'get'> = {}) {
    return this.http.call('get', '/webhooks', { query });
  }
  /** GET /projects/{id}/webhooks: events, recent deliveries, the secret (admin). */
  ofProject(projectId: string) {
    return this.http.call('get', '/projects/{id}/webhooks', { params: { id: projectId } });
  }
  /** POST /projects/{id}/webhooks/test: a run.finished with test: true. */
  test(projectId: string) {
    return this.http.call('post', '/projects/{id}/webhooks/test', { params: { id: projectId } });
  }
  /** POST /projects/{id}/webhooks/secret (admin): a new signing secret. */
  rotateSecret(projectId: string) {
    return this.http.call('post', '/projects/{id}/webhooks/secret', { params: { id: projectId } });
  }
  /** GET /webhooks/deliveries: attempt by attempt. */
  deliveries(query: Query<'/webhooks/deliveries', 'get'> = {}) {
    return this.http.call('get', '/webhooks/deliveries', { query });
  }
  /** POST /webhooks/deliveries/{id}/redeliver: sends one delivery again now. */
  redeliver(id: string) {
    return this.http.call('post', '/webhooks/deliveries/{id}/redeliver', { params: { id } });
  }
}

/** Workspace connections (admin): language models, chat, storage. */
export class Connections {
  constructor(private readonly http: HttpClient) {}

  /** GET /connections/providers: the catalogue. */
  providers() {
    return this.http.call('get', '/connections/providers', {});
  }
  /** GET /connections. */
  list() {
    return this.http.call('get', '/connections', {});
  }
  /** POST /connections (201; secrets are never returned). */
  create(body: Body<'/connections', 'post'>) {
    return this.http.call('post', '/connections', { body });
  }
  /** GET /connections/{id}. */
  get(id: string) {
    return this.http.call('get', '/connections/{id}', { params: { id } });
  }
  /** PATCH /connections/{id}. */
  update(id: string, body: Body<'/connections/{id}', 'patch'>) {
    return this.http.call('patch', '/connections/{id}', { params: { id }, body });
  }
  /** DELETE /connections/{id}. */
  delete(id: string): Promise<void> {
    return this.http.call('delete', '/connections/{id}', { params: { id } }) as Promise<void>;
  }
  /** POST /connections/{id}/test. */
  test(id: string) {
    return this.http.call('post', '/connections/{id}/test', { params: { id } });
  }
}
