// Trying scope before saving it: POST sources/preview (each pattern's count and first URLs, feeds
// read now, listed URLs checked) and POST dry-run (what the draft would keep, drop or add among
// the URLs the project knows). Nothing is queued or saved.
import { useState } from 'react';
import { api } from '../../api';
import type { Project } from '../../types';
import { TextArea } from '../../ui/fields';
import { shortUrl } from '../../ui/format';
import { ErrorNote, useAction } from '../../ui/states';

interface PatternCount {
  pattern: string;
  count: number;
  urls: string[];
}
interface Preview {
  known: number;
  sitemapUrls: number;
  include_paths: PatternCount[];
  exclude_paths: PatternCount[];
  sitemap_include: PatternCount[];
  sitemap_exclude: PatternCount[];
  feeds: { url: string; entries?: number; error?: string }[];
  creditsUsed: number;
}
interface UrlSet {
  count: number;
  urls: string[];
}
interface DryRun {
  known: number;
  verdicts: Record<string, UrlSet>;
  dropped: UrlSet;
  added: UrlSet;
}

const PATTERN_KEYS = ['include_paths', 'exclude_paths', 'sitemap_include', 'sitemap_exclude'] as const;
type PatternKey = (typeof PATTERN_KEYS)[number];

const lines = (t: string) =>
  t
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

const Urls = ({ set }: { set: UrlSet }) =>
  set.urls.length ? (
    <ul className="urls">
      {set.urls.slice(0, 10).map((u) => (
        <li key={u}>{shortUrl(u)}</li>
      ))}
      {set.count > 10 && <li className="muted">and {set.count - 10} more</li>}
    </ul>
  ) : null;

export const ScopePreview = ({ project }: { project: Project }) => {
  const scope = project.config.scope as Record<PatternKey, string[]>;
  const [draft, setDraft] = useState<Record<PatternKey, string>>(
    Object.fromEntries(PATTERN_KEYS.map((k) => [k, (scope[k] ?? []).join('\n')])) as Record<PatternKey, string>,
  );
  const [preview, setPreview] = useState<Preview | null>(null);
  const [dry, setDry] = useState<DryRun | null>(null);
  const action = useAction();
  const run = async () => {
    const body = Object.fromEntries(PATTERN_KEYS.map((k) => [k, lines(draft[k])]));
    await action.run(async () => {
      const [p, d] = await Promise.all([
        api.post<Preview>(`/projects/${project.id}/sources/preview`, body),
        api.post<DryRun>(`/projects/${project.id}/dry-run`, body),
      ]);
      setPreview(p);
      setDry(d);
    });
  };
  return (
    <section className="scope-preview" aria-labelledby="scope-preview-title">
      <h3 id="scope-preview-title">Try patterns before saving</h3>
      <div className="grid-2">
        {PATTERN_KEYS.map((k) => (
          <TextArea
            key={k}
            label={k}
            rows={2}
            placeholder="/news/*"
            value={draft[k]}
            onChange={(e) => setDraft({ ...draft, [k]: e.target.value })}
          />
        ))}
      </div>
      <button type="button" onClick={() => void run()} disabled={action.busy}>
        {action.busy ? 'Previewing…' : 'Preview and dry run'}
      </button>
      <ErrorNote error={action.error} />
      {preview && dry && (
        <div className="preview-results" role="status">
          <p>
            The project knows {dry.known} URLs ({preview.sitemapUrls} from its sitemaps)
            {dry.known === 0 && ': counts fill in once a run has found the site’s pages'}.
          </p>
          <div className="table-wrap">
            <table>
              <caption>Patterns and what they match</caption>
              <thead>
                <tr>
                  <th scope="col">Pattern</th>
                  <th scope="col">Applies to</th>
                  <th scope="col">URLs</th>
                </tr>
              </thead>
              <tbody>
                {PATTERN_KEYS.flatMap((k) =>
                  preview[k].map((p) => (
                    <tr key={k + p.pattern}>
                      <td>
                        <code>{p.pattern}</code>
                      </td>
                      <td>{k}</td>
                      <td>
                        {p.count}
                        <Urls set={p} />
                      </td>
                    </tr>
                  )),
                )}
              </tbody>
            </table>
          </div>
          <h4>Dry run</h4>
          <ul>
            {Object.entries(dry.verdicts).map(([verdict, set]) => (
              <li key={verdict}>
                {verdict.replace('_', ' ')}: {set.count}
              </li>
            ))}
          </ul>
          <p>
            Against the saved scope the draft drops {dry.dropped.count} and adds {dry.added.count}.
          </p>
          <Urls set={dry.dropped} />
          {preview.creditsUsed > 0 && <p className="muted">Reading feeds cost {preview.creditsUsed} credits.</p>}
        </div>
      )}
    </section>
  );
};
