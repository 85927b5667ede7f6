import type { Logger } from '@tidemark/telemetry';
import type { DeliveryClient } from '../clients/delivery.client.js';

const MAIL_STATUS_TTL_MS = 60_000;

/**
 * Account mail (confirmation, reset and invitation codes) through the delivery service's SMTP
 * host. Without one there is nobody to prove an address to, so a sign-up is taken as verified
 * (docs/decisions.md).
 */
export class AccountMail {
  private known: { mail: boolean; until: number } | null = null;

  constructor(
    private readonly delivery: DeliveryClient,
    /** Where the web application lives; e-mails link to it when set. */
    private readonly appUrl: string | undefined,
    private readonly logger: Logger,
  ) {}

  /** Whether a mail host is configured (delivery's setting; asked at most once a minute). */
  async configured(): Promise<boolean> {
    if (this.known && this.known.until > Date.now()) return this.known.mail;
    const { mail } = await this.delivery.call('mailStatus', {});
    this.known = { mail, until: Date.now() + MAIL_STATUS_TTL_MS };
    return mail;
  }

  /** Whether the mail went; a failure is logged, never thrown (the person can ask again). */
  async send(to: string, subject: string, text: string): Promise<boolean> {
    try {
      return (await this.delivery.call('accountMail', { to, subject, text })).sent;
    } catch (err) {
      this.logger.warn({ err }, 'account mail not sent');
      return false;
    }
  }

  /** A line linking to the web application's page for a code, or nothing without one. */
  link(kind: string, token: string): string {
    return this.appUrl ? `\n${this.appUrl.replace(/\/$/, '')}/${kind}?token=${token}\n` : '';
  }
}
