/** Export the current view: format, column picker, BOM, progress (export-progress events), cancel, link when done. */
import { useState } from 'react';
import type { ExportFormatName, ExportJob, ItemRefInput } from '../../../shared/contract';
import type { NetworkKindName } from '../../../shared/contract-network';
import { EXPORT_FORMAT_TRAITS } from '../../../shared/contract-constants';
import type { LibraryQuery } from '../../../shared/query';
import { errorText } from '../lib/api';
import { fmtExact } from '../lib/format';
import { useLoupe } from '../queries/hooks';
import { useExportWrites } from '../queries/calls';
import { useUi } from '../stores/ui';
import { ErrorText } from './cells';
import { NetworkKindSelect, PanelHead } from './Controls';
import { BundleExport } from '../features/datasets/BundlePanel';

export function ExportPanel({
  query,
  items,
  watchlistId,
  note,
  onClose,
}: {
  query?: LibraryQuery;
  items?: ItemRefInput[];
  watchlistId?: string;
  /** what is exported, in words (default: from the inputs) */ note?: string;
  onClose?: () => void;
}) {
  const cols = useLoupe('export.columns', {}, { staleTime: Infinity });
  const [choice, setFormat] = useState<ExportFormatName | 'bundle'>('csv');
  const format: ExportFormatName = choice === 'bundle' ? 'csv' : choice;
  const [network, setNetwork] = useState<NetworkKindName>('co-hashtag');
  const [pseudonymise, setPseudonymise] = useState(false);
  const { network: isNetwork, columns: hasColumns } = EXPORT_FORMAT_TRAITS[format];
  const [bom, setBom] = useState(true);
  const [picked, setPicked] = useState<Set<string> | null>(null);
  const [fileName, setFileName] = useState('');
  const [jobId, setJobId] = useState<string | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const live = useUi((s) => (jobId ? s.exports[jobId] : undefined));
  const exports = useExportWrites();
  const polled = useLoupe(
    'export.get',
    { exportId: jobId ?? '' },
    { enabled: !!jobId, refetchInterval: live?.status === 'running' || !live ? 1000 : false, staleTime: 0 },
  );
  const job: ExportJob | null | undefined = pickNewest(live, polled.data ?? undefined);
  const all = cols.data ?? [];
  const chosen = picked ?? new Set(all);
  const start = async () => {
    setErr(null);
    try {
      const j = await exports.start({
        query: items ? undefined : watchlistId ? undefined : stripPaging(query),
        items,
        watchlistId,
        format,
        network: isNetwork ? network : undefined,
        pseudonymise,
        bom: format === 'csv' ? bom : false,
        columns: hasColumns && picked ? all.filter((c) => picked.has(c)) : undefined,
        fileName: fileName.trim() ? fileName.trim() : undefined,
      });
      setJobId(j.exportId);
    } catch (e) {
      setErr(errorText(e));
    }
  };
  const what = items ? `${items.length} selected rows` : watchlistId ? 'this watchlist’s items' : 'the rows matching the current filters';
  const head = <PanelHead title="Export" note={note ?? `${what} · free (local)`} onClose={onClose} closeLabel="Close export" />;
  if (choice === 'bundle' && query)
    return (
      <div className="panel export" data-testid="export-panel">
        {head}
        <FormatPicker value={choice} onChange={setFormat} bundle />
        <BundleExport query={stripPaging(query) ?? {}} />
      </div>
    );
  return (
    <div className="panel export" data-testid="export-panel">
      {head}
      <div className="row gap wrap">
        <FormatPicker value={choice} onChange={setFormat} bundle={!!query && !items && !watchlistId} />
        {isNetwork ? <NetworkKindSelect value={network} onChange={setNetwork} testid="export-network" /> : null}
        <label
          className="check"
          title="Author ids, handles, display names, mentions and the URLs and avatars holding them become keyed hashes, the same in every export of this data folder"
        >
          <input
            type="checkbox"
            checked={pseudonymise}
            onChange={(e) => setPseudonymise(e.target.checked)}
            data-testid="export-pseudonymise"
          />{' '}
          Pseudonymise accounts
        </label>
        {format === 'csv' ? (
          <label className="check" title="A byte-order mark lets spreadsheet apps read UTF-8 correctly">
            <input type="checkbox" checked={bom} onChange={(e) => setBom(e.target.checked)} data-testid="export-bom" /> BOM (for Excel)
          </label>
        ) : null}
        <label className="field inline">
          <span className="field-label">File name</span>
          <input
            value={fileName}
            onChange={(e) => setFileName(e.target.value)}
            placeholder={`loupe-export.${format}`}
            data-testid="export-filename"
          />
        </label>
        <button className="btn primary" onClick={() => void start()} disabled={job?.status === 'running'} data-testid="export-start">
          Export
        </button>
      </div>
      {hasColumns && all.length ? (
        <details className="colpicker">
          <summary>
            Columns ({chosen.size} of {all.length})
          </summary>
          <div className="row gap">
            <button className="btn tiny ghost" onClick={() => setPicked(new Set(all))}>
              all
            </button>
            <button className="btn tiny ghost" onClick={() => setPicked(new Set())}>
              none
            </button>
          </div>
          <div className="colgrid">
            {all.map((c) => (
              <label key={c} className="check small">
                <input
                  type="checkbox"
                  checked={chosen.has(c)}
                  onChange={(e) => {
                    const s = new Set(chosen);
                    if (e.target.checked) s.add(c);
                    else s.delete(c);
                    setPicked(s);
                  }}
                />{' '}
                {c}
              </label>
            ))}
          </div>
        </details>
      ) : null}
      <ErrorText text={err} />
      {job ? (
        <div className="row gap" data-testid="export-status" data-status={job.status}>
          <span className={`status s-${job.status}`}>{job.status}</span>
          <span className="num">
            {fmtExact(job.rows)}
            {job.total != null ? ` / ${fmtExact(job.total)}` : ''} rows
          </span>
          {job.status === 'running' && job.total ? <progress max={job.total} value={job.rows} aria-label="Export progress" /> : null}
          {job.status === 'running' ? (
            <button className="btn small" onClick={() => void exports.cancel(job.exportId)} data-testid="export-cancel">
              Cancel
            </button>
          ) : null}
          {job.status === 'done' && job.downloadUrl ? (
            <a className="btn small primary" href={job.downloadUrl} download data-testid="export-download">
              Download
            </a>
          ) : null}
          {job.status === 'done' && job.path ? (
            <span className="mono small" data-testid="export-path" title="Saved here">
              {job.path}
            </span>
          ) : null}
          {job.status === 'done' && job.summary ? (
            <span className="small" data-testid="export-summary">
              {job.summary}
            </span>
          ) : null}
          {job.error ? <span className="errtext">{job.error}</span> : null}
        </div>
      ) : null}
    </div>
  );
}

