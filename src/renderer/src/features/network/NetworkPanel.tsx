/**
 * The network of what the library's filters match (docs/analysis.md "Networks"): hashtags used
 * together, accounts mentioned together, accounts and their hashtags, or who mentions / replies
 * to whom. Drawn with sigma.js (WebGL), laid out in a worker; a table of the same nodes is always
 * one click away (and is the view where WebGL is missing). Search a node, hide light edges, click a
 * node for the items behind it, export the whole network for Gephi.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import type { ExportJob } from '../../../../shared/contract';
import { NETWORK_ENTITIES, type NetworkKindName } from '../../../../shared/contract-constants';
import type { NetworkView } from '../../../../shared/contract-network';
import type { LibraryQuery } from '../../../../shared/query';
import { errorText } from '../../lib/api';
import { fmtExact } from '../../lib/format';
import { useLoupe } from '../../queries/hooks';
import { useExportWrites } from '../../queries/calls';
import { useUi } from '../../stores/ui';
import { ErrorText, Name } from '../../components/cells';
import { showBidiControls } from '../../lib/words';
import { NetworkKindSelect, PanelHead } from '../../components/Controls';
import { draw, webglAvailable, type Drawing } from './network-graph';
import { heaviestEdgeWeight, networkStatsText } from './network-words';

const SIZES = [200, 2_000, 10_000];

export function NetworkPanel({ query, onClose }: { query: LibraryQuery; onClose?: () => void }) {
  const [network, setNetwork] = useState<NetworkKindName>('co-hashtag');
  const [maxNodes, setMaxNodes] = useState(2_000);
  const [pseudonymise, setPseudonymise] = useState(false);
  const [minWeight, setMinWeight] = useState(1);
  const [search, setSearch] = useState('');
  const [selected, setSelected] = useState<string | null>(null);
  const webgl = useMemo(webglAvailable, []);
  const [asTable, setAsTable] = useState(!webgl);
  const view = useLoupe('network.build', { query, network, maxNodes, pseudonymise }, { staleTime: 60_000 });
  const v = view.data;
  useEffect(() => setSelected(null), [v]);
  const maxEdge = useMemo(() => heaviestEdgeWeight(v?.edges ?? []), [v]);
  const matches = useMemo(() => {
    const s = search.trim().toLowerCase();
    return new Set(s && v ? v.nodes.filter((n) => n.label.toLowerCase().includes(s)).map((n) => n.key) : []);
  }, [search, v]);

  return (
    <section className="panel network" data-testid="network-panel" aria-label="Network">
      <PanelHead
        title="Network"
        note="of the rows matching the current filters · free (local)"
        onClose={onClose}
        closeLabel="Close network"
      />
      <div className="row gap wrap">
        <NetworkKindSelect value={network} onChange={setNetwork} testid="network-kind" />
        <label className="field inline">
          <span className="field-label">Show</span>
          <select value={maxNodes} onChange={(e) => setMaxNodes(Number(e.target.value))} data-testid="network-size">
            {SIZES.map((n) => (
              <option key={n} value={n}>
                the {fmtExact(n)} largest nodes
              </option>
            ))}
          </select>
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={pseudonymise}
            onChange={(e) => setPseudonymise(e.target.checked)}
            data-testid="network-pseudonymise"
          />{' '}
          Pseudonymise accounts
        </label>
        <label className="field inline">
          <span className="field-label">Edges used at least</span>
          <input
            type="number"
            min={1}
            max={maxEdge}
            value={minWeight}
            onChange={(e) => setMinWeight(Math.max(1, Number(e.target.value) || 1))}
            style={{ width: '5em' }}
            data-testid="network-min-weight"
          />
          <span className="muted small">times</span>
        </label>
        <label className="field inline">
          <span className="field-label">Find</span>
          <input
            type="search"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            placeholder="#tag or @account"
            data-testid="network-search"
          />
          {search ? (
            <span className="muted small" aria-live="polite">
              {matches.size} found
            </span>
          ) : null}
        </label>
        <button
          className="btn small"
          onClick={() => setAsTable(!asTable)}
          aria-pressed={asTable}
          disabled={!webgl}
          data-testid="network-table-toggle"
        >
          {asTable ? 'Show the drawing' : 'Show as table'}
        </button>
      </div>
      {!webgl ? (
        <p className="muted" role="status" data-testid="network-no-webgl">
          This browser cannot draw with WebGL (no graphics acceleration here), so the network is shown as a table. The GEXF and GraphML
          files below open in Gephi.
        </p>
      ) : null}
      <ErrorText text={view.error ? errorText(view.error) : null} />
      {view.isLoading ? <p className="muted">Building the network…</p> : null}
      {v ? (
        <>
          <p className="muted small" data-testid="network-stats">
            {networkStatsText(v.stats)}
          </p>
          {v.nodes.length === 0 ? (
            <p className="muted">No {NETWORK_ENTITIES[network]} in these items.</p>
          ) : asTable || !webgl ? (
            <NodeTable view={v} matches={matches} minWeight={minWeight} selected={selected} onSelect={setSelected} />
          ) : (
            <Canvas view={v} minWeight={minWeight} matches={matches} selected={selected} onSelect={setSelected} />
          )}
          {selected ? (
            <NodeItems
              query={query}
              network={network}
              node={selected}
              label={v.nodes.find((n) => n.key === selected)?.label ?? selected}
              pseudonymise={pseudonymise}
              onClose={() => setSelected(null)}
            />
          ) : null}
        </>
      ) : null}
      <NetworkExport query={query} network={network} pseudonymise={pseudonymise} />
    </section>
  );
}

function Canvas({
  view,
  minWeight,
  matches,
  selected,
  onSelect,
}: {
  view: NetworkView;
  minWeight: number;
  matches: ReadonlySet<string>;
  selected: string | null;
  onSelect: (k: string) => void;
}) {
  const box = useRef<HTMLDivElement>(null);
  const drawing = useRef<Drawing | null>(null);
  const [layout, setLayout] = useState(false);
  const [frames, setFrames] = useState(0);
  const select = useRef(onSelect);
  select.current = onSelect;
  useEffect(() => {
    if (!box.current) return;
    // a new view's edges are not drawn yet (the element outlives the view it drew)
    delete box.current.dataset.edges;
    let n = 0;
    const d = draw(box.current, view, {
      select: (k) => select.current(k),
      layout: setLayout,
      rendered: () => {
        n++;
        // every frame sigma draws, for the benchmark's frame rate (a DOM attribute: no re-render)
        if (box.current) box.current.dataset.renders = String(n);
        if (n === 1 || n % 30 === 0) setFrames(n);
      },
      // the whole drawing is there (the benchmark measures the camera from here)
      edgesDrawn: () => {
        if (box.current) box.current.dataset.edges = 'drawn';
      },
    });
    drawing.current = d;
    return () => {
      d.kill();
      drawing.current = null;
    };
  }, [view]);
  useEffect(() => drawing.current?.update({ minWeight, matches, selected }), [minWeight, matches, selected]);
  useEffect(() => {
    const first = [...matches][0];
    if (first) drawing.current?.focus(first);
  }, [matches]);
  const top = view.nodes[0]?.key;
  const at = frames > 0 && top ? drawing.current?.viewportOf(top) : null;
  return (
    <div>
      <div className="row gap">
        <span className="muted small" role="status">
          {layout ? 'Arranging the network…' : 'Drag to pan, scroll to zoom, click a node for its items.'}
        </span>
        {layout ? (
          <button className="btn tiny" onClick={() => drawing.current?.stop()}>
            Stop arranging
          </button>
        ) : null}
      </div>
      <div
        ref={box}
        className="network-canvas"
        style={{ height: 520, width: '100%', position: 'relative', border: '1px solid var(--line)', borderRadius: 6 }}
        data-testid="network-canvas"
        data-renderer="webgl"
        data-frames={frames}
        data-top-node={top}
        data-top-x={at ? Math.round(at.x) : undefined}
        data-top-y={at ? Math.round(at.y) : undefined}
        role="img"
        aria-label={`Network drawing of ${view.nodes.length} nodes and ${view.edges.length} edges; the same nodes are listed by “Show as table”.`}
      />
    </div>
  );
}

function NodeTable({
  view,
  matches,
  minWeight,
  selected,
  onSelect,
}: {
  view: NetworkView;
  matches: ReadonlySet<string>;
  minWeight: number;
  selected: string | null;
  onSelect: (k: string) => void;
}) {
  const degree = useMemo(() => {
    const d = new Map<string, number>();
    for (const e of view.edges)
      if (e.weight >= minWeight) {
        d.set(e.source, (d.get(e.source) ?? 0) + 1);
        d.set(e.target, (d.get(e.target) ?? 0) + 1);
      }
    return d;
  }, [view, minWeight]);
  const rows = (matches.size ? view.nodes.filter((n) => matches.has(n.key)) : view.nodes).slice(0, 500);
  return (
    <div className="network-table" style={{ maxHeight: 520, overflow: 'auto' }} data-testid="network-table" data-renderer="table">
      <table className="table small">
        <thead>
          <tr>
            <th scope="col">Node</th>
            <th scope="col">Items</th>
            <th scope="col">Links (edges used at least {minWeight}×)</th>
            <th scope="col">Network</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((n) => (
            <tr key={n.key} aria-current={n.key === selected ? true : undefined}>
              <td>
                <button className="btn tiny ghost" onClick={() => onSelect(n.key)} data-testid="network-node">
                  <Name text={n.label} />
                </button>
              </td>
              <td className="num">{fmtExact(n.weight)}</td>
              <td className="num">{fmtExact(degree.get(n.key) ?? 0)}</td>
              <td>{n.platform}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {view.nodes.length > rows.length && !matches.size ? (
        <p className="muted small">The first 500 of {fmtExact(view.nodes.length)} nodes; use Find for the others.</p>
      ) : null}
    </div>
  );
}

function NodeItems({
  query,
  network,
  node,
  label,
  pseudonymise,
  onClose,
}: {
  query: LibraryQuery;
  network: NetworkKindName;
  node: string;
  label: string;
  pseudonymise: boolean;
  onClose: () => void;
}) {
  const items = useLoupe('network.items', { query, network, node, pseudonymise, limit: 100 });
  const openDrawer = useUi((s) => s.openDrawer);
  return (
    <div className="panel" data-testid="network-items" aria-label={`Items behind ${label}`}>
      <div className="row gap">
        <strong>
          <Name text={label} />
        </strong>
        <span className="muted small">
          {items.data ? `${fmtExact(items.data.length)} item${items.data.length === 1 ? '' : 's'} (up to 100)` : '…'}
        </span>
        <div className="spacer" />
        <button className="btn tiny ghost" onClick={onClose} aria-label={`Close the items behind ${label}`}>
          ✕
        </button>
      </div>
      <ErrorText text={items.error ? errorText(items.error) : null} />
      <ul className="plain">
        {(items.data ?? []).map((it) => (
          <li key={`${it.platform}/${it.kind}/${it.id}`}>
            <button
              className="btn ghost small"
              onClick={() => openDrawer({ platform: it.platform, kind: it.kind, id: it.id })}
              data-testid="network-item"
            >
              <span className="muted">{it.author ? <Name text={it.author} prefix="@" /> : it.platform}</span>{' '}
              {it.text ? <bdi dir="auto">{showBidiControls(it.text.slice(0, 140))}</bdi> : '(no text)'}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}

function NetworkExport({ query, network, pseudonymise }: { query: LibraryQuery; network: NetworkKindName; pseudonymise: boolean }) {
  const [jobId, setJobId] = useState<string | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const live = useUi((s) => (jobId ? s.exports[jobId] : undefined));
  const exports = useExportWrites();
  const polled = useLoupe(
    'export.get',
    { exportId: jobId ?? '' },
    { enabled: !!jobId, refetchInterval: !live || live.status === 'running' ? 1000 : false, staleTime: 0 },
  );
  const job: ExportJob | null | undefined = live?.status !== 'running' ? live : (polled.data ?? live);
  const start = async (format: 'gexf' | 'graphml') => {
    setErr(null);
    try {
      const j = await exports.start({ query, format, network, pseudonymise });
      setJobId(j.exportId);
    } catch (e) {
      setErr(errorText(e));
    }
  };
  return (
    <div className="row gap wrap" data-testid="network-export">
      <span className="muted small">The whole network, every node, for Gephi:</span>
      <button
        className="btn small"
        onClick={() => void start('gexf')}
        disabled={job?.status === 'running'}
        data-testid="network-export-gexf"
      >
        Export GEXF
      </button>
      <button
        className="btn small"
        onClick={() => void start('graphml')}
        disabled={job?.status === 'running'}
        data-testid="network-export-graphml"
      >
        Export GraphML
      </button>
      {err ? (
        <span className="errtext" role="alert">
          {err}
        </span>
      ) : null}
      {job ? (
        <span className="small" data-testid="network-export-status" data-status={job.status} role="status">
          {job.status === 'running'
            ? 'Exporting…'
            : job.status === 'done'
              ? (job.summary ?? 'Done.')
              : job.status === 'failed'
                ? job.error
                : 'Cancelled.'}
          {job.status === 'done' && job.downloadUrl ? (
            <>
              {' '}
              <a href={job.downloadUrl} download>
                Download
              </a>
            </>
          ) : null}
        </span>
      ) : null}
    </div>
  );
}
