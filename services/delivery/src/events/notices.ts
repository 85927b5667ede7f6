import type { Digest } from '@tidemark/contracts';
import type { ChatNotice } from '../chat/chat-message.js';
import type { ProjectSource } from '../repositories/source.repository.js';

/** run.finished as the notices read it. */
export interface RunOutcome {
  runId: string | null;
  status: string;
  pages: number;
  counts: Record<string, number>;
  stop: string | null;
  digest?: Digest | null;
  test?: boolean;
}

const changedCount = (counts: Record<string, number>) =>
  (counts.added ?? 0) + (counts.removed ?? 0) + (counts.modified ?? 0);

/**
 * Whether a finished run is worth a chat post, an e-mail or a notification: it failed, or its
 * comparison found pages added, removed or modified. A run that compared clean never is (spec:
 * Chat channels), nor is a cancelled one.
 */
export const somethingToReport = (run: RunOutcome): boolean =>
  run.test === true || run.status === 'error' || (run.status === 'done' && changedCount(run.counts) > 0);

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

export const runNotice = (project: Pick<ProjectSource, 'name' | 'host'>, run: RunOutcome): ChatNotice => {
  const changed = changedCount(run.counts);
  const title = run.test
    ? `${project.name}: a test message from Tidemark`
    : run.status === 'error'
      ? `${project.name}: the run failed`
      : `${project.name}: ${plural(changed, 'page')} changed`;
  const fallback = run.test
    ? 'This is what a run report will look like here.'
    : `Run ${run.runId ?? ''} ended ${run.status}${run.stop ? ` (${run.stop})` : ''} after ${plural(run.pages, 'page')}.`;
  return {
    title,
    summary: run.digest?.summary ?? fallback,
    facts: [
      ['Added', String(run.counts.added ?? 0)],
      ['Modified', String(run.counts.modified ?? 0)],
      ['Removed', String(run.counts.removed ?? 0)],
      ['Pages', String(run.pages)],
    ],
    points: run.digest?.points ?? [],
    tone: run.status === 'error' || run.digest?.significant ? 'warning' : 'info',
  };
};

export const siteNotice = (
  project: Pick<ProjectSource, 'name' | 'host'>,
  kind: 'site.failing' | 'site.recovered',
  reason: string | null,
): ChatNotice =>
  kind === 'site.failing'
    ? {
        title: `${project.name}: the site is failing`,
        summary: reason ?? `${project.host} is not answering as it did.`,
        facts: [],
        points: [],
        tone: 'warning',
      }
    : {
        title: `${project.name}: the site recovered`,
        summary: reason ?? `${project.host} answers again.`,
        facts: [],
        points: [],
        tone: 'good',
      };

/** The notice as plain text (the e-mail body, a notification's body). */
export const noticeText = (n: ChatNotice): string =>
  [
    n.summary,
    n.facts.length ? n.facts.map(([k, v]) => `${k}: ${v}`).join('\n') : '',
    n.points.length ? n.points.map((p) => `- ${p}`).join('\n') : '',
  ]
    .filter(Boolean)
    .join('\n\n');
