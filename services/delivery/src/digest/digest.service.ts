import { digestSchema, type ChangeSummary, type Digest } from '@tidemark/contracts';
import type { Logger } from '@tidemark/telemetry';
import type { ConnectionService } from '../connections/connection.service.js';
import type { ConnectionRepository } from '../repositories/connection.repository.js';
import { ModelCallError, type ChatCompletionsClient } from './chat-completions.client.js';

export interface DigestInput {
  workspaceId: string;
  connectionId: string;
  focus: string;
  projectId: string | null;
  runId: string | null;
  counts: Record<string, number>;
  changes: ChangeSummary[];
}

export interface DigestResult {
  digest: Digest | null;
  usage: { promptTokens: number; completionTokens: number } | null;
}

/** What the prompt may spend on the change list; the rest is counted, not shown. */
const MAX_CHANGES_CHARS = 24_000;

const SYSTEM = [
  'You summarise what changed on a website between two crawls, for the people who watch it.',
  'Answer with one JSON object and nothing else: {"summary": string, "points": string[], "significant": boolean}.',
  '"summary" is one short paragraph. "points" are at most five short, concrete statements of what changed.',
  '"significant" is true only when a reader following the focus would want to act on the change;',
  'cosmetic edits, dates and counters are not significant.',
].join(' ');

const describeChanges = (changes: ChangeSummary[]) => {
  const lines: string[] = [];
  let used = 0;
  for (const c of changes) {
    const line = `- ${c.kind} ${c.url}${c.section ? ` (section ${c.section})` : ''}: +${c.wordsAdded} / -${c.wordsRemoved} words${
      c.excerpt ? `\n  ${c.excerpt.replace(/\s+/g, ' ').slice(0, 1000)}` : ''
    }`;
    if (used + line.length > MAX_CHANGES_CHARS) {
      lines.push(`- … and ${changes.length - lines.length} more pages`);
      break;
    }
    lines.push(line);
    used += line.length;
  }
  return lines.join('\n');
};

/** The first {...} of a model answer (some wrap JSON in a code fence or a sentence). */
const jsonIn = (text: string): unknown => {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) throw new ModelCallError('the model answer holds no JSON object');
  try {
    return JSON.parse(text.slice(start, end + 1));
  } catch {
    throw new ModelCallError('the model answer is not valid JSON');
  }
};

/**
 * The change digest (spec: Digest): a language-model connection of the workspace reads the
 * change set and the project's focus and answers a paragraph, up to five points and a
 * significant flag. Tokens are recorded against the workspace. A digest that cannot be written
 * is null (logged), never a failed run or a lost webhook.
 */
export class DigestService {
  constructor(
    private readonly connections: ConnectionService,
    private readonly usage: ConnectionRepository,
    private readonly models: ChatCompletionsClient,
    private readonly logger: Logger,
  ) {}

  async write(input: DigestInput): Promise<DigestResult> {
    const connection = await this.connections.open(input.workspaceId, input.connectionId);
    const user = [
      input.focus ? `Focus of the people watching: ${input.focus}` : 'No particular focus was given.',
      `Counts: ${JSON.stringify(input.counts)}`,
      'Changed pages:',
      describeChanges(input.changes) || '(none listed)',
    ].join('\n');
    try {
      const answer = await this.models.complete({
        baseUrl: connection.config.base_url!,
        apiKey: connection.secrets.api_key,
        model: connection.config.model!,
        messages: [
          { role: 'system', content: SYSTEM },
          { role: 'user', content: user },
        ],
        maxTokens: 800,
        json: true,
      });
      const usage = { promptTokens: answer.promptTokens, completionTokens: answer.completionTokens };
      await this.usage.recordTokens({
        workspaceId: input.workspaceId,
        connectionId: connection.id,
        purpose: 'digest',
        projectId: input.projectId,
        runId: input.runId,
        model: answer.model,
        ...usage,
      });
      const raw = jsonIn(answer.content) as { summary?: unknown; points?: unknown; significant?: unknown };
      const parsed = digestSchema.safeParse({
        summary: typeof raw.summary === 'string' ? raw.summary.trim() : raw.summary,
        points: Array.isArray(raw.points)
          ? raw.points
              .filter((p): p is string => typeof p === 'string' && p.trim() !== '')
              .map((p) => p.trim())
              .slice(0, 5)
          : [],
        significant: raw.significant === true,
      });
      if (!parsed.success) throw new ModelCallError('the model answer is not a digest');
      return { digest: parsed.data, usage };
    } catch (err) {
      if (!(err instanceof ModelCallError)) throw err;
      this.logger.warn({ err, connectionId: input.connectionId, runId: input.runId }, 'digest not written');
      return { digest: null, usage: null };
    }
  }
}
