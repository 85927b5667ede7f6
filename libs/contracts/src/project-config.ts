import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { refuseGuardedUrl } from './outbound-url.js';

/**
 * The project configuration: every key, its group, type, default and meaning. One table feeds
 * validation, defaults, `GET /v1/meta`, the OpenAPI document and the agent tool
 * `describe_project_config`, so they cannot disagree. Keys are snake_case; the crawl request's
 * short names (camelCase) and `STORE_HTML` are accepted as aliases (see CONFIG_ALIASES).
 */
export const CONFIG_GROUPS = ['scope', 'fetch', 'content', 'output', 'advanced'] as const;
export type ConfigGroup = (typeof CONFIG_GROUPS)[number];

interface KeyDef {
  group: ConfigGroup;
  schema: z.ZodType;
  default: unknown;
  description: string;
}

/**
 * A list of scope globs. Globs are matched without backtracking, in work that grows with the
 * list's length times the path's (services/crawl/src/frontier/glob); these bounds keep a list's
 * automaton small (docs/security.md, "Bounded work on untrusted patterns").
 */
export const GLOB_LIMITS = { chars: 500, count: 200, listChars: 2_000 } as const;
export const globListSchema = z
  .array(z.string().min(1).max(GLOB_LIMITS.chars))
  .max(GLOB_LIMITS.count)
  .refine(
    (globs) => globs.reduce((n, g) => n + g.length, 0) <= GLOB_LIMITS.listChars,
    `at most ${GLOB_LIMITS.listChars.toLocaleString('en')} characters of globs in one list`,
  );
/** Every URL key of the config is fetched or posted to later: the fetch guard judges it when saved. */
const url = z
  .string()
  .url()
  .max(2048)
  .refine((u) => /^https?:/i.test(u), 'must be an http(s) URL')
  .superRefine(refuseGuardedUrl);
const selector = z.string().min(1).max(1000);
const fieldSpec = z.union([
  selector,
  z.strictObject({ selector, attr: z.string().min(1).max(100).optional(), all: z.boolean().optional() }),
]);

/** The longest header value a caller may send. */
export const HEADER_VALUE_MAX = 4000;
/** The longest a header value becomes once sealed (4,000 UTF-16 units are at most 12,000 bytes). */
const SEALED_HEADER_MAX = 16_100;
/**
 * A value sealed by libs/secret-box (`v1.<12-byte iv>.<16-byte tag>.<ciphertext>`, base64url).
 * fetch.headers values are kept and passed between services so: the gateway seals what a caller
 * sends, the scrape service's ladder opens it just before the request goes out.
 */
const SEALED_VALUE = /^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]*$/;
export const isSealedValue = (value: string): boolean => SEALED_VALUE.test(value);

// Generic so each key keeps its literal group and its schema's type (ResolvedConfig needs both).
const key = <G extends ConfigGroup, S extends z.ZodType>(
  group: G,
  schema: S,
  def: z.input<S>,
  description: string,
) => ({
  group,
  schema,
  default: def as unknown,
  description,
});

