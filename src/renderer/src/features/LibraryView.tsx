/** Library: the full LibraryQuery as a filter bar, server-sorted keyset table, bulk tag/note/override, save, export. */
import { lazy, Suspense, useEffect, useMemo, useState, type ComponentType, type ReactNode } from 'react';
import type { ItemRefInput } from '../../../shared/contract';
import type { LibraryQuery, SortField } from '../../../shared/query';
import { PLATFORMS } from '../../../shared/api-types';
import { LABEL_SPECS, labelValueWords } from '../../../shared/labels';
import { LIBRARY_KINDS } from '../../../shared/query-names';
import { fmtExact } from '../lib/format';
import { loadedRows, selectedRefs } from '../lib/rows';
import { useLibraryRows, useLoupe } from '../queries/hooks';
import { useLibraryWrites } from '../queries/library';
import { DraftInput } from '../components/DraftInput';
import { SearchHint, searchError, SEARCH_SYNTAX_HINT } from '../components/SearchHint';
import { useUi } from '../stores/ui';
import { DEFAULT_LIBRARY_SORT, useLibrary } from '../stores/library';
import { Empty, ErrorBox, Field, Skeleton } from '../components/cells';
import { runWithToast } from '../components/WayOut';
import { ResultsTable } from '../components/ResultsTable';
import { ExportPanel } from '../components/ExportPanel';
import { AnalyseButton, ExtraConditions } from './analysis/LibraryHandoff';
import { LabelConditions } from './LabelConditions';
import { LibrarySource } from './LibrarySource';
import { LanguageFilter } from './LanguageFilter';
import { TagsButton, TagsPanel } from './TagsPanel';
import { GrowthFilter } from './datasets/GrowthFilter';
import { useFirstViewSettled } from '../first-view';

// what the first rows do not need is fetched when it is first shown: the charts (recharts, d3),
// the network panel (graphology) and the attrition panel (issue 30: the Library's chunk before
// its first rows)
const LibraryChartsBody = later(lazy(() => import('./LibraryChartsBody').then((m) => ({ default: m.LibraryChartsBody }))));
const NetworkPanel = later(lazy(() => import('./network/NetworkPanel').then((m) => ({ default: m.NetworkPanel }))));
const AttritionPanel = later(lazy(() => import('./datasets/AttritionPanel').then((m) => ({ default: m.AttritionPanel }))));

/** A lazily loaded part, drawn as a skeleton until its code is in. */
function later<P extends object>(Part: ComponentType<P>): ComponentType<P> {
  return function Later(props: P) {
    return (
      <Suspense fallback={<Skeleton />}>
        <Part {...props} />
      </Suspense>
    );
  };
}

type Eng = NonNullable<LibraryQuery['engagement']>[number];

// the Library's query lives in stores/library.ts (Analysis opens the Library with a row's or a mark's query)
export { useLibrary };

/**
 * The exact count of `q`'s filters, asked once its rows are in (issue 30: counting a network's
 * share of a common word takes longer than its first page at 1M); `exact` is undefined while it
 * is counting (the previous count stays in `count.data` for what only needs "some rows").
 */
function useExactCount(q: LibraryQuery, rows: ReturnType<typeof useLibraryRows>) {
  const rowsIn = rows.status !== 'pending' && !rows.isPlaceholderData;
  // and, the first time, once those rows are drawn (first-view.ts)
  const settled = useFirstViewSettled();
  const count = useLoupe('library.count', stripPage(q), { keepPrevious: true, enabled: rowsIn && settled });
  // a first page already counted carries its total
  const pageTotal = rowsIn ? rows.data?.pages[0]?.total : null;
  const exact = count.data !== undefined && !count.isPlaceholderData ? count.data : (pageTotal ?? undefined);
  return { count, exact };
}

/** The tag and saved-set lists, asked once the first rows are drawn (first-view.ts). */
function useLibraryLists() {
  const settled = useFirstViewSettled();
  return { tags: useLoupe('library.tags', {}, { enabled: settled }), sets: useLoupe('library.resultSets', {}, { enabled: settled }) };
}

