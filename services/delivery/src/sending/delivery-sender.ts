import type { Delivery } from '@tidemark/db';
import type { SecretBox } from '@tidemark/secret-box';
import { webhookHeaders } from '../crypto/signing.js';
import type { Mailer, MailBody } from '../notify/mailer.js';
import type { WebhookSecrets } from '../webhooks/webhook-secrets.js';
import type { HttpSender } from './http-sender.js';
import type { SendResult } from './retry-policy.js';

/**
 * One attempt of one delivery: a webhook is signed (X-Service-Signature and the Standard
 * Webhooks headers, with this attempt's timestamp) and posted; a chat post goes unsigned; an
 * e-mail goes to the SMTP server.
 */
export class DeliverySender {
  constructor(
    private readonly http: HttpSender,
    private readonly mailer: Mailer | null,
    private readonly secrets: WebhookSecrets,
    private readonly box: SecretBox,
  ) {}

  async send(d: Delivery): Promise<SendResult> {
    if (d.channel === 'email') {
      if (!this.mailer)
        return { status: null, error: 'no mail host is configured', durationMs: 0, answer: 'retryable' };
      return this.mailer.send(JSON.parse(d.body) as MailBody);
    }
    if (d.channel === 'chat') return this.http.post(d.url, {}, d.body);
    // Job webhooks carry their job's secret; project webhooks sign with the project's current
    // one, so a rotation applies to retries too.
    const secret = d.secret ? this.box.open(d.secret) : await this.secrets.current(d.workspaceId, d.projectId ?? '');
    const headers = webhookHeaders({
      deliveryId: d.id,
      event: d.event,
      body: d.body,
      secret,
      timestamp: Math.floor(Date.now() / 1000),
    });
    return this.http.post(d.url, headers, d.body);
  }
}
