// A first project from a URL, in four steps: the site (the project is created, manual, nothing
// fetched), its sources (sitemaps found, patterns tried, a dry run), the configuration by its
// groups with schedule and retention, then "Run now".
import { useState, type FormEvent } from 'react';
import { api } from '../../api';
import { navigate, useTitle } from '../../router';
import type { Project, Run } from '../../types';
import { Field } from '../../ui/fields';
import { num, shortUrl } from '../../ui/format';
import { usePoll } from '../../ui/load';
import { ErrorNote, Loading, useAction } from '../../ui/states';
import { ProjectForm } from './project-settings';
import { ScopePreview } from './scope-preview';

interface Discovery {
  discovery: {
    files: { file: string; urls: number; source: string; section: string | null }[];
    feeds: { url: string }[];
    totals: { urls: number; files: number; blocked: number };
    robots: { found: boolean; status: number | null; sitemaps: string[] } | null;
  } | null;
  job: { id: string; status: string } | null;
}

const STEPS = ['Site', 'Sources', 'Settings', 'Run'] as const;

/** Reads the site's sitemaps now (a discovery snapshot, billed as a map) and lists the files found. */
const SitemapsFound = ({ projectId }: { projectId: string }) => {
  const [state, setState] = useState<Discovery | null>(null);
  const action = useAction();
  usePoll(Boolean(state?.job), 1000, async () => {
    const d = await api.get<Discovery>(`/projects/${projectId}/discovery`).catch(() => null);
    if (d) setState(d);
  });
  const find = async () => {
    await action.run(async () => {
      await api.post(`/projects/${projectId}/discovery`);
      setState(await api.get<Discovery>(`/projects/${projectId}/discovery`));
    });
  };
  const d = state?.discovery;
  return (
    <section aria-labelledby="sitemaps-title">
      <h3 id="sitemaps-title">Sitemaps</h3>
      {!state && (
        <button type="button" onClick={() => void find()} disabled={action.busy}>
          Find sitemaps
        </button>
      )}
      <ErrorNote error={action.error} />
      {state && state.job && <Loading what="Reading robots.txt and the sitemaps" />}
      {d && !state?.job && (
        <div role="status">
          <p>
            {d.robots?.found ? 'robots.txt found' : 'No robots.txt'}; {num(d.totals.files)} sitemap files listing{' '}
            {num(d.totals.urls)} URLs{d.totals.blocked ? `, ${d.totals.blocked} blocked by robots.txt` : ''}.
          </p>
          {d.files.length > 0 && (
            <ul>
              {d.files.map((f) => (
                <li key={f.file}>
                  {shortUrl(f.file)}: {num(f.urls)} URLs ({f.source})
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </section>
  );
};

export const NewProject = () => {
  useTitle('New project');
  const [step, setStep] = useState(0);
  const [seed, setSeed] = useState('');
  const [name, setName] = useState('');
  const [project, setProject] = useState<Project | null>(null);
  const create = useAction();
  const start = useAction();

  const createProject = async (e: FormEvent) => {
    e.preventDefault();
    const body = { seed: seed.trim(), ...(name.trim() ? { name: name.trim() } : {}) };
    const p = await create.run(() => api.post<Project>('/projects', body));
    if (p) {
      setProject(p);
      setStep(1);
    }
  };
  const runNow = async () => {
    if (!project) return;
    const run = await start.run(() => api.post<Run>(`/projects/${project.id}/runs`, { trigger: 'manual' }));
    if (run) navigate(`/projects/${project.id}`);
  };

  return (
    <>
      <h1>New project</h1>
      <ol className="steps" aria-label="Steps">
        {STEPS.map((s, i) => (
          <li key={s} aria-current={i === step ? 'step' : undefined} className={i < step ? 'done' : undefined}>
            {s}
          </li>
        ))}
      </ol>

      {step === 0 && (
        <form onSubmit={createProject}>
          <Field
            label="Site address"
            type="url"
            required
            placeholder="https://example.com/"
            value={seed}
            onChange={(e) => setSeed(e.target.value)}
            hint="The page a run starts from; the run follows its links and reads its sitemaps."
          />
          <Field
            label="Name (optional)"
            value={name}
            onChange={(e) => setName(e.target.value)}
            hint="The host by default."
          />
          <ErrorNote error={create.error} />
          <button type="submit" className="primary" disabled={create.busy}>
            Continue
          </button>
          <p className="muted">Nothing is fetched yet: the project starts manual, and you choose its settings next.</p>
        </form>
      )}

      {step === 1 && project && (
        <>
          <SitemapsFound projectId={project.id} />
          <ScopePreview project={project} />
          <div className="actions">
            <button type="button" className="primary" onClick={() => setStep(2)}>
              Continue to settings
            </button>
          </div>
        </>
      )}

      {step === 2 && project && (
        <ProjectForm
          project={project}
          submitLabel="Save and continue"
          onSaved={(p) => {
            setProject(p);
            setStep(3);
          }}
        />
      )}

      {step === 3 && project && (
        <section aria-labelledby="run-title">
          <h2 id="run-title">Ready</h2>
          <p>
            <strong>{project.name}</strong> runs{' '}
            {project.schedule === 'manual' ? 'when you start it' : project.schedule}, and keeps runs{' '}
            {project.retention === 'forever' ? 'forever' : `for ${project.retention}`}.
          </p>
          <div className="actions">
            <button type="button" className="primary" onClick={() => void runNow()} disabled={start.busy}>
              Run now
            </button>
            <button type="button" onClick={() => navigate(`/projects/${project.id}`)}>
              Open the project
            </button>
          </div>
          <ErrorNote error={start.error} />
        </section>
      )}
    </>
  );
};
