import type { ChatService } from '@tidemark/contracts';

/**
 * Which chat service an incoming-webhook URL belongs to, by its host (and, for self-hosted
 * Mattermost, by its `/hooks/<26 characters>` path). Anything else gets a Slack-compatible
 * `{text}` body, which Mattermost, Rocket.Chat and most others accept.
 */
export const chatServiceOf = (url: string): ChatService => {
  const u = new URL(url);
  const host = u.hostname.toLowerCase();
  if (host === 'hooks.slack.com') return 'slack';
  if (/^(ptb\.|canary\.)?discord(app)?\.com$/.test(host) && u.pathname.startsWith('/api/webhooks/')) return 'discord';
  if (host === 'chat.googleapis.com') return 'google_chat';
  if (
    host.endsWith('.webhook.office.com') ||
    host === 'outlook.office.com' ||
    host.endsWith('.logic.azure.com') ||
    host.endsWith('.powerplatform.com')
  )
    return 'teams';
  if (/\/hooks\/[a-z0-9]{26}\/?$/i.test(u.pathname)) return 'mattermost';
  return 'generic';
};

/** What a chat post says, before it takes a service's shape. */
export interface ChatNotice {
  /** One line: `example.com: 3 pages changed`. */
  title: string;
  /** A sentence or the digest's paragraph. */
  summary: string;
  /** Label and value pairs (Added 2, Modified 1, …). */
  facts: [string, string][];
  /** The digest's points. */
  points: string[];
  tone: 'info' | 'warning' | 'good';
}

const COLORS = { info: 0x2f6fde, warning: 0xd9822b, good: 0x2da44e } as const;
const hex = (n: number) => `#${n.toString(16).padStart(6, '0')}`;
const cut = (s: string, max: number) => (s.length <= max ? s : `${s.slice(0, max - 1)}…`);
const bullets = (points: string[], mark = '•') => points.map((p) => `${mark} ${p}`).join('\n');

/** Plain markdown-ish text, for the services whose shape is mostly `text`. */
const asText = (n: ChatNotice, bold: (s: string) => string) =>
  [
    bold(n.title),
    n.summary,
    n.facts.length ? n.facts.map(([k, v]) => `${k}: ${v}`).join(' · ') : '',
    n.points.length ? bullets(n.points) : '',
  ]
    .filter(Boolean)
    .join('\n');

/**
 * The notice in each service's own incoming-webhook shape: Slack (text + Block Kit), Microsoft
 * Teams (an Adaptive Card message, what Workflows webhooks take), Discord (content + embed),
 * Mattermost (markdown text + attachment), Google Chat (text), and `{text}` for the rest.
 * Lengths are cut to each service's documented limits.
 */
export const chatBody = (service: ChatService, n: ChatNotice): object => {
  switch (service) {
    case 'slack':
      return {
        text: cut(
          asText(n, (s) => `*${s}*`),
          3000,
        ),
        blocks: [
          { type: 'header', text: { type: 'plain_text', text: cut(n.title, 150), emoji: true } },
          { type: 'section', text: { type: 'mrkdwn', text: cut(n.summary || n.title, 3000) } },
          ...(n.facts.length
            ? [
                {
                  type: 'section',
                  fields: n.facts.slice(0, 10).map(([k, v]) => ({ type: 'mrkdwn', text: cut(`*${k}*\n${v}`, 2000) })),
                },
              ]
            : []),
          ...(n.points.length
            ? [{ type: 'section', text: { type: 'mrkdwn', text: cut(bullets(n.points), 3000) } }]
            : []),
        ],
      };
    case 'teams':
      return {
        type: 'message',
        attachments: [
          {
            contentType: 'application/vnd.microsoft.card.adaptive',
            contentUrl: null,
            content: {
              $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
              type: 'AdaptiveCard',
              version: '1.4',
              body: [
                { type: 'TextBlock', text: n.title, weight: 'Bolder', size: 'Medium', wrap: true },
                ...(n.summary ? [{ type: 'TextBlock', text: n.summary, wrap: true }] : []),
                ...(n.facts.length
                  ? [{ type: 'FactSet', facts: n.facts.map(([title, value]) => ({ title, value })) }]
                  : []),
                ...(n.points.length ? [{ type: 'TextBlock', text: bullets(n.points, '-'), wrap: true }] : []),
              ],
            },
          },
        ],
      };
    case 'discord':
      return {
        content: cut(n.title, 2000),
        embeds: [
          {
            title: cut(n.title, 256),
            description: cut([n.summary, bullets(n.points)].filter(Boolean).join('\n\n'), 4096),
            color: COLORS[n.tone],
            fields: n.facts
              .slice(0, 25)
              .map(([name, value]) => ({ name: cut(name, 256), value: cut(value, 1024), inline: true })),
          },
        ],
      };
    case 'mattermost':
      return {
        text: asText(n, (s) => `#### ${s}`),
        attachments: n.facts.length
          ? [
              {
                fallback: n.title,
                color: hex(COLORS[n.tone]),
                fields: n.facts.map(([title, value]) => ({ short: true, title, value })),
              },
            ]
          : [],
      };
    case 'google_chat':
      return {
        text: cut(
          asText(n, (s) => `*${s}*`),
          4096,
        ),
      };
    case 'generic':
      return { text: asText(n, (s) => `*${s}*`) };
  }
};