/** The format list; "Dataset bundle" where the export is of a query (docs/datasets.md "Bundles"). */
function FormatPicker({
  value,
  onChange,
  bundle,
}: {
  value: ExportFormatName | 'bundle';
  onChange: (v: ExportFormatName | 'bundle') => void;
  bundle: boolean;
}) {
  return (
    <label className="field inline">
      <span className="field-label">Format</span>
      <select value={value} onChange={(e) => onChange(e.target.value as ExportFormatName | 'bundle')} data-testid="export-format">
        <option value="csv">CSV</option>
        <option value="xlsx">Excel workbook (XLSX)</option>
        <option value="parquet">Parquet (DuckDB, pandas, R, Spark)</option>
        <option value="json">JSON</option>
        <option value="jsonl">JSON Lines</option>
        <option value="gexf">Network for Gephi (GEXF)</option>
        <option value="graphml">Network (GraphML)</option>
        {bundle ? <option value="bundle">Dataset bundle (manifest, checksums, root hash)</option> : null}
      </select>
    </label>
  );
}

function stripPaging(q: LibraryQuery | undefined): LibraryQuery | undefined {
  if (!q) return q;
  const { after: _a, limit: _l, ...rest } = q;
  return rest;
}

const ORDER: Record<ExportJob['status'], number> = { running: 0, done: 1, failed: 1, cancelled: 1 };

function pickNewest(a: ExportJob | undefined, b: ExportJob | undefined): ExportJob | undefined {
  if (!a) return b;
  if (!b) return a;
  if (ORDER[a.status] !== ORDER[b.status]) return ORDER[a.status] > ORDER[b.status] ? a : b;
  return a.rows >= b.rows ? a : b;
}