export function LibraryView() {
  const { q, set } = useLibrary();
  // discrete controls (selects, dates, a column header) apply at once; typed fields commit after a
  // pause through DraftInput, so no change waits on a debounce and a keystroke re-renders one field
  const rows = useLibraryRows(q);
  const { count, exact } = useExactCount(q, rows);
  const { tags, sets } = useLibraryLists();
  // the same array while the pages are the same: a new one per render rebuilt the table's row model
  const loaded = loadedRows(rows.data);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [showExport, setShowExport] = useState(false);
  const [showNetwork, setShowNetwork] = useState(false);
  const [showAttrition, setShowAttrition] = useState(false);
  const writes = useLibraryWrites();
  const ask = useUi((s) => s.ask);
  const selItems: ItemRefInput[] = useMemo(() => selectedRefs(loaded, selected), [loaded, selected]);
  const up = (p: Partial<LibraryQuery>) => set({ ...q, ...p });
  // boolean search: a malformed query is explained beside the box and not sent (the rows stay)
  const [textError, setTextError] = useState<string | null>(null);
  useEffect(() => setTextError(null), [q.text]);
  const commitText = (v: string) => {
    const err = searchError(v);
    setTextError(err);
    if (!err) up({ text: v || undefined });
  };
  const act = runWithToast;
  const empty = !rows.isLoading && loaded.length === 0;
  const filtered = Object.keys(q).some((k) => k !== 'sort' && q[k as keyof LibraryQuery] !== undefined);
  return (
    <div className="view">
      <div className="controls">
        <div className="filterbar">
          <Field label="Text">
            <DraftInput
              value={q.text ?? ''}
              onCommit={(v) => commitText(v)}
              placeholder='words, OR, NOT, "phrase"'
              title={SEARCH_SYNTAX_HINT}
              aria-describedby="library-text-hint"
              aria-invalid={textError ? true : undefined}
              data-testid="library-text"
              data-main-query
            />
          </Field>
          <SearchHint id="library-text-hint" error={textError} />
          <Field label="Network">
            <select
              value={q.platforms?.[0] ?? ''}
              onChange={(e) => up({ platforms: e.target.value ? [e.target.value] : undefined })}
              data-testid="library-platform"
            >
              <option value="">any</option>
              {PLATFORMS.map((p) => (
                <option key={p}>{p}</option>
              ))}
            </select>
          </Field>
          <Field label="Kind">
            <select
              value={q.kinds?.[0] ?? ''}
              onChange={(e) => up({ kinds: e.target.value ? [e.target.value] : undefined })}
              data-testid="library-kind"
            >
              <option value="">any</option>
              {LIBRARY_KINDS.map((k) => (
                <option key={k}>{k}</option>
              ))}
            </select>
          </Field>
          <LanguageFilter value={q.languages} onChange={(languages) => up({ languages })} />
          <Field label="Author">
            <DraftInput value={q.author ?? ''} onCommit={(v) => up({ author: v || undefined })} placeholder="username" size={12} />
          </Field>
          <Field label="Since">
            <input
              type="date"
              value={typeof q.since === 'string' ? q.since : ''}
              onChange={(e) => up({ since: e.target.value || undefined })}
            />
          </Field>
          <Field label="Until">
            <input
              type="date"
              value={typeof q.until === 'string' ? q.until : ''}
              onChange={(e) => up({ until: e.target.value || undefined })}
            />
          </Field>
          <EngagementFilter
            value={q.engagement ?? []}
            onChange={(engagement) => up({ engagement: engagement.length ? engagement : undefined })}
          />
          <GrowthFilter q={q} onChange={set} />
          <Field label="Relevance ≥">
            <DraftInput
              type="number"
              min={0}
              max={1}
              step={0.05}
              value={q.relevanceMin === undefined ? '' : String(q.relevanceMin)}
              onCommit={(v) => up({ relevanceMin: v === '' ? undefined : Math.min(1, Math.max(0, Number(v))) })}
              style={{ width: 70 }}
              data-testid="library-relevance"
            />
          </Field>
          <Field label="Tag">
            <select
              value={q.tags?.[0] ?? ''}
              onChange={(e) => up({ tags: e.target.value ? [e.target.value] : undefined })}
              data-testid="library-tag"
            >
              <option value="">any</option>
              {(tags.data ?? []).map((t) => (
                <option key={t.tag} value={t.tag}>
                  {t.tag} ({t.count})
                </option>
              ))}
            </select>
          </Field>
          <Field label="Note">
            <select
              value={q.hasNote === undefined ? '' : q.hasNote ? 'yes' : 'no'}
              onChange={(e) => up({ hasNote: e.target.value === '' ? undefined : e.target.value === 'yes' })}
            >
              <option value="">any</option>
              <option value="yes">has a note</option>
              <option value="no">no note</option>
            </select>
          </Field>
          <Field label="Source">
            <LibrarySource value={q.source} onChange={(source) => up({ source })} />
          </Field>
        </div>
        <LabelConditions value={q.labels ?? []} onChange={(labels) => up({ labels: labels.length ? labels : undefined })} />
        <ExtraConditions q={q} onChange={up} />
        <div className="row gap wrap">
          <span className="muted" data-testid="library-count">
            {exact !== undefined ? `${fmtExact(exact)} matching` : 'counting…'}
          </span>
          {filtered ? (
            <button className="btn small ghost" onClick={() => set({ sort: q.sort?.field === 'growth' ? undefined : q.sort })}>
              Clear filters
            </button>
          ) : null}
          <select
            aria-label="Saved result sets"
            value=""
            onChange={(e) => {
              const rs = sets.data?.find((x) => x.id === e.target.value);
              if (rs) set(rs.query);
            }}
          >
            <option value="">Saved sets…</option>
            {(sets.data ?? []).map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
          <button
            className="btn small"
            onClick={async () => {
              const name = await useUi.getState().askText({
                title: 'Save result set',
                label: 'Name',
                okLabel: 'Save',
                detail: 'The filters and sort as they are now; open it again from “Saved sets…”.',
              });
              if (name) await act(() => writes.saveResultSet(name, stripPage(q)), `Saved “${name}”`);
            }}
            data-testid="save-set"
          >
            Save result set
          </button>
          <div className="spacer" />
          {selected.size ? (
            <>
              <span className="muted">{selected.size} selected</span>
              <BulkActions items={selItems} act={act} ask={ask} tags={(tags.data ?? []).map((t) => t.tag)} />
            </>
          ) : (
            <button
              className="btn small"
              disabled={!exact}
              title="Tag every row matching the filters (not only the loaded ones)"
              onClick={async () => {
                const tag = await useUi.getState().askText({
                  title: `Tag all ${fmtExact(exact ?? 0)} matching rows`,
                  label: 'Tag',
                  okLabel: 'Tag all',
                  suggestions: (tags.data ?? []).map((t) => t.tag),
                  detail: 'Every row matching the filters, not only the loaded ones.',
                });
                if (tag) await act(() => writes.tagQuery(stripPage(q), tag), `Tagged matching rows “${tag}”`);
              }}
              data-testid="tag-all"
            >
              Tag all matching
            </button>
          )}
          <TagsButton />
          <button className="btn small" onClick={() => setShowExport(!showExport)} aria-expanded={showExport} data-testid="export-open">
            Export…
          </button>
          <button
            className="btn small"
            onClick={() => setShowNetwork(!showNetwork)}
            aria-expanded={showNetwork}
            disabled={!count.data}
            data-testid="network-open"
          >
            Network…
          </button>
          <button
            className="btn small"
            onClick={() => setShowAttrition(!showAttrition)}
            aria-expanded={showAttrition}
            data-testid="attrition-open"
            title="Which items the service still has; re-check them"
          >
            Attrition…
          </button>
          <AnalyseButton disabled={!count.data} />
        </div>
        <TagsPanel />
        {showExport ? (
          <ExportPanel query={stripPage(q)} items={selected.size ? selItems : undefined} onClose={() => setShowExport(false)} />
        ) : null}
        {showAttrition ? <AttritionPanel query={stripPage(q)} onClose={() => setShowAttrition(false)} /> : null}
        {showNetwork ? <NetworkPanel query={stripPage(q)} onClose={() => setShowNetwork(false)} /> : null}
        {count.data ? <LibraryCharts query={stripPage(q)} /> : null}
      </div>
      <ErrorBox error={rows.error} onRetry={() => void rows.refetch()} />
      {rows.isLoading ? (
        <Skeleton />
      ) : empty ? (
        filtered ? (
          <Empty title="Nothing matches these filters">Loosen a filter, or clear them all.</Empty>
        ) : (
          <Empty title="The library is empty">
            Everything Search, Profiles, Comments, Explorer and watchlists fetch is kept here, with what it cost. Start with a search for{' '}
            <b>running shoes</b> or the profile <b>nasa</b> in the sandbox.
            <button className="btn small" onClick={() => useUi.getState().setView('search')}>
              Go to Search
            </button>
          </Empty>
        )
      ) : (
        <ResultsTable
          rows={loaded}
          variant="library"
          hasMore={rows.hasNextPage}
          fetchingMore={rows.isFetchingNextPage}
          onLoadMore={() => void rows.fetchNextPage()}
          serverSort={q.sort ?? DEFAULT_LIBRARY_SORT}
          onServerSort={(sort) => up({ sort: sort ? { field: sort.field as SortField, dir: sort.dir } : undefined })}
          selected={selected}
          onSelectedChange={setSelected}
        />
      )}
    </div>
  );
}

/**
 * Charts of what the filters match (the whole archive query, not only loaded rows): volume over
 * time, the intent and sentiment mixes (in words; "not judged" instead of null), top authors.
 * Folded by default so opening the Library paints rows first; the archive caches the aggregates.
 */
function LibraryCharts({ query }: { query: LibraryQuery }) {
  const [open, setOpen] = useState(false);
  return (
    <details className="options" open={open} onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)} data-testid="library-charts">
      <summary>Charts of what matches</summary>
      {open ? <LibraryChartsBody query={query} /> : null}
    </details>
  );
}