export const CONFIG_KEYS = {
  // scope: which URLs belong to a run
  max_pages: key('scope', z.number().int().min(1).max(1_000_000), 1000, 'most pages one run fetches'),
  max_depth: key(
    'scope',
    z.number().int().min(0).max(100).nullable(),
    null,
    'link depth from the seed; null = no limit',
  ),
  include_paths: key('scope', globListSchema, [], 'globs a URL path must match (any of); empty = all'),
  exclude_paths: key('scope', globListSchema, [], 'globs that rule a URL path out; they win over include_paths'),
  allow_subdomains: key('scope', z.boolean(), false, 'follow links to subdomains of the seed host'),
  use_sitemap: key('scope', z.boolean(), true, 'read the sitemaps robots.txt and /sitemap.xml declare'),
  sitemap_mode: key(
    'scope',
    z.enum(['auto', 'only', 'skip']),
    'auto',
    'auto: sitemap plus links; only: sitemap URLs alone; skip: ignore sitemaps',
  ),
  sitemap_include: key('scope', globListSchema, [], 'globs a sitemap URL must match to be queued'),
  sitemap_exclude: key('scope', globListSchema, [], 'globs that keep sitemap URLs out'),
  crawl_mode: key(
    'scope',
    z.enum(['links', 'sitemap_first']),
    'links',
    'links: breadth-first from the seed; sitemap_first: sitemap URLs before discovered links',
  ),
  respect_robots: key('scope', z.boolean(), true, 'obey robots.txt rules for our user agent'),
  url_list: key('scope', z.array(url).max(50_000), [], 'extra URLs fetched every run (belongs to this site only)'),
  feeds: key('scope', z.array(url).max(100), [], 'RSS/Atom feeds whose entries are queued (belongs to this site only)'),
  // fetch: how each page is fetched
  render_js: key(
    'fetch',
    z.enum(['auto', 'always']),
    'auto',
    'auto: the browser only when plain HTTP did not read the page; always: every page in the browser',
  ),
  max_tier: key(
    'fetch',
    z.enum(['http', 'browser', 'browser+exit']),
    'browser',
    'the highest rung of the engine ladder a page may climb to',
  ),
  max_credits_per_page: key(
    'fetch',
    z.number().int().min(1).max(1000).nullable(),
    null,
    'what one page may cost at most; null = no cap',
  ),
  delay: key('fetch', z.number().min(0).max(60), 0, 'seconds between two requests to one host'),
  concurrency: key('fetch', z.number().int().min(1).max(64), 4, 'requests in flight to one host'),
  timeout: key('fetch', z.number().int().min(1).max(120), 60, 'seconds one page may take'),
  wait_for: key('fetch', z.number().int().min(0).max(30_000), 0, 'milliseconds the browser waits after load'),
  max_age: key(
    'fetch',
    z.number().int().min(0).nullable(),
    null,
    'milliseconds a stored copy stays fresh enough to serve (verdict cached); null = always fetch',
  ),
  headers: key(
    'fetch',
    z.record(
      z.string().min(1).max(200),
      z
        .string()
        .max(SEALED_HEADER_MAX)
        .refine((v) => v.length <= HEADER_VALUE_MAX || isSealedValue(v), `at most ${HEADER_VALUE_MAX} characters`),
    ),
    {},
    'extra request headers (often credentials): kept sealed, shown in full to admins only, masked to others (`****` and the last four characters); sending a masked value back keeps the stored one',
  ),
  login_id: key(
    'fetch',
    z.string().min(1).max(100).nullable(),
    null,
    'saved login to fetch with; a run never falls back to signed out',
  ),
  // content: what is kept of a page
  only_main_content: key(
    'content',
    z.boolean(),
    true,
    'keep the main content, drop navigation, headers, footers and sidebars',
  ),
  include_tags: key('content', z.array(selector).max(100), [], 'CSS selectors kept even outside the main content'),
  exclude_tags: key('content', z.array(selector).max(100), [], 'CSS selectors always removed'),
  remove_banners: key('content', z.boolean(), true, 'remove cookie notices, banners and widgets'),
  remove_base64_images: key('content', z.boolean(), true, 'replace inline base64 images with their alt text'),
  fields: key(
    'content',
    z.record(z.string().min(1).max(100), fieldSpec),
    {},
    '{name: selector} or {name: {selector, attr?, all?}}; CSS, or XPath starting with / or (',
  ),
  min_words: key('content', z.number().int().min(0).max(100_000), 0, 'word floor: pages under it are skipped'),
  languages: key(
    'content',
    z.array(z.string().regex(/^[a-z]{2,3}(-[A-Za-z]{2,4})?$/)).max(50),
    [],
    'languages kept (ISO 639); others are skipped; empty = all',
  ),
  parse_documents: key(
    'content',
    z.boolean(),
    true,
    "read a URL that answers a PDF, DOCX, PPTX, XLSX, ODT or RTF into markdown and text, priced per page (GET /v1/meta credits.documents); false keeps the bytes' metadata only (type, size), at the price of an http page",
  ),
  // output: what is stored and who is told
  formats: key(
    'output',
    z
      .array(z.enum(['markdown', 'text', 'cleanHtml', 'rawHtml', 'links', 'screenshot']))
      .min(1)
      .max(6),
    ['markdown'],
    'bodies stored per page',
  ),
  screenshot: key(
    'output',
    z.strictObject({
      full_page: z.boolean().default(false),
      width: z.number().int().min(320).max(2560).default(1366),
      format: z.enum(['jpeg', 'png']).default('jpeg'),
      quality: z.number().int().min(1).max(100).default(80),
    }),
    { full_page: false, width: 1366, format: 'jpeg', quality: 80 },
    'the screenshot format takes: {full_page (the whole page as one image, at most 16,384 px high; else the viewport), width (px, 320-2560), format (jpeg or png), quality (jpeg, 1-100)}',
  ),
  store_html: key(
    'output',
    z.enum(['home', 'always']),
    'home',
    'home: raw html of the home page only; always: of every page',
  ),
  webhook_url: key('output', url.nullable(), null, 'receiver of project events'),
  webhook_events: key(
    'output',
    z.array(z.string().regex(/^[a-z_]+\.[a-z_]+$/)).max(30),
    ['run.finished', 'page.changed'],
    'project events sent to webhook_url',
  ),
  chat_url: key(
    'output',
    z.union([url, z.literal('')]).nullable(),
    null,
    'incoming-webhook URL of a chat service; returned masked; sending the masked value back keeps it, an empty string removes it',
  ),
  notify_min_words: key(
    'output',
    z.number().int().min(0).max(100_000),
    1,
    'a modified page is reported once its edit reaches this many words',
  ),
  change_digest: key(
    'output',
    z.strictObject({ connection_id: z.string().min(1).max(100), focus: z.string().max(2000).default('') }).nullable(),
    null,
    'model-written digest of each change set: {connection_id, focus}',
  ),
  // advanced
  max_credits: key(
    'advanced',
    z.number().int().min(1).nullable(),
    null,
    'budget of one run; null = what the workspace has',
  ),
  max_retries: key(
    'advanced',
    z.number().int().min(0).max(10),
    2,
    'retries of a page that failed with a retryable error',
  ),
  volatile_selectors: key(
    'advanced',
    z.array(selector).max(100),
    [],
    'CSS selectors the change record ignores (timestamps, counters)',
  ),
  compare: key('advanced', z.boolean(), true, 'compare each run with the one before and write a change record'),
} as const satisfies Record<string, KeyDef>;

