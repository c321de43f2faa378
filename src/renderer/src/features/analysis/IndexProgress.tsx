/**
 * How far the analysis index is (analysis.indexStatus, issue 30), while it is not complete: a
 * build of a large archive runs in the background for minutes, and meanwhile every table and
 * chart is still exact — counted from the posts themselves, only slower. Asked again every few
 * seconds until the index is complete; nothing is shown once it is.
 */
import { fmtExact } from '../../lib/format';
import { useLoupe } from '../../queries/hooks';

const POLL_MS = 3_000;

export function IndexProgress() {
  const s = useLoupe(
    'analysis.indexStatus',
    {},
    { staleTime: 0, refetchInterval: (q) => (q.state.data?.current === false ? POLL_MS : false) },
  );
  const d = s.data;
  if (!d || d.current || d.waiting === 0) return null;
  const done = Math.max(0, d.items - d.waiting);
  const pct = d.items > 0 ? Math.floor((100 * done) / d.items) : 0;
  return (
    <p className="muted small" role="status" data-testid="analysis-index-progress">
      {d.building
        ? `Preparing the analysis index: ${pct} % (${fmtExact(done)} of ${fmtExact(d.items)} items).`
        : `The analysis index is not ready (${fmtExact(d.waiting)} of ${fmtExact(d.items)} items still to take in).`}{' '}
      Until it is, every table and chart here is still exact — counted from the items themselves, which takes longer.
    </p>
  );
}
