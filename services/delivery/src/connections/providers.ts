import { ValidationError } from '@tidemark/errors';

export interface ProviderField {
  name: string;
  required: boolean;
  default?: unknown;
  description: string;
}

export interface Provider {
  provider: string;
  name: string;
  kind: 'llm';
  fields: ProviderField[];
  secrets: { name: string; required: boolean; description: string }[];
  note: string;
  verified: boolean;
}

/**
 * The connection catalogue (GET /v1/connections/providers). Both are language models spoken to
 * over the chat-completions protocol; `verified` says Tidemark's tests run the protocol against a
 * local server (the hosted OpenAI API itself is never called by tests).
 */
export const PROVIDERS: Provider[] = [
  {
    provider: 'openai_compatible',
    name: 'OpenAI-compatible endpoint',
    kind: 'llm',
    fields: [
      {
        name: 'base_url',
        required: true,
        description: 'API root ending before /chat/completions, e.g. http://llm.internal:8000/v1',
      },
      { name: 'model', required: true, description: 'model name the endpoint knows' },
    ],
    secrets: [{ name: 'api_key', required: false, description: 'sent as Authorization: Bearer <api_key>' }],
    note: 'Any server speaking the chat-completions protocol (vLLM, Ollama, LiteLLM, OpenRouter, ...). Used by change_digest; tokens are spent on your key.',
    verified: true,
  },
  {
    provider: 'openai',
    name: 'OpenAI',
    kind: 'llm',
    fields: [
      { name: 'base_url', required: false, default: 'https://api.openai.com/v1', description: 'API root' },
      { name: 'model', required: false, default: 'gpt-4o-mini', description: 'model name' },
    ],
    secrets: [{ name: 'api_key', required: true, description: 'an OpenAI API key' }],
    note: 'The hosted OpenAI API over the same protocol. Used by change_digest; tokens are spent on your key.',
    verified: false,
  },
];

export const providerOf = (name: string): Provider => {
  const p = PROVIDERS.find((x) => x.provider === name);
  if (!p)
    throw new ValidationError(
      `body.provider: unknown provider "${name}"; one of ${PROVIDERS.map((x) => x.provider).join(', ')}`,
    );
  return p;
};

const isHttpUrl = (v: unknown) => {
  try {
    return typeof v === 'string' && /^https?:$/.test(new URL(v).protocol);
  } catch {
    return false;
  }
};

/** The config with defaults filled in; unknown or missing fields are refused by name. */
export const checkConfig = (p: Provider, config: Record<string, unknown>): Record<string, unknown> => {
  const unknown = Object.keys(config).filter((k) => !p.fields.some((f) => f.name === k));
  if (unknown.length) throw new ValidationError(`body.config.${unknown[0]}: not a field of ${p.provider}`);
  const out: Record<string, unknown> = {};
  for (const f of p.fields) {
    const v = config[f.name] ?? f.default;
    if (v === undefined || v === '') {
      if (f.required) throw new ValidationError(`body.config.${f.name}: required by ${p.provider}`);
      continue;
    }
    if (typeof v !== 'string' || v.length > 2048)
      throw new ValidationError(`body.config.${f.name}: a string up to 2048 characters`);
    if (f.name === 'base_url' && !isHttpUrl(v)) throw new ValidationError('body.config.base_url: an http(s) URL');
    out[f.name] = v;
  }
  return out;
};

/** Secrets by name; unknown ones are refused, required ones must be present once all are merged. */
export const checkSecrets = (
  p: Provider,
  secrets: Record<string, string>,
  partial: boolean,
): Record<string, string> => {
  const unknown = Object.keys(secrets).filter((k) => !p.secrets.some((s) => s.name === k));
  if (unknown.length) throw new ValidationError(`body.secrets.${unknown[0]}: not a secret of ${p.provider}`);
  if (!partial)
    for (const s of p.secrets)
      if (s.required && !secrets[s.name])
        throw new ValidationError(`body.secrets.${s.name}: required by ${p.provider}`);
  return secrets;
};