export type ConfigKey = keyof typeof CONFIG_KEYS;

/**
 * Keys that belong to one site (URL lists, feeds and path patterns): a template's config, or a
 * config applied to other projects, never carries them (spec: Project).
 */
export const SITE_BOUND_KEYS: readonly ConfigKey[] = [
  'include_paths',
  'exclude_paths',
  'sitemap_include',
  'sitemap_exclude',
  'url_list',
  'feeds',
];

/**
 * The patch that copies `groups` of a saved config onto another project: every key of those
 * groups but the site-bound ones.
 */
export const groupsPatch = (source: ResolvedConfig, groups: readonly ConfigGroup[]): ConfigPatch => {
  const patch: Record<string, unknown> = {};
  for (const [name, def] of Object.entries(CONFIG_KEYS) as [ConfigKey, KeyDef][]) {
    if (!groups.includes(def.group) || SITE_BOUND_KEYS.includes(name)) continue;
    const value = (source[def.group] as Record<string, unknown> | undefined)?.[name];
    patch[name] = value === undefined ? structuredClone(def.default) : structuredClone(value);
  }
  return patch as ConfigPatch;
};

/** Other names accepted for a key: the crawl request's short names and the spec's STORE_HTML. */
export const CONFIG_ALIASES: Record<string, ConfigKey> = {
  limit: 'max_pages',
  maxDepth: 'max_depth',
  includePaths: 'include_paths',
  excludePaths: 'exclude_paths',
  allowSubdomains: 'allow_subdomains',
  useSitemap: 'use_sitemap',
  sitemapMode: 'sitemap_mode',
  crawlMode: 'crawl_mode',
  respectRobots: 'respect_robots',
  maxTier: 'max_tier',
  maxAge: 'max_age',
  maxCredits: 'max_credits_per_page',
  onlyMainContent: 'only_main_content',
  STORE_HTML: 'store_html',
};

