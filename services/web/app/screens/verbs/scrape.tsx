// A one-off scrape from the app: a URL in (POST /scrape), the verdict, the markdown and the
// screenshot out. A page slower than the wait answers 202; its job is read until it ends.
import { useState, type FormEvent } from 'react';
import { api } from '../../api';
import { useTitle } from '../../router';
import type { JobEnvelope, PageRow } from '../../types';
import { num } from '../../ui/format';
import { Field } from '../../ui/fields';
import { Markdown } from '../../ui/markdown';
import { Empty, ErrorNote, Loading, useAction } from '../../ui/states';
import { Badge } from '../../ui/widgets';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One page row as a person reads it: verdict and cost first, then the content. */
export const PageResult = ({ row, creditsUsed }: { row: PageRow; creditsUsed?: number }) => (
  <article aria-label="Result">
    <h2>{row.head?.title ?? row.url}</h2>
    <dl className="counts">
      <div className="count">
        <dt>verdict</dt>
        <dd>{row.verdict ? <Badge kind={row.verdict} /> : '—'}</dd>
      </div>
      <div className="count">
        <dt>code</dt>
        <dd>{row.errorCode ?? '—'}</dd>
      </div>
      <div className="count">
        <dt>status</dt>
        <dd>{row.httpStatus ?? '—'}</dd>
      </div>
      <div className="count">
        <dt>engine</dt>
        <dd>{row.method ?? '—'}</dd>
      </div>
      <div className="count">
        <dt>words</dt>
        <dd>{num(row.words)}</dd>
      </div>
      <div className="count">
        <dt>credits</dt>
        <dd>{num(creditsUsed ?? row.credits)}</dd>
      </div>
    </dl>
    {row.reason && <p>{row.reason}</p>}
    {row.warnings && row.warnings.length > 0 && <p className="muted">Warnings: {row.warnings.join('; ')}</p>}
    {row.screenshot && <img className="screenshot" alt={`Screenshot of ${row.url}`} src={row.screenshot} />}
    <h3>Markdown</h3>
    {row.markdown ? <Markdown text={row.markdown} /> : <Empty>No markdown: the page was not read.</Empty>}
  </article>
);

export const ScrapeScreen = () => {
  useTitle('Scrape');
  const [url, setUrl] = useState('');
  const [screenshot, setScreenshot] = useState(false);
  const [job, setJob] = useState<JobEnvelope | null>(null);
  const action = useAction();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setJob(null);
    await action.run(async () => {
      let env = await api.post<JobEnvelope>('/scrape', {
        url: url.trim(),
        formats: screenshot ? 'markdown,screenshot' : 'markdown',
      });
      while (env.status === 'queued' || env.status === 'running') {
        setJob(env);
        await sleep(1000);
        env = await api.get<JobEnvelope>(`/scrape/${env.id}`);
      }
      setJob(env);
    });
  };
  const row = job?.data[0];
  return (
    <>
      <h1>Scrape a page</h1>
      <p className="muted">
        One URL, read now: clean markdown, a verdict on how the fetch went and what it cost. Nothing is kept as a
        project.
      </p>
      <form onSubmit={submit}>
        <Field
          label="Page address"
          type="url"
          required
          placeholder="https://example.com/pricing"
          value={url}
          onChange={(e) => setUrl(e.target.value)}
        />
        <label className="check">
          <input type="checkbox" checked={screenshot} onChange={(e) => setScreenshot(e.target.checked)} /> Take a
          screenshot (the browser reads the page: 5 credits)
        </label>
        <div className="actions">
          <button type="submit" className="primary" disabled={action.busy}>
            Scrape
          </button>
        </div>
      </form>
      <ErrorNote error={action.error} />
      {action.busy && <Loading what="Reading the page" />}
      {row && row.status === 'done' && <PageResult row={row} creditsUsed={job?.creditsUsed} />}
    </>
  );
};
