import nodemailer from 'nodemailer';
import type { SendResult } from '../sending/retry-policy.js';

/** One e-mail as a delivery row keeps it. */
export interface MailBody {
  to: string;
  subject: string;
  text: string;
}

/**
 * The run e-mail over SMTP (nodemailer), when DELIVERY_SMTP_URL is set. The SMTP host is the
 * operator's, not a user's, so it does not go through the fetch guard. A 5xx reply is the
 * server's final refusal (failed); anything else may pass and is retried like a webhook.
 */
export class Mailer {
  private readonly transport: nodemailer.Transporter;
  readonly host: string;

  constructor(
    smtpUrl: string,
    private readonly from: string,
    timeoutMs: number,
  ) {
    const u = new URL(smtpUrl);
    this.host = u.host;
    this.transport = nodemailer.createTransport(smtpUrl, {
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
    } as nodemailer.TransportOptions);
  }

  async send(mail: MailBody): Promise<SendResult> {
    const started = performance.now();
    const took = () => Math.round(performance.now() - started);
    try {
      await this.transport.sendMail({ from: this.from, to: mail.to, subject: mail.subject, text: mail.text });
      return { status: 250, error: null, durationMs: took(), answer: 'delivered' };
    } catch (err) {
      const code = (err as { responseCode?: number }).responseCode;
      return {
        status: code ?? null,
        error: err instanceof Error ? err.message : String(err),
        durationMs: took(),
        answer: code !== undefined && code >= 500 ? 'refused' : 'retryable',
      };
    }
  }

  close(): void {
    this.transport.close();
  }
}
