// A project's webhook and chat channel: where they go, the signing secret (admins), health,
// a test message, rotation, and the project's delivery log.
import { useState, type FormEvent } from 'react';
import { api } from '../../api';
import { canAdmin, canWrite, useSignedIn } from '../../session';
import type { Project } from '../../types';
import { Field } from '../../ui/fields';
import { useLoad } from '../../ui/load';
import { ErrorNote, Loading, useAction } from '../../ui/states';
import { CopyButton } from '../../ui/widgets';
import { HealthLine, type Health } from '../webhooks/channels';
import { DeliveryLog } from '../webhooks/deliveries';
import { ProjectFrame } from './project-frame';

interface ProjectWebhooks {
  url: string | null;
  events: string[];
  secret?: string;
  secretHidden?: boolean;
  health: Health | null;
  chat: { service: string; url: string; health: Health | null } | null;
}

const Destinations = ({ project, onSaved }: { project: Project; onSaved(): void }) => {
  const output = project.config.output as { webhook_url: string | null; chat_url: string | null };
  const [webhook, setWebhook] = useState(output.webhook_url ?? '');
  const [chat, setChat] = useState(output.chat_url ?? '');
  const action = useAction();
  const save = async (e: FormEvent) => {
    e.preventDefault();
    const config = { webhook_url: webhook.trim() || null, chat_url: chat.trim() };
    if (await action.run(() => api.patch(`/projects/${project.id}`, { config }))) onSaved();
  };
  return (
    <form onSubmit={save} className="panel">
      <Field
        label="Webhook URL"
        type="url"
        value={webhook}
        onChange={(e) => setWebhook(e.target.value)}
        hint="Receives run.finished and page.changed (webhook_events in settings), signed with the secret below."
      />
      <Field
        label="Chat channel URL"
        type="text"
        value={chat}
        onChange={(e) => setChat(e.target.value)}
        hint="An incoming-webhook URL of a chat service; shown masked once saved; empty removes it."
      />
      <ErrorNote error={action.error} />
      <button type="submit" disabled={action.busy}>
        Save destinations
      </button>
    </form>
  );
};

export const ProjectWebhooksScreen = ({ id }: { id: string }) => {
  const session = useSignedIn();
  const hooks = useLoad<ProjectWebhooks>(`/projects/${id}/webhooks`);
  const action = useAction();
  const [note, setNote] = useState<string | null>(null);
  const test = async () => {
    if (await action.run(() => api.post(`/projects/${id}/webhooks/test`)))
      setNote('A test run.finished is on its way.');
  };
  const rotate = async () => {
    if (await action.run(() => api.post(`/projects/${id}/webhooks/secret`))) {
      setNote('The secret was rotated: the old one no longer signs.');
      await hooks.reload();
    }
  };
  return (
    <ProjectFrame id={id} title="Webhooks">
      {(project, reload) => (
        <>
          <h2>Where this project reports</h2>
          <Destinations
            key={project.config.version}
            project={project}
            onSaved={() => {
              void reload();
              void hooks.reload();
            }}
          />
          {hooks.error && <ErrorNote error={hooks.error} />}
          {!hooks.data ? (
            <Loading />
          ) : (
            <section className="panel" aria-label="Channels">
              <h3>Webhook</h3>
              {hooks.data.url ? (
                <>
                  <p>
                    {hooks.data.url} · {hooks.data.events.join(', ')}
                  </p>
                  {hooks.data.health && <HealthLine health={hooks.data.health} />}
                  {hooks.data.secret ? (
                    <p>
                      Signing secret: <code>{hooks.data.secret}</code>{' '}
                      <CopyButton text={hooks.data.secret} label="Copy secret" />
                    </p>
                  ) : (
                    <p className="muted">The signing secret is shown to admins.</p>
                  )}
                </>
              ) : (
                <p className="muted">No webhook.</p>
              )}
              <h3>Chat channel</h3>
              {hooks.data.chat ? (
                <p>
                  {hooks.data.chat.service}: {hooks.data.chat.url}{' '}
                  {hooks.data.chat.health && <HealthLine health={hooks.data.chat.health} />}
                </p>
              ) : (
                <p className="muted">No chat channel.</p>
              )}
              <div className="actions">
                <button type="button" onClick={() => void test()} disabled={action.busy || !canWrite(session)}>
                  Send a test message
                </button>
                {canAdmin(session) && (
                  <button type="button" onClick={() => void rotate()} disabled={action.busy}>
                    Rotate the secret
                  </button>
                )}
              </div>
              {note && <p role="status">{note}</p>}
              <ErrorNote error={action.error} />
            </section>
          )}
          <DeliveryLog projectId={id} />
        </>
      )}
    </ProjectFrame>
  );
};