function stripPage(q: LibraryQuery): LibraryQuery {
  const { after: _a, limit: _l, ...rest } = q;
  return rest;
}

function BulkActions({
  items,
  act,
  ask,
  tags,
}: {
  items: ItemRefInput[];
  act: (f: () => Promise<unknown>, ok: string) => Promise<void>;
  ask: ReturnType<typeof useUi.getState>['ask'];
  tags: string[];
}) {
  const n = `${items.length} selected row${items.length === 1 ? '' : 's'}`;
  const writes = useLibraryWrites();
  /** Asks for a tag (the library's tags suggested), then writes it to the selected rows. */
  const withTag =
    (ask: { title: string; label: string; okLabel: string }, write: (tag: string) => Promise<unknown>, done: (tag: string) => string) =>
    async () => {
      const tag = await useUi.getState().askText({ ...ask, suggestions: tags });
      if (tag) await act(() => write(tag), done(tag));
    };
  return (
    <>
      <BulkButton
        testid="bulk-tag"
        onClick={withTag(
          { title: `Tag ${n}`, label: 'Tag', okLabel: 'Tag' },
          (tag) => writes.tagItems(items, tag),
          (tag) => `Tagged ${items.length} rows “${tag}”`,
        )}
      >
        Tag
      </BulkButton>
      <BulkButton
        testid="bulk-untag"
        onClick={withTag(
          { title: `Remove a tag from ${n}`, label: 'Tag to remove', okLabel: 'Remove tag' },
          (tag) => writes.untagItems(items, tag),
          (tag) => `Removed “${tag}” from ${items.length} rows`,
        )}
      >
        Untag
      </BulkButton>
      <BulkButton
        testid="bulk-note"
        onClick={async () => {
          const note = await useUi
            .getState()
            .askText({ title: `Note on ${n}`, label: 'Note (empty clears it)', okLabel: 'Save note', multiline: true, allowEmpty: true });
          if (note === null) return;
          if (
            items.length > 1 &&
            !(await ask({
              title: 'Replace notes?',
              lines: [`This sets the same note on ${items.length} rows, replacing their notes.`],
              okLabel: 'Replace notes',
            }))
          )
            return;
          await act(() => writes.setNote(items, note.trim() ? note : null), `Note set on ${items.length} rows`);
        }}
      >
        Note
      </BulkButton>
      <BulkButton
        testid="bulk-override"
        onClick={async () => {
          const o = await useUi.getState().askLabel({
            title: `Override a label on ${n}`,
            okLabel: 'Override',
            detail: 'Your value replaces the service’s judgment in filters, charts and exports; the original stays in the record.',
          });
          if (!o) return;
          const spec = LABEL_SPECS[o.family];
          await act(
            () => writes.override(items, o),
            `Set ${spec?.title ?? o.family} · ${labelValueWords(o.family, o.field, o.value)} on ${items.length} rows`,
          );
        }}
      >
        Override label
      </BulkButton>
    </>
  );
}

