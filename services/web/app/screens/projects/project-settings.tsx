import { useState, type FormEvent } from 'react';
import { api } from '../../api';
import { navigate } from '../../router';
import { canAdmin, canWrite, useSignedIn } from '../../session';
import type { Project } from '../../types';
import { Field, Select } from '../../ui/fields';
import { ErrorNote, useAction } from '../../ui/states';
import { ConfigEditor, type ConfigDraft } from './config-editor';
import { ProjectFrame } from './project-frame';
import { ScopePreview } from './scope-preview';

export const SCHEDULES = [
  ['manual', 'Manual: only when you run it'],
  ['daily', 'Daily'],
  ['weekly', 'Weekly'],
] as const;

/** Name, schedule, retention and the config, saved in one PATCH; the API refuses unknown keys by name. */
export const ProjectForm = ({
  project,
  onSaved,
  submitLabel = 'Save',
}: {
  project: Project;
  onSaved(p: Project): void;
  submitLabel?: string;
}) => {
  const session = useSignedIn();
  const [name, setName] = useState(project.name);
  const [schedule, setSchedule] = useState<string>(project.schedule);
  const [retention, setRetention] = useState(project.retention);
  const [draft, setDraft] = useState<ConfigDraft>({ patch: {}, invalid: null });
  const [savedNote, setSavedNote] = useState<string | null>(null);
  const action = useAction();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSavedNote(null);
    const body = {
      ...(name !== project.name ? { name } : {}),
      ...(schedule !== project.schedule ? { schedule } : {}),
      ...(retention !== project.retention ? { retention } : {}),
      ...(Object.keys(draft.patch).length ? { config: draft.patch } : {}),
    };
    const p = await action.run(() => api.patch<Project>(`/projects/${project.id}`, body));
    if (p) {
      setSavedNote(`Saved (config version ${p.config.version}).`);
      onSaved(p);
    }
  };
  return (
    <form onSubmit={submit} className="project-form">
      <fieldset className="group">
        <legend>Project</legend>
        <Field label="Name" value={name} onChange={(e) => setName(e.target.value)} required />
        <Select
          label="Schedule"
          options={SCHEDULES}
          value={schedule}
          onChange={(e) => setSchedule(e.target.value)}
          hint="Scheduled runs start by themselves; you can always run now."
        />
        <Field
          label="Retention"
          value={retention}
          onChange={(e) => setRetention(e.target.value)}
          pattern="[1-9][0-9]{0,3}d|forever"
          hint='How long run data is kept: a number of days such as "30d", or "forever". The latest full run is always kept.'
        />
      </fieldset>
      <ConfigEditor key={project.config.version} project={project} onDraft={setDraft} />
      {draft.invalid && <p className="error-text">{draft.invalid}</p>}
      <ErrorNote error={action.error} />
      {savedNote && <p role="status">{savedNote}</p>}
      <button type="submit" className="primary" disabled={action.busy || draft.invalid !== null || !canWrite(session)}>
        {submitLabel}
      </button>
    </form>
  );
};

export const ProjectSettings = ({ id }: { id: string }) => {
  const session = useSignedIn();
  const remove = useAction();
  const deleteProject = async () => {
    if (!window.confirm('Delete this project with its runs and pages?')) return;
    const deleted = await remove.run(async () => {
      await api.delete(`/projects/${id}`);
      return true;
    });
    if (deleted) navigate('/');
  };
  return (
    <ProjectFrame id={id} title="Settings">
      {(project, reload) => (
        <>
          <ScopePreview project={project} />
          <h2>Settings</h2>
          <ProjectForm project={project} onSaved={() => void reload()} />
          {canAdmin(session) && (
            <section className="danger" aria-labelledby="danger-title">
              <h2 id="danger-title">Delete the project</h2>
              <button type="button" onClick={() => void deleteProject()} disabled={remove.busy}>
                Delete project
              </button>
              <ErrorNote error={remove.error} />
            </section>
          )}
        </>
      )}
    </ProjectFrame>
  );
};
