/**
 * The app's door for dataset bundles (issue 29, docs/datasets.md "Bundles"): the export panel's
 * "Dataset bundle" writes the rows matching the filters (or a saved set) as one .zip or a folder —
 * optionally dehydrated, with today's price of re-collecting it — as an export job with progress
 * and Cancel; "Import a bundle…" sends a bundle .zip chosen on this computer (send-bundle.tsx: the
 * app never names a path) and merges it into this archive (nothing is paid), listing the
 * annotations that conflict with this archive's (left as they are);
 * "Rehydrate a bundle…" re-collects a dehydrated one (RehydrateBundle.tsx).
 */
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { ExportJob } from '../../../../shared/contract';
import type { DatasetTarget, ImportReport } from '../../../../shared/contract-datasets';
import type { LibraryQuery } from '../../../../shared/query';
import { api, errorText } from '../../lib/api';
import { fmtExact } from '../../lib/format';
import { useLoupe } from '../../queries/hooks';
import { useExportWrites } from '../../queries/calls';
import { invalidate } from '../../queries/keys';
import { useUi } from '../../stores/ui';
import { ErrorText } from '../../components/cells';
import { RehydrateBundle } from './RehydrateBundle';
import { BundlePicker, FOLDER_NOTE, sendBundle } from './send-bundle';

export function BundleExport({ query }: { query: LibraryQuery }) {
  const sets = useLoupe('library.resultSets', {});
  const [set, setSet] = useState('');
  const [zip, setZip] = useState(true);
  const [dehydrated, setDehydrated] = useState(false);
  const [name, setName] = useState('');
  const [jobId, setJobId] = useState<string | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const live = useUi((s) => (jobId ? s.exports[jobId] : undefined));
  const polled = useLoupe(
    'export.get',
    { exportId: jobId ?? '' },
    { enabled: !!jobId, refetchInterval: live?.status === 'running' || !live ? 1000 : false, staleTime: 0 },
  );
  const job: ExportJob | undefined = live && live.status !== 'running' ? live : (polled.data ?? live ?? undefined);
  const exports = useExportWrites();
  const target: DatasetTarget = set ? { set } : { query };
  const start = async () => {
    setErr(null);
    try {
      const j = await api.call('datasets.bundleJob', { target, zip, dehydrated, ...(name.trim() ? { name: name.trim() } : {}) });
      useUi.getState().putExport(j);
      setJobId(j.exportId);
    } catch (e) {
      setErr(errorText(e));
    }
  };
  return (
    <div data-testid="bundle-export">
      <div className="muted small">
        Items (CSV, Parquet, JSON Lines), their metric history, annotations with authors, the answers that delivered them, and manifest.json
        with every file’s SHA-256 and one root hash to cite. Free (local)
        {dehydrated ? '; a dehydrated bundle asks the service for a free price quote' : ''}.
      </div>
      <div className="row gap wrap">
        <label className="field inline">
          <span className="field-label">Of</span>
          <select value={set} onChange={(e) => setSet(e.target.value)} data-testid="bundle-target">
            <option value="">the rows matching the current filters</option>
            {(sets.data ?? []).map((s) => (
              <option key={s.id} value={s.id}>
                saved set “{s.name}”
              </option>
            ))}
          </select>
        </label>
        <label className="check" title="One .zip file (Zip64 when large); untick for a folder">
          <input type="checkbox" checked={zip} onChange={(e) => setZip(e.target.checked)} data-testid="bundle-zip" /> One .zip
        </label>
        <label
          className="check"
          title="Item keys and the calls that collected them, with what re-collecting them would cost today — for sharing under platforms’ terms"
        >
          <input type="checkbox" checked={dehydrated} onChange={(e) => setDehydrated(e.target.checked)} data-testid="bundle-dehydrated" />{' '}
          Dehydrated (keys and calls only)
        </label>
        <label className="field inline">
          <span className="field-label">Name</span>
          <input
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder={zip ? 'loupe-bundle.zip' : 'loupe-bundle'}
            data-testid="bundle-name"
          />
        </label>
        <button className="btn primary" onClick={() => void start()} disabled={job?.status === 'running'} data-testid="bundle-start">
          Write bundle
        </button>
      </div>
      <ErrorText text={err} testid="bundle-error" />
      {job ? <BundleJobStatus job={job} onCancel={() => void exports.cancel(job.exportId)} /> : null}
      <BundleImport />
      <RehydrateBundle />
    </div>
  );
}

