import { z } from 'zod';
import type { Bus } from '@tidemark/bus';
import type { ApiKeyRepository, ApiKeyWithWorkspace } from '../repositories/api-key.repository.js';

const INVALIDATE_SUBJECT = 'gateway.auth.invalidate';
const invalidation = z.object({ keyId: z.string().optional(), workspaceId: z.string().optional() });

/**
 * Known keys by hash, kept a few seconds so a request does not cost a database read for its
 * key. A revocation or a workspace change drops the entries here at once and tells every other
 * gateway instance over NATS; the TTL bounds how stale an entry can be if that message is lost.
 * Unknown keys are never cached, so guessing keys cannot fill memory.
 */
export class KeyCache {
  private readonly entries = new Map<string, { key: ApiKeyWithWorkspace; until: number }>();

  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly bus: Bus,
    private readonly ttlMs = 10_000,
    private readonly maxEntries = 10_000,
  ) {
    bus.onBroadcast(INVALIDATE_SUBJECT, invalidation, (msg) => this.drop(msg));
  }

  async findActiveByHash(hash: string): Promise<ApiKeyWithWorkspace | null> {
    const hit = this.entries.get(hash);
    if (hit && hit.until > Date.now()) return hit.key;
    const key = await this.keys.findActiveByHash(hash);
    if (!key) {
      this.entries.delete(hash);
      return null;
    }
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(hash, { key, until: Date.now() + this.ttlMs });
    return key;
  }

  /** After revoking a key or changing a workspace: drop it here and everywhere. */
  invalidate(what: { keyId?: string; workspaceId?: string }): void {
    this.drop(what);
    this.bus.broadcast(INVALIDATE_SUBJECT, what);
  }

  private drop({ keyId, workspaceId }: { keyId?: string; workspaceId?: string }): void {
    for (const [hash, { key }] of this.entries) {
      if ((keyId && key.id === keyId) || (workspaceId && key.workspaceId === workspaceId)) this.entries.delete(hash);
    }
  }
}