type KeyType<K extends ConfigKey> = z.infer<(typeof CONFIG_KEYS)[K]['schema']>;
export type ResolvedConfig = {
  [G in ConfigGroup]: { [K in ConfigKey as (typeof CONFIG_KEYS)[K]['group'] extends G ? K : never]: KeyType<K> };
};
/** A stored config as returned by the API: the groups plus the version. */
export type VersionedConfig = ResolvedConfig & { version: number };
export type ConfigPatch = Partial<{ [K in ConfigKey]: KeyType<K> }>;

const keysOf = (group: ConfigGroup) =>
  (Object.keys(CONFIG_KEYS) as ConfigKey[]).filter((k) => CONFIG_KEYS[k].group === group);

const optionalShape = (names: string[], target: (name: string) => ConfigKey) =>
  Object.fromEntries(names.map((n) => [n, CONFIG_KEYS[target(n)].schema.optional()]));

/** A group written as an object: `{"fetch": {"render_js": "always"}}`. */
const groupObject = (group: ConfigGroup) => z.strictObject(optionalShape(keysOf(group), (n) => n as ConfigKey));

/**
 * What a request may send as `config`: any key by its name or alias, flat, or inside its group
 * object; `version` is read-only and ignored so a fetched config can be sent back as it is.
 * Unknown keys are refused by name (zod's unrecognized_keys issue lists them).
 */
export const configInputSchema = z
  .strictObject({
    ...optionalShape(Object.keys(CONFIG_KEYS), (n) => n as ConfigKey),
    ...optionalShape(Object.keys(CONFIG_ALIASES), (n) => CONFIG_ALIASES[n]!),
    ...Object.fromEntries(CONFIG_GROUPS.map((g) => [g, groupObject(g).optional()])),
    version: z.number().int().optional(),
  })
  .describe('Project configuration: any key flat, by alias, or inside its group; unknown keys are refused.');

export type ConfigInput = z.input<typeof configInputSchema>;

/** Flattens a validated input to canonical keys; two spellings of one key must agree. */
export const toConfigPatch = (input: z.output<typeof configInputSchema>): ConfigPatch => {
  const patch: Record<string, unknown> = {};
  const put = (name: ConfigKey, value: unknown, spelledAs: string) => {
    if (value === undefined) return;
    if (name in patch && !isDeepStrictEqual(patch[name], value)) {
      throw new ConfigConflictError(name, spelledAs);
    }
    patch[name] = value;
  };
  const fields = input as Record<string, unknown>;
  for (const group of CONFIG_GROUPS) {
    const obj = fields[group] as Record<string, unknown> | undefined;
    for (const [k, v] of Object.entries(obj ?? {})) put(k as ConfigKey, v, `${group}.${k}`);
  }
  for (const [k, v] of Object.entries(fields)) {
    if (k === 'version' || (CONFIG_GROUPS as readonly string[]).includes(k)) continue;
    put(CONFIG_ALIASES[k] ?? (k as ConfigKey), v, k);
  }
  return patch as ConfigPatch;
};

export class ConfigConflictError extends Error {
  constructor(
    readonly key: ConfigKey,
    readonly spelledAs: string,
  ) {
    super(`config key ${key} is given twice with different values (also as ${spelledAs})`);
  }
}

/** Every key at its default, grouped. */
export const defaultConfig = (): ResolvedConfig => applyConfigPatch(undefined, {});

/** Lays a patch over a stored config (or the defaults) and answers the full grouped config. */
export const applyConfigPatch = (base: ResolvedConfig | undefined, patch: ConfigPatch): ResolvedConfig => {
  const out = Object.fromEntries(CONFIG_GROUPS.map((g) => [g, {}])) as Record<ConfigGroup, Record<string, unknown>>;
  for (const [name, def] of Object.entries(CONFIG_KEYS) as [ConfigKey, KeyDef][]) {
    const stored = (base?.[def.group] as Record<string, unknown> | undefined)?.[name];
    const value = name in patch ? patch[name] : stored !== undefined ? stored : structuredClone(def.default);
    out[def.group][name] = value;
  }
  return out as ResolvedConfig;
};

/**
 * Saves a patch: the version moves only when the resolved config differs, so re-saving an
 * identical config keeps it.
 */
