import type { Request, Response } from 'express';
import type { z } from 'zod';
import type { Role } from '../accounts/members/roles.js';
import type { SignedIn } from '../accounts/sessions/session.repository.js';

export type Scope = 'read' | 'write' | 'admin';
export const SCOPE_LEVEL: Record<Scope, number> = { read: 1, write: 2, admin: 3 };

/** A signed-in member calling with a session cookie (the web application), instead of a key. */
export interface MemberCaller {
  userId: string;
  email: string;
  role: Role;
  sessionId: string;
  emailVerified: boolean;
  signedIn: SignedIn;
}

/**
 * Who is calling, settled by the auth step for every authenticated request: an API key, or a
 * member's session (then `member` is set, the key fields are empty and `scope` follows the role).
 */
export interface AuthContext {
  member: MemberCaller | null;
  /** What the rate limit counts by: `key:<id>` or `user:<id>`. */
  rateKey: string;
  keyId: string;
  keyName: string;
  keyPrefix: string;
  workspaceId: string;
  /** The highest of the key's scopes: the key acts at this level. */
  scope: Scope;
  scopes: Scope[];
  /** Project allow-list; empty = every project. */
  projects: string[];
  keyRpm: number | null;
  expiresAt: Date | null;
  workspace: { id: string; name: string; plan: string; maxRpm: number | null; requireMfa: boolean; createdAt: Date };
  /** The rate this key gets: the lowest of its own, the workspace ceiling and the plan default. */
  rpm: number;
}

export interface Reply {
  status: number;
  body?: unknown;
  /** Bytes sent as they are (an image); `headers` gives their Content-Type. */
  raw?: Buffer;
  headers?: Record<string, string>;
}

export interface HandlerInput<P, Q, B> {
  /** Absent for `auth: 'none'` routes (they answer before authentication). */
  auth: AuthContext;
  params: P;
  query: Q;
  body: B;
  req: Request;
  res: Response;
}

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

/**
 * One route: its shape (validated by zod, and the same schemas printed into the OpenAPI
 * document, so the two cannot drift), the scope it needs, and a handler returning a Reply.
 */
export interface RouteDef<
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
> {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** Express-style path under /v1, e.g. `/projects/:id`. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  scope: Scope;
  /**
   * Who may call: anyone with a key or a session (default); only a signed-in member
   * (`session`); or anyone at all, before authentication (`none`: sign-up, sign-in, tokens).
   */
  auth?: 'any' | 'session' | 'none';
  /**
   * One of the few actions that ask again: a member with two-factor on must have shown a code in
   * the last ten minutes (403 mfa_stale otherwise). Keys are not asked.
   */
  recentSecondFactor?: boolean;
  params?: P;
  query?: Q;
  body?: B;
  /** Whether the route honours Idempotency-Key (documented; the step applies to any POST). */
  idempotent?: boolean;
  /**
   * Top-level fields of the answer that are secrets shown once (a new key, a webhook secret):
   * an answer kept for Idempotency-Key keeps them sealed, apart from its body.
   */
  secretFields?: string[];
  responses: Record<number, { description: string; schema?: z.ZodType }>;
  handler: (input: HandlerInput<Out<P>, Out<Q>, Out<B>>) => Promise<Reply>;
}

// The registry holds routes of every shape; each was type-checked where it was defined.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = RouteDef<any, any, any>;

export const defineRoute = <
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(
  def: RouteDef<P, Q, B>,
): AnyRoute => def as AnyRoute;
