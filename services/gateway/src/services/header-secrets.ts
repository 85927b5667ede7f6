import { isSealedValue, mapConfigHeaders, maskSecretValue } from '@tidemark/contracts';
import { ValidationError } from '@tidemark/errors';
import type { SecretBox } from '@tidemark/secret-box';

type Headers = Record<string, string>;

/**
 * fetch.headers values hold credentials (an Authorization, a session cookie): they are sealed
 * with SECRETS_KEY as soon as a caller's config reaches the gateway, stored and passed between
 * services sealed (project config, job requests, work messages), and opened only by the scrape
 * service's ladder just before a request goes out. Admins read them back in full; everyone else
 * sees them masked, and a masked value sent back keeps the stored one (as chat_url).
 */
export class HeaderSecrets {
  constructor(private readonly box: SecretBox) {}

  /** A caller's value, sealed. A sealed-looking value is nothing a caller can hold: 422. */
  seal(value: string, field: string): string {
    if (isSealedValue(value))
      throw new ValidationError(`${field}: this looks like a value sealed by Tidemark; send the header's own value`, {
        fields: [{ field, message: 'a sealed value' }],
      });
    return this.box.seal(value);
  }

  /** A value stored in the clear before sealing began, sealed (whatever it looks like). */
  sealStored(value: string): string {
    return this.box.seal(value);
  }

  /** A stored value in the clear (one stored before sealing began is plain already); null if it cannot be opened. */
  open(value: string): string | null {
    if (!isSealedValue(value)) return value;
    try {
      return this.box.open(value);
    } catch {
      return null; // sealed under another SECRETS_KEY
    }
  }

  /** A request body (POST /scrape, /crawl, the playground) with the header values of its config sealed. */
  sealRequest<T>(body: T): T {
    const config = (body as { config?: unknown }).config;
    if (!config || typeof config !== 'object' || Array.isArray(config)) return body;
    return {
      ...body,
      config: mapConfigHeaders(config as Record<string, unknown>, (v, field) => this.seal(v, `body.${field}`)),
    };
  }

  /**
   * The headers a config patch sets, read against those stored: a masked value sent back keeps
   * the stored one, a value equal to the stored one keeps its ciphertext (so an identical config
   * saved again keeps its version), any other is sealed.
   */
  sealPatch(sent: Headers, stored: Headers | undefined): Headers {
    const out: Headers = {};
    for (const [name, value] of Object.entries(sent)) {
      const kept = stored?.[name];
      const plain = kept === undefined ? null : this.open(kept);
      out[name] =
        kept !== undefined && plain !== null && (value === plain || value === maskSecretValue(plain))
          ? kept
          : this.seal(value, `body.config.fetch.headers.${name}`);
    }
    return out;
  }

  /** Sealed headers copied from another project: each keeps the target's ciphertext where the value is the same. */
  reuse(next: Headers, stored: Headers | undefined): Headers {
    return Object.fromEntries(
      Object.entries(next).map(([name, value]) => {
        const kept = stored?.[name];
        return [name, kept !== undefined && this.open(kept) === this.open(value) ? kept : value];
      }),
    );
  }

  /** Stored headers as the API shows them: in full to an admin, masked to anyone else. */
  present(stored: Headers, reveal: boolean): Headers {
    return Object.fromEntries(
      Object.entries(stored).map(([name, value]) => {
        const plain = this.open(value);
        return [name, plain === null ? '****' : reveal ? plain : maskSecretValue(plain)];
      }),
    );
  }
}
