import type { ReactNode } from 'react';
import { Link, useLocation, useTitle } from '../../router';
import type { Project } from '../../types';
import { useLoad } from '../../ui/load';
import { ErrorNote, Loading } from '../../ui/states';

const TABS = [
  ['', 'Overview'],
  ['/changes', 'Changes'],
  ['/pages', 'Pages'],
  ['/links', 'Links and discovery'],
  ['/exports', 'Exports'],
  ['/webhooks', 'Webhooks'],
  ['/settings', 'Settings'],
] as const;

/** Every project screen: the project's name, its tabs, then the screen with the project loaded. */
export const ProjectFrame = ({
  id,
  title,
  children,
}: {
  id: string;
  title: string;
  children: (project: Project, reload: () => Promise<void>) => ReactNode;
}) => {
  const { path } = useLocation();
  const project = useLoad<Project>(`/projects/${id}`);
  useTitle(project.data ? `${title} · ${project.data.name}` : title);
  if (project.error) return <ErrorNote error={project.error} />;
  if (!project.data) return <Loading />;
  const base = `/projects/${id}`;
  return (
    <>
      <div className="page-head">
        <div>
          <p className="crumbs">
            <Link to="/">Projects</Link> /
          </p>
          <h1>{project.data.name}</h1>
          <p className="muted">
            <a href={project.data.seed} rel="noopener noreferrer" target="_blank">
              {project.data.seed}
            </a>{' '}
            · {project.data.schedule} · kept {project.data.retention}
          </p>
        </div>
      </div>
      <nav aria-label="Project" className="tabs">
        <ul>
          {TABS.map(([suffix, label]) => (
            <li key={suffix}>
              <Link to={base + suffix} aria-current={path === base + suffix ? 'page' : undefined}>
                {label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      {children(project.data, project.reload)}
    </>
  );
};
