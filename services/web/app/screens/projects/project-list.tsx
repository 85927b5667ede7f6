import { Link, useTitle } from '../../router';
import type { Project } from '../../types';
import { usePaged } from '../../ui/load';
import { PagedView } from '../../ui/widgets';

export const ProjectList = () => {
  useTitle('Projects');
  const list = usePaged<Project>('/projects?limit=25');
  return (
    <>
      <div className="page-head">
        <h1>Projects</h1>
        <Link to="/projects/new" className="button primary">
          New project
        </Link>
      </div>
      <PagedView
        list={list}
        empty={
          <>
            No projects yet. <Link to="/projects/new">Watch a site</Link>: give its address, and every run records what
            changed.
          </>
        }
      >
        {(rows) => (
          <ul className="cards">
            {rows.map((p) => (
              <li key={p.id}>
                <Link to={`/projects/${p.id}`}>
                  <strong>{p.name}</strong>
                </Link>
                <span className="muted">{p.seed}</span>
                <span>
                  {p.schedule} · kept {p.retention}
                </span>
              </li>
            ))}
          </ul>
        )}
      </PagedView>
    </>
  );
};
