// Exports as downloads: each dataset of GET /v1/exports in the formats it offers, streamed by
// the API through the app's proxy (the browser saves the file).
import { useState } from 'react';
import { withQuery } from '../../api';
import { useLoad } from '../../ui/load';
import { ErrorNote, Loading } from '../../ui/states';
import { ProjectFrame } from './project-frame';

interface Dataset {
  dataset: string;
  formats: string[];
  defaultFormat: string;
  rows: string;
}

const DatasetRow = ({ id, d }: { id: string; d: Dataset }) => {
  const [format, setFormat] = useState(d.defaultFormat);
  const href = withQuery(`/v1/projects/${id}/export`, { dataset: d.dataset, format });
  return (
    <tr>
      <th scope="row">{d.dataset}</th>
      <td>{d.rows}</td>
      <td>
        <label>
          <span className="visually-hidden">Format of {d.dataset}</span>
          <select value={format} onChange={(e) => setFormat(e.target.value)}>
            {d.formats.map((f) => (
              <option key={f}>{f}</option>
            ))}
          </select>
        </label>
      </td>
      <td>
        <a className="button" href={href} download>
          Download {d.dataset}
        </a>
      </td>
    </tr>
  );
};

export const ExportsScreen = ({ id }: { id: string }) => {
  const catalog = useLoad<{ data: Dataset[] }>('/exports');
  return (
    <ProjectFrame id={id} title="Exports">
      {() => (
        <>
          <h2>Exports of the latest finished run</h2>
          {catalog.error && <ErrorNote error={catalog.error} />}
          {!catalog.data ? (
            <Loading />
          ) : (
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Dataset</th>
                    <th scope="col">Rows</th>
                    <th scope="col">Format</th>
                    <th scope="col">
                      <span className="visually-hidden">Download</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {catalog.data.data.map((d) => (
                    <DatasetRow key={d.dataset} id={id} d={d} />
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </ProjectFrame>
  );
};
