import type { SecretBox } from '@tidemark/secret-box';
import { mintWebhookSecret } from '../crypto/signing.js';
import type { WebhookRepository } from '../repositories/webhook.repository.js';

/** A project webhook's signing secret: sealed at rest, minted when first needed, rotated by an admin. */
export class WebhookSecrets {
  constructor(
    private readonly repo: WebhookRepository,
    private readonly box: SecretBox,
  ) {}

  /** The current secret, minted now if the project has none. */
  async current(workspaceId: string, projectId: string): Promise<string> {
    const row =
      (await this.repo.find(projectId)) ??
      (await this.repo.findOrCreate(workspaceId, projectId, this.box.seal(mintWebhookSecret())));
    return this.box.open(row.secret);
  }

  /** The secret if one was minted; null otherwise (a read that must not mint one). */
  async existing(projectId: string): Promise<string | null> {
    const row = await this.repo.find(projectId);
    return row ? this.box.open(row.secret) : null;
  }

  /** A new secret; the old one stops signing at once. */
  async rotate(workspaceId: string, projectId: string): Promise<string> {
    const secret = mintWebhookSecret();
    await this.repo.rotate(workspaceId, projectId, this.box.seal(secret));
    return secret;
  }
}
