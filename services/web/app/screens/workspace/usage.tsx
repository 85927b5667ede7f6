// Credits and usage: GET /me/usage as a chart of pages fetched and credits used per day over the
// last 30 days, this month's totals beside the credits left, and the same figures as a table
// (what the chart shows, readable without it).
import { useTitle } from '../../router';
import { num } from '../../ui/format';
import { useLoad } from '../../ui/load';
import { ErrorNote, Loading } from '../../ui/states';

interface Counters {
  pages: number;
  browserPages: number;
  blockedPages: number;
  pageCredits: number;
  creditsUsed: number;
  creditsGranted: number;
  usedByReason: Record<string, number>;
}
interface Usage {
  plan: string;
  days: (Counters & { day: string })[];
  month: Counters & { start: string };
  credits: { granted: number; used: number; remaining: number };
}

const W = 600;
const H = 180;
const PAD = 24;

/** Two bars a day: pages fetched and credits used, each scaled to its own largest day. */
const Chart = ({ days }: { days: Usage['days'] }) => {
  const maxPages = Math.max(1, ...days.map((d) => d.pages));
  const maxCredits = Math.max(1, ...days.map((d) => d.creditsUsed));
  const slot = (W - PAD) / days.length;
  const bar = Math.max(2, slot / 2 - 1);
  const height = (v: number, max: number) => ((H - PAD) * v) / max;
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby="usage-chart-title">
        <title id="usage-chart-title">
          Pages fetched and credits used per day, {days[0]?.day} to {days.at(-1)?.day}
        </title>
        {days.map((d, i) => {
          const x = PAD / 2 + i * slot;
          const p = height(d.pages, maxPages);
          const c = height(d.creditsUsed, maxCredits);
          return (
            <g key={d.day}>
              <rect className="bar-pages" x={x} y={H - PAD / 2 - p} width={bar} height={p}>
                <title>{`${d.day}: ${d.pages} pages`}</title>
              </rect>
              <rect className="bar-credits" x={x + bar + 1} y={H - PAD / 2 - c} width={bar} height={c}>
                <title>{`${d.day}: ${d.creditsUsed} credits`}</title>
              </rect>
            </g>
          );
        })}
      </svg>
      <figcaption className="legend">
        <span>
          <span className="swatch bar-swatch-pages" aria-hidden="true" />
          pages fetched (tallest day {num(maxPages)})
        </span>
        <span>
          <span className="swatch bar-swatch-credits" aria-hidden="true" />
          credits used (tallest day {num(maxCredits)})
        </span>
      </figcaption>
    </figure>
  );
};

export const UsageScreen = () => {
  useTitle('Usage');
  const usage = useLoad<Usage>('/me/usage');
  if (usage.error) return <ErrorNote error={usage.error} />;
  if (!usage.data) return <Loading />;
  const { month, credits, days, plan } = usage.data;
  return (
    <>
      <h1>Credits and usage</h1>
      <dl className="figures">
        <div>
          <dt>Plan</dt>
          <dd>{plan}</dd>
        </div>
        <div>
          <dt>Credits left</dt>
          <dd>{num(credits.remaining)}</dd>
        </div>
        <div>
          <dt>Credits used</dt>
          <dd>{num(credits.used)}</dd>
        </div>
        <div>
          <dt>Credits granted</dt>
          <dd>{num(credits.granted)}</dd>
        </div>
      </dl>
      <h2>This month (since {month.start})</h2>
      <dl className="figures month">
        <div>
          <dt>Pages fetched</dt>
          <dd>{num(month.pages)}</dd>
        </div>
        <div>
          <dt>by the browser</dt>
          <dd>{num(month.browserPages)}</dd>
        </div>
        <div>
          <dt>refused by the site</dt>
          <dd>{num(month.blockedPages)}</dd>
        </div>
        <div>
          <dt>Credits used</dt>
          <dd>{num(month.creditsUsed)}</dd>
        </div>
        {Object.entries(month.usedByReason).map(([reason, n]) => (
          <div key={reason}>
            <dt>on {reason}</dt>
            <dd>{num(n)}</dd>
          </div>
        ))}
      </dl>
      <h2>The last 30 days</h2>
      <Chart days={days} />
      <details>
        <summary>The figures by day</summary>
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col">Pages</th>
                <th scope="col">Browser</th>
                <th scope="col">Refused</th>
                <th scope="col">Credits used</th>
                <th scope="col">Credits granted</th>
              </tr>
            </thead>
            <tbody>
              {[...days].reverse().map((d) => (
                <tr key={d.day}>
                  <th scope="row">{d.day}</th>
                  <td>{num(d.pages)}</td>
                  <td>{num(d.browserPages)}</td>
                  <td>{num(d.blockedPages)}</td>
                  <td>{num(d.creditsUsed)}</td>
                  <td>{num(d.creditsGranted)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </>
  );
};
