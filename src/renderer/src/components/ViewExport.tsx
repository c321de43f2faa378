/**
 * Export from where you are (issue 27 #12): Search, Comments and Profiles export their current
 * results with their filters. Every page of the view's query held in the archive is read (not only
 * the pages loaded on screen), the view's facets are applied by the same function the table uses
 * (lib/records.ts applyFacets), and the Library's export panel exports exactly those rows, in the
 * view's order, saying how many.
 */
import { useEffect, useState } from 'react';
import type { ItemRefInput, LibraryListRow } from '../../../shared/contract';
import type { LibraryQuery } from '../../../shared/query';
import { MAX_PAGE } from '../../../shared/contract-constants';
import { errorText } from '../lib/api';
import { fmtExact } from '../lib/format';
import { applyFacets } from '../lib/records';
import { listPage } from '../queries/hooks';
import { ExportPanel } from './ExportPanel';
import { ErrorText } from './cells';

/** Every row of a query held in the archive, page after page (lean rows). */
export async function allRows(query: LibraryQuery): Promise<{ rows: LibraryListRow[]; pages: number }> {
  const rows: LibraryListRow[] = [];
  let after: string | undefined;
  let pages = 0;
  do {
    const p = await listPage({ ...query, limit: MAX_PAGE, after });
    rows.push(...p.rows);
    pages++;
    after = p.next ?? undefined;
  } while (after);
  return { rows, pages };
}

export function ViewExport({
  query,
  what,
  selected,
  relevanceMin,
  loaded,
  onClose,
}: {
  query: LibraryQuery;
  what: string;
  selected: ReadonlySet<string>;
  relevanceMin: number | null;
  loaded: number;
  onClose: () => void;
}) {
  const [got, setGot] = useState<{ refs: ItemRefInput[]; held: number } | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const key = JSON.stringify([query, [...selected].sort(), relevanceMin, loaded]);
  useEffect(() => {
    let live = true;
    setGot(null);
    allRows(query).then(
      ({ rows }) => {
        if (!live) return;
        const shown = applyFacets(rows, selected, relevanceMin);
        setGot({ refs: shown.map((r) => ({ platform: r.platform, kind: r.kind, id: r.id })), held: rows.length });
      },
      (e: unknown) => live && setErr(errorText(e)),
    );
    return () => {
      live = false;
    };
    // the key holds every input (a new Set per render would refetch for nothing)
  }, [key]);
  if (err) return <ErrorText text={`Could not read the rows to export: ${err}`} />;
  if (!got)
    return (
      <div className="panel muted small" data-testid="view-export-reading">
        Reading every page of {what} held in the archive…
      </div>
    );
  const filtered = got.refs.length !== got.held;
  const note = `${fmtExact(got.refs.length)} row${got.refs.length === 1 ? '' : 's'}: ${filtered ? `of the ${fmtExact(got.held)} ${what} held in the archive, those the filters show` : `every one of ${what} held in the archive`}${got.held > loaded ? ` (all pages, not only the ${fmtExact(loaded)} loaded)` : ''} · free (local)`;
  return <ExportPanel items={got.refs} note={note} onClose={onClose} />;
}
