import type { NextFunction, Request, Response } from 'express';
import { planOf } from '@tidemark/contracts';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '@tidemark/errors';
import type { ApiKeyRepository } from '../repositories/api-key.repository.js';
import type { KeyCache } from './key-cache.js';
import { hashKeySecret, KEY_PREFIX } from '../services/key-secret.js';
import { SCOPE_LEVEL, type AuthContext, type Scope } from './route.js';

const TOUCH_EVERY_MS = 60_000;

const highest = (scopes: string[]): Scope =>
  (['admin', 'write', 'read'] as const).find((s) => scopes.includes(s)) ?? 'read';

/** The lowest of the key's own rate, the workspace ceiling and the plan default. */
export const effectiveRpm = (keyRpm: number | null, maxRpm: number | null, plan: string): number =>
  Math.min(keyRpm ?? Infinity, maxRpm ?? Infinity, planOf(plan).rpm);

/**
 * Bearer API key authentication: the key is looked up by its hash; a revoked, unknown or
 * expired key is 401. The caller's workspace, scope and allow-list land in res.locals.auth.
 */
export const authenticate =
  (cache: KeyCache, keys: ApiKeyRepository) =>
  async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const header = req.get('authorization');
    if (!header) throw new UnauthorizedError('missing API key: send Authorization: Bearer <key>');
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m?.[1] || !m[1].startsWith(KEY_PREFIX)) throw new UnauthorizedError('invalid API key');
    const key = await cache.findActiveByHash(hashKeySecret(m[1]));
    if (!key) throw new UnauthorizedError('invalid API key');
    if (key.expiresAt && key.expiresAt.getTime() <= Date.now()) {
      throw new UnauthorizedError(`API key expired at ${key.expiresAt.toISOString()}`);
    }
    // x-service-tenant names the workspace to act in. Until sub-accounts exist a key reaches
    // only its own, so any other value is a workspace this key cannot see: 404, never 403.
    const tenant = req.get('x-service-tenant');
    if (tenant && tenant !== key.workspaceId) throw new NotFoundError('workspace');

    if (!key.lastUsedAt || Date.now() - key.lastUsedAt.getTime() > TOUCH_EVERY_MS) {
      key.lastUsedAt = new Date(); // the cached copy too, so a busy key is written once a minute
      void keys.touch(key.id).catch(() => undefined); // bookkeeping; never fails a request
    }
    const ws = key.workspace;
    const auth: AuthContext = {
      keyId: key.id,
      keyName: key.name,
      keyPrefix: key.prefix,
      workspaceId: key.workspaceId,
      scope: highest(key.scopes),
      scopes: key.scopes as Scope[],
      projects: key.projects,
      keyRpm: key.rpm,
      expiresAt: key.expiresAt,
      workspace: {
        id: ws.id,
        name: ws.name,
        plan: ws.plan,
        maxRpm: ws.maxRpm,
        requireMfa: ws.requireMfa,
        createdAt: ws.createdAt,
      },
      rpm: effectiveRpm(key.rpm, ws.maxRpm, ws.plan),
    };
    res.locals.auth = auth;
    next();
  };

/** 403 forbidden when the key's scope is below what the route needs. */
export const requireScope = (auth: AuthContext, needed: Scope): void => {
  if (SCOPE_LEVEL[auth.scope] < SCOPE_LEVEL[needed]) {
    throw new ForbiddenError(`this route needs a key with ${needed} scope; this key has ${auth.scope}`);
  }
};

/** A project outside the key's allow-list is invisible: 404, never 403. */
export const canSeeProject = (auth: AuthContext, projectId: string): boolean =>
  auth.projects.length === 0 || auth.projects.includes(projectId);