export const saveConfig = (
  stored: { config: ResolvedConfig; version: number } | undefined,
  patch: ConfigPatch,
): { config: ResolvedConfig; version: number; changed: boolean } => {
  const config = applyConfigPatch(stored?.config, patch);
  if (!stored) return { config, version: 1, changed: true };
  // Compared as JSON: a config read back from the database may hold objects of another
  // prototype than a patch's, which a strict comparison would call different.
  const plain = (c: ResolvedConfig) => JSON.parse(JSON.stringify(c)) as unknown;
  const changed = !isDeepStrictEqual(plain(config), plain(applyConfigPatch(stored.config, {})));
  return { config, version: changed ? stored.version + 1 : stored.version, changed };
};

/** The key table as `GET /v1/meta` and describe_project_config print it. */
export const describeConfig = () =>
  Object.fromEntries(
    CONFIG_GROUPS.map((group) => [
      group,
      Object.fromEntries(
        keysOf(group).map((name) => [
          name,
          {
            type: z.toJSONSchema(CONFIG_KEYS[name].schema, { io: 'input', unrepresentable: 'any' }),
            default: CONFIG_KEYS[name].default,
            description: CONFIG_KEYS[name].description,
            aliases: Object.keys(CONFIG_ALIASES).filter((a) => CONFIG_ALIASES[a] === name),
          },
        ]),
      ),
    ]),
  );

/**
 * A secret-bearing URL as the API shows it: scheme and host, then the last four characters.
 * `https://hooks.example.com/services/T0/B0/abcd1234` → `https://hooks.example.com/****1234`.
 */
export const maskSecretUrl = (value: string): string => {
  const u = new URL(value);
  return `${u.protocol}//${u.host}/****${value.slice(-4)}`;
};

/**
 * A secret value as the API shows it to those who may not read it: `****` and its last four
 * characters (only `****` for a value under 12 characters, where four would be too much of it).
 */
export const maskSecretValue = (value: string): string => (value.length >= 12 ? `****${value.slice(-4)}` : '****');

/**
 * The fetch.headers of a config input as the caller wrote them (flat `headers` or in the `fetch`
 * group), each value passed through `map`; everything else as it was. For the gateway, which
 * seals them as they come in.
 */
export const mapConfigHeaders = (
  input: Record<string, unknown>,
  map: (value: string, field: string) => string,
  path = 'config',
): Record<string, unknown> => {
  const mapped = (headers: unknown, at: string) =>
    headers && typeof headers === 'object' && !Array.isArray(headers)
      ? Object.fromEntries(
          Object.entries(headers as Record<string, unknown>).map(([k, v]) => [
            k,
            typeof v === 'string' ? map(v, `${at}.${k}`) : v,
          ]),
        )
      : headers;
  const out: Record<string, unknown> = { ...input };
  if ('headers' in out) out.headers = mapped(out.headers, `${path}.headers`);
  const fetch = out.fetch;
  if (fetch && typeof fetch === 'object' && !Array.isArray(fetch) && 'headers' in fetch)
    out.fetch = { ...fetch, headers: mapped((fetch as Record<string, unknown>).headers, `${path}.fetch.headers`) };
  return out;
};

/** The keys whose values are secrets and leave the API masked. */
export const MASKED_CONFIG_KEYS = ['chat_url'] as const;

/**
 * Reads a patch against the stored config for the masked keys: the masked value sent back keeps
 * what is stored, an empty string removes it.
 */
export const resolveMaskedKeys = (stored: ResolvedConfig | undefined, patch: ConfigPatch): ConfigPatch => {
  const out: Record<string, unknown> = { ...patch };
  for (const name of MASKED_CONFIG_KEYS) {
    const sent = out[name];
    if (sent === undefined) continue;
    const current = (stored?.[CONFIG_KEYS[name].group] as Record<string, unknown> | undefined)?.[name];
    if (sent === '') out[name] = null;
    else if (typeof current === 'string' && sent === maskSecretUrl(current)) out[name] = current;
  }
  return out as ConfigPatch;
};

/** The config as the API returns it: secrets masked, version beside the groups. */
export const presentConfig = (config: ResolvedConfig, version: number): VersionedConfig => {
  const out = structuredClone(config) as ResolvedConfig;
  for (const name of MASKED_CONFIG_KEYS) {
    const group = out[CONFIG_KEYS[name].group] as Record<string, unknown>;
    if (typeof group[name] === 'string') group[name] = maskSecretUrl(group[name] as string);
  }
  return { version, ...out };
};