function BulkButton({ testid, onClick, children }: { testid: string; onClick: () => Promise<void>; children: ReactNode }) {
  return (
    <button className="btn small" data-testid={testid} onClick={onClick}>
      {children}
    </button>
  );
}

function EngagementFilter({ value, onChange }: { value: Eng[]; onChange: (v: Eng[]) => void }) {
  const [field, setField] = useState<Eng['field']>('likes');
  const cur = value.find((v) => v.field === field);
  const put = (p: Partial<Eng>) => {
    const next: Eng = { field, min: cur?.min, max: cur?.max, ...p };
    const rest = value.filter((v) => v.field !== field);
    onChange(next.min === undefined && next.max === undefined ? rest : [...rest, next]);
  };
  return (
    <Field label="Engagement">
      <span className="row gap">
        <select value={field} onChange={(e) => setField(e.target.value as Eng['field'])} aria-label="Engagement field">
          {(['views', 'likes', 'comments', 'shares', 'saves'] as const).map((f) => (
            <option key={f}>{f}</option>
          ))}
        </select>
        <DraftInput
          type="number"
          min={0}
          placeholder="min"
          value={cur?.min === undefined ? '' : String(cur.min)}
          onCommit={(v) => put({ min: v === '' ? undefined : Number(v) })}
          aria-label="minimum"
          style={{ width: 72 }}
        />
        <DraftInput
          type="number"
          min={0}
          placeholder="max"
          value={cur?.max === undefined ? '' : String(cur.max)}
          onCommit={(v) => put({ max: v === '' ? undefined : Number(v) })}
          aria-label="maximum"
          style={{ width: 72 }}
        />
        {value.length > 1 || (value.length === 1 && value[0].field !== field) ? (
          <span className="muted small">
            +
            {value
              .filter((v) => v.field !== field)
              .map((v) => v.field)
              .join(', ')}
          </span>
        ) : null}
      </span>
    </Field>
  );
}