function BundleJobStatus({ job, onCancel }: { job: ExportJob; onCancel: () => void }) {
  return (
    <div className="row gap wrap" role="status" data-testid="bundle-status" data-status={job.status}>
      <span className={`status s-${job.status}`}>{job.status === 'running' ? 'writing' : job.status}</span>
      {job.status === 'running' && job.total ? (
        <progress max={job.total} value={Math.min(job.rows, job.total)} aria-label="Bundle progress" />
      ) : null}
      {job.status === 'running' ? (
        <button className="btn small" onClick={onCancel} data-testid="bundle-cancel">
          Cancel
        </button>
      ) : null}
      {job.status === 'cancelled' ? <span className="small">Cancelled: nothing of the bundle was kept.</span> : null}
      {job.status === 'done' && job.downloadUrl ? (
        <a className="btn small primary" href={job.downloadUrl} download data-testid="bundle-download">
          Download
        </a>
      ) : null}
      {job.status === 'done' && job.path ? (
        <span className="mono small" data-testid="bundle-path" title="Saved here">
          {job.path}
        </span>
      ) : null}
      {job.status === 'done' && job.summary ? (
        <span className="small" data-testid="bundle-summary">
          {job.summary}
        </span>
      ) : null}
      {job.error ? <span className="errtext">{job.error}</span> : null}
    </div>
  );
}

/** Import: a bundle .zip chosen on this computer, sent, merged after it verifies; conflicts listed. */
function BundleImport() {
  const qc = useQueryClient();
  const [busy, setBusy] = useState<string | null>(null);
  const [report, setReport] = useState<ImportReport | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const go = async (file: File) => {
    setErr(null);
    setReport(null);
    setBusy('Sending…');
    try {
      const bundle = await sendBundle(file, (n) => setBusy(`Sending… ${Math.floor((100 * n) / Math.max(1, file.size))} %`));
      setBusy('Importing…');
      setReport(await api.call('datasets.importBundle', { bundle }));
      invalidate(qc, 'library', 'datasets');
    } catch (e) {
      setErr(errorText(e));
    } finally {
      setBusy(null);
    }
  };
  return (
    <div className="row gap wrap">
      <BundlePicker
        onFile={(f) => void go(f)}
        disabled={busy !== null}
        testid="bundle-import"
        title={`Verify a bundle and merge it into this archive: each item and answer is kept once; nothing is paid. ${FOLDER_NOTE}`}
      >
        {busy ?? 'Import a bundle…'}
      </BundlePicker>
      <ErrorText text={err} testid="bundle-import-error" />
      {report ? (
        <div className="small" role="status" data-testid="bundle-import-report">
          Imported bundle {report.root.slice(0, 16)}…: {fmtExact(report.calls.stored)} answer(s) stored,{' '}
          {fmtExact(report.calls.alreadyHeld)} already held; items {fmtExact(report.items.before)} → {fmtExact(report.items.after)} (
          {fmtExact(report.items.inBundle)} in the bundle); {fmtExact(report.readings)} earlier reading(s); {fmtExact(report.rechecks)}{' '}
          item(s)&apos; re-check marks restored; {fmtExact(report.annotations.added)} annotation(s) added.
          {report.conflicts.length ? (
            <>
              {' '}
              {report.conflicts.length} conflict{report.conflicts.length === 1 ? '' : 's'}, left as this archive has them:
              <ul data-testid="bundle-conflicts">
                {report.conflicts.map((c) => (
                  <li key={c}>{c}</li>
                ))}
              </ul>
            </>
          ) : (
            ' No conflicts.'
          )}
        </div>
      ) : null}
    </div>
  );
}
