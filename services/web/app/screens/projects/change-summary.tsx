import { Link } from '../../router';
import type { ChangeRecord } from '../../types';
import { pct } from '../../ui/format';

const COUNT_LABELS: [string, string][] = [
  ['added', 'added'],
  ['removed', 'removed'],
  ['modified', 'modified'],
  ['same', 'same'],
  ['withheld', 'withheld'],
  ['unverified', 'unverified'],
  ['skipped', 'skipped'],
  ['fields', 'fields changed'],
  ['selectorBreaks', 'selector breaks'],
  ['volatileBlocks', 'noise blocks set aside'],
];

/** A change record at a glance: its counts, whether it is a verdict on the site, and the digest. */
export const ChangeSummary = ({ projectId, record }: { projectId: string; record: ChangeRecord }) => {
  const toReview = record.entries.filter((e) => !e.reviewed && e.kind !== 'same').length;
  return (
    <section className="change-summary" aria-label="Latest change record">
      <dl className="counts">
        {COUNT_LABELS.map(([key, label]) => (
          <div key={key} className={`count count-${key}`}>
            <dt>{label}</dt>
            <dd>{record.counts[key] ?? 0}</dd>
          </div>
        ))}
      </dl>
      <p className={record.coverage.verdict ? 'coverage ok' : 'coverage warn'}>
        {record.baseline === null
          ? 'First run: nothing to compare against yet.'
          : record.coverage.verdict
            ? `A verdict on the site: the run read ${pct(record.coverage.share)} of the pages the run before read.`
            : `Not a verdict on the site: ${record.coverage.reason ?? 'the run read too little'}; removals are not called.`}
      </p>
      {record.digest && (
        <div className="digest">
          <h3>Digest{record.digest.significant ? ' (significant)' : ''}</h3>
          <p>{record.digest.summary}</p>
          <ul>
            {record.digest.points.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        </div>
      )}
      <p>
        <Link to={`/projects/${projectId}/changes?run=${record.runId}`} className="button">
          Review {toReview} {toReview === 1 ? 'entry' : 'entries'}
        </Link>
      </p>
    </section>
  );
};
