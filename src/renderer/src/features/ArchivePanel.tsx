/**
 * Settings → Archive (issue 24 #10): "Make a copy" — one file with everything the archive holds
 * (items, tags, notes, label overrides, saved sets, watchlists, the ledger), consistent while Loupe
 * keeps working; how to share or back up an archive. A progress bar while it runs; then what the
 * copy holds, where it is and, in the browser, a download.
 */
import { useEffect, useState } from 'react';
import type { SnapshotJob } from '../../../shared/contract';
import { errorText, useLoupeEvent } from '../lib/api';
import { fmtExact } from '../lib/format';
import { archiveWrites } from '../queries/archive';

export function ArchivePanel() {
  const [job, setJob] = useState<SnapshotJob | null>(null);
  const [err, setErr] = useState<string | null>(null);
  useLoupeEvent((e) => {
    if (e.type === 'snapshot-progress' && job && e.job.snapshotId === job.snapshotId) setJob(e.job);
  });
  // the events carry the progress; a look now and then in case one was missed
  const running = job?.status === 'running' ? job.snapshotId : null;
  useEffect(() => {
    if (!running) return;
    const t = setInterval(() => {
      void archiveWrites
        .get(running)
        .then(
          (j) =>
            j &&
            setJob((cur) => (cur && cur.snapshotId === j.snapshotId && (j.status !== 'running' || j.pagesDone >= cur.pagesDone) ? j : cur)),
        );
    }, 1_000);
    return () => clearInterval(t);
  }, [running]);
  const start = async () => {
    setErr(null);
    try {
      setJob(await archiveWrites.snapshot());
    } catch (e) {
      const text = errorText(e);
      if (!/no file was chosen/i.test(text)) setErr(text);
    }
  };
  const pct = job && job.pages > 0 ? Math.floor((job.pagesDone / job.pages) * 100) : 0;
  return (
    <section className="panel" data-testid="archive-panel" aria-labelledby="archive-panel-title">
      <h2 id="archive-panel-title" className="h3">
        Archive
      </h2>
      <p className="muted small">
        To share or back up your archive, make a copy here (or run <span className="mono">loupe archive snapshot FILE</span>): one file with
        everything — items, tags, notes, label overrides, saved sets, watchlists and the ledger — consistent even while Loupe keeps working.
        Copying loupe.db by hand while Loupe runs misses your latest work (it is still in loupe.db-wal).
      </p>
      <div className="row gap wrap">
        <button
          type="button"
          className="btn small"
          disabled={job?.status === 'running'}
          onClick={() => void start()}
          data-testid="archive-snapshot"
        >
          Make a copy
        </button>
        {job?.status === 'running' ? (
          <button
            type="button"
            className="btn small ghost"
            onClick={() => void archiveWrites.cancel(job.snapshotId).then((j) => j && setJob(j))}
            data-testid="archive-snapshot-cancel"
          >
            Cancel
          </button>
        ) : null}
      </div>
      {err ? <p className="errtext">{err}</p> : null}
      {job ? (
        <div className="col gap" data-testid="archive-snapshot-status" data-status={job.status}>
          {job.status === 'running' ? (
            <>
              <progress
                max={Math.max(1, job.pages)}
                value={job.pagesDone}
                aria-label="Copying the archive"
                data-testid="archive-snapshot-progress"
              />
              <span className="small num">
                Copying… {pct} % ({fmtExact(job.pagesDone)} of {fmtExact(job.pages)} pages)
              </span>
            </>
          ) : null}
          {job.status === 'done' ? (
            <>
              <span className="small" data-testid="archive-snapshot-summary">
                {job.summary}
              </span>
              {job.path ? (
                <span className="mono small" data-testid="archive-snapshot-path" title="Saved here">
                  {job.path}
                </span>
              ) : null}
              {job.downloadUrl ? (
                <a className="btn small primary" href={job.downloadUrl} download data-testid="archive-snapshot-download">
                  Download the copy
                </a>
              ) : null}
            </>
          ) : null}
          {job.status === 'cancelled' ? <span className="small">Cancelled: no copy was made.</span> : null}
          {job.error ? <span className="errtext">{job.error}</span> : null}
        </div>
      ) : null}
    </section>
  );
}
