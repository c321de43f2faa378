/** The item drawer: full record, labels with evidence, provenance and cost, tags, note, label overrides. */
import { lazy, Suspense, useEffect, useState } from 'react';
import type { ItemDetail } from '../../../shared/contract';
import { errorText } from '../lib/api';
import { creditRange, safeHttpUrl, utc } from '../lib/format';
import { displayAuthor, displayText, displayTitle, effectiveLabels, get, isObj, str } from '../lib/records';
import { ENGAGEMENT_FIELDS } from '../../../shared/contract-constants';
import { useLoupe } from '../queries/hooks';
import { useLibraryWrites } from '../queries/library';
import { useUi } from '../stores/ui';
import { Chips, ErrorBox, Name, Num, RelBar, Skeleton, TagSwatch, When } from './cells';
import { DEFAULT_LIBRARY_SORT, useLibrary } from '../stores/library';
import { labelChips } from '../lib/records';
import { LABEL_SPECS, labelFieldSpec, labelValueProblem, labelValueWords } from '../../../shared/labels';
import { LabelValueInput, type LabelScalar } from './LabelValue';
import { CallsTable, provenanceLine } from './CallsTable';
import { LongText, rawJson } from './LongText';
import { focusDrawerField, returnFocus } from './drawer-focus';

// its chart (recharts, d3) loads with the first drawer opened, not with the app (issue 30: the
// app's first script held it)
const MetricHistory = lazy(() => import('../features/datasets/MetricHistory').then((m) => ({ default: m.MetricHistory })));

function History({ d }: { d: ItemDetail }) {
  return (
    <Suspense fallback={null}>
      <MetricHistory key={d.id} history={d.history ?? []} checkedAt={d.checkedAt ?? null} missingSince={d.missingSince ?? null} />
    </Suspense>
  );
}

export function Drawer() {
  const ref = useUi((s) => s.drawer);
  const close = () => useUi.getState().openDrawer(null);
  const q = useLoupe('library.item', ref ?? { platform: '', kind: '', id: '' }, { enabled: !!ref });
  useFocusInside(!!ref);
  useWantedField(q.data?.id ?? null);
  if (!ref) return null;
  return (
    <aside className="drawer" data-testid="drawer" aria-label="Item details" tabIndex={-1}>
      <div className="drawer-head">
        <span className="muted">
          {ref.platform} · {ref.kind} · <span className="mono">{ref.id}</span>
        </span>
        <div className="spacer" />
        <button className="btn small ghost" onClick={close} aria-label="Close details (Esc)" title="Close (Esc)" data-testid="drawer-close">
          ✕
        </button>
      </div>
      {q.isLoading ? <Skeleton rows={10} /> : null}
      <ErrorBox error={q.error} onRetry={() => void q.refetch()} />
      {q.data === null ? <div className="empty-body">This item is not in the library any more.</div> : null}
      {q.data ? <DrawerBody d={q.data} /> : null}
    </aside>
  );
}

/** Focus moves into the drawer when it opens and back to the row (or the opener) when it closes (drawer-focus.ts). */
function useFocusInside(open: boolean): void {
  useEffect(() => {
    if (!open) return;
    const opener = document.activeElement;
    document.querySelector<HTMLElement>('[data-testid="drawer"]')?.focus({ preventScroll: true });
    return () => returnFocus(opener);
  }, [open]);
}

/** A field the keyboard asked for (`t` / `n`) takes focus once the item is drawn. */
function useWantedField(id: string | null): void {
  const want = useUi((s) => s.drawerField);
  useEffect(() => {
    if (want && focusDrawerField(want)) useUi.getState().wantDrawerField(null);
  }, [want, id]);
}

/** The drawer's author: handle and display name isolated and shown for what they are (issue 27 #19). */
function AuthorLine({ d }: { d: ItemDetail }) {
  const author = displayAuthor(d);
  return (
    <span>
      {author ? <bdi dir="auto">@{author}</bdi> : '—'}{' '}
      {get(d.record, 'author.verified') === true ? <span className="chip tone-info">verified</span> : null}
      {d.author.displayName !== null ? (
        <span className="muted">
          {' '}
          <Name text={d.author.displayName} />
        </span>
      ) : null}
    </span>
  );
}

function DrawerBody({ d }: { d: ItemDetail }) {
  const writes = useLibraryWrites();
  const toast = useUi((s) => s.toast);
  const setView = useUi((s) => s.setView);
  const setHandoff = useUi((s) => s.setHandoff);
  const r = d.record;
  const url = safeHttpUrl(r.url) ?? safeHttpUrl(get(r, 'ext.post_url'));
  const [note, setNote] = useState(d.note ?? '');
  const item = { platform: d.platform, kind: d.kind, id: d.id };
  useEffect(() => setNote(d.note ?? ''), [d.id, d.note]);
  const run = async (f: () => Promise<unknown>, ok?: string) => {
    try {
      await f();
      if (ok) toast('info', ok);
    } catch (e) {
      toast('error', errorText(e));
    }
  };
  const labels = effectiveLabels(d);
  const evidence = get(r, 'computed.labels_evidence');
  const why = (f: string) => (d.unavailable.some((u) => u === f || u.endsWith('.' + f)) ? `This network does not provide ${f}` : undefined);
  const author = displayAuthor(d);
  const [title, text] = [displayTitle(d), displayText(d)];
  const totalCost = d.provenance.reduce((a, p) => a + p.creditsUsed, 0);
  return (
    <div className="drawer-body">
      {title ? (
        <h3 className="drawer-title" dir="auto">
          {title}
        </h3>
      ) : null}
      {text ? (
        <LongText key={d.id} text={text} className="drawer-text" testid="drawer-text" />
      ) : (
        <div className="drawer-text" data-testid="drawer-text">
          <span className="muted">(no text)</span>
        </div>
      )}
      <div className="kv">
        <span>Author</span>
        <AuthorLine d={d} />
        <span>Followers</span>
        <Num v={d.followers} exact why={why('followers')} />
        <span>Published</span>
        <span>
          <When v={d.publishedAt} /> {d.publishedAt !== null ? <span className="muted small">{utc(d.publishedAt)}</span> : null}
        </span>
        <span>Held since</span>
        <When v={d.firstSeenAt} />
      </div>
      <div className="eng-grid">
        {ENGAGEMENT_FIELDS.map((f) => (
          <div key={f} className="eng">
            <div className="muted small">{f}</div>
            <Num v={d.engagement[f]} hidden={d.hiddenCounts.includes(f)} why={why(f)} exact />
          </div>
        ))}
      </div>
      <History d={d} />
      <div className="row gap">
        {url ? (
          <a className="btn small" href={url} target="_blank" rel="noopener noreferrer" data-testid="open-original">
            Open original ↗
          </a>
        ) : null}
        {url && d.kind !== 'profile' && d.kind !== 'comment' ? (
          <button
            className="btn small"
            onClick={() => {
              setHandoff({ commentsUrl: { platform: d.platform, url } });
              setView('comments');
            }}
          >
            Comments…
          </button>
        ) : null}
        <ThreadButton d={d} />
        {author ? (
          <button
            className="btn small"
            onClick={() => {
              setHandoff({ profile: { platform: d.platform, handle: author } });
              setView('profiles');
            }}
          >
            Profile…
          </button>
        ) : null}
      </div>
      {d.relevance !== null ? (
        <section>
          <h4>Relevance</h4>
          <RelBar p={d.relevance} />
          <span className="muted small">
            {' '}
            sense {String(get(r, 'computed.relevance.sense') ?? '—')} · depth {String(get(r, 'computed.relevance.depth') ?? '—')} · spam{' '}
            {String(get(r, 'computed.relevance.spam') ?? '—')}
          </span>
        </section>
      ) : null}
      <section>
        <h4>Labels</h4>
        <Chips chips={labelChips(d)} max={20} />
        {Object.keys(labels).length === 0 ? (
          <div className="muted small">{get(r, 'computed.labels') === null ? 'Could not be judged.' : 'No labels on this record.'}</div>
        ) : null}
        {Object.entries(labels).map(([fam, fields]) => (
          <LabelFamily
            key={fam}
            family={fam}
            fields={fields}
            overridden={d.overrides[fam] ?? {}}
            evidence={isObj(evidence) && isObj(evidence[fam]) ? str(evidence[fam].quote) : null}
            onOverride={(field, value, clear) =>
              run(() => writes.override([item], { family: fam, field, value, clear }), clear ? 'Override cleared' : 'Label overridden')
            }
          />
        ))}
      </section>
      <DrawerTags d={d} run={run} />
      <section>
        <h4>Note</h4>
        <textarea value={note} onChange={(e) => setNote(e.target.value)} rows={3} aria-label="Note" data-testid="drawer-note" />
        <button className="btn small" onClick={() => run(() => writes.setNote([item], note.trim() ? note : null), 'Note saved')}>
          Save note
        </button>
      </section>
      <section>
        <h4>
          Provenance{' '}
          <span className="muted small">
            · {creditRange(totalCost, totalCost)} across {d.provenance.length} call{d.provenance.length === 1 ? '' : 's'}
          </span>
        </h4>
        <CallsTable lines={d.provenance.map(provenanceLine)} testid="provenance" />
        {d.unavailable.length ? <div className="muted small">Not provided by this network: {d.unavailable.join(', ')}</div> : null}
      </section>
      <RawRecord key={d.id} record={r} />
    </div>
  );
}

/** The raw record, built only when opened (a hostile record may hold megabytes), long strings cut. */
function RawRecord({ record }: { record: unknown }) {
  const [open, setOpen] = useState(false);
  return (
    <details onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>Raw record</summary>
      {open ? (
        <pre className="raw" data-testid="drawer-raw" tabIndex={0}>
          {rawJson(record)}
        </pre>
      ) : null}
    </details>
  );
}

function LabelFamily({
  family,
  fields,
  overridden,
  evidence,
  onOverride,
}: {
  family: string;
  fields: Record<string, unknown>;
  overridden: Record<string, unknown>;
  evidence: string | null;
  onOverride: (field: string, value: string | number | boolean | null, clear: boolean) => void;
}) {
  const [edit, setEdit] = useState<string | null>(null);
  const [val, setVal] = useState<LabelScalar>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const fam = Object.prototype.hasOwnProperty.call(LABEL_SPECS, family) ? LABEL_SPECS[family] : undefined;
  return (
    <div className="labelfam" data-testid={`label-family-${family}`}>
      <div className="labelfam-head" title={family}>
        {fam?.title ?? family.replace(/_/g, ' ')}
      </div>
      <table className="mini">
        <tbody>
          {Object.entries(fields).map(([k, v]) => (
            <tr key={k}>
              <td className="muted" title={`${family}.${k}`}>
                {labelFieldSpec(family, k)?.title ?? k.replace(/_/g, ' ')}
              </td>
              <td title={v === null || typeof v === 'object' ? undefined : String(v)}>
                {v === null ? (
                  <span className="null" title="Not judged, or the service was unsure">
                    —
                  </span>
                ) : typeof v === 'object' ? (
                  JSON.stringify(v)
                ) : (
                  labelValueWords(family, k, v)
                )}
                {k in overridden ? (
                  <span className="chip tone-warn" title="your override">
                    {' '}
                    override
                  </span>
                ) : null}
              </td>
              <td className="right">
                {edit === k ? (
                  <form
                    className="row gap"
                    onSubmit={(e) => {
                      e.preventDefault();
                      const problem = labelValueProblem(family, k, val);
                      // niche and other open sets are checked by the core against what it holds
                      if (problem && labelFieldSpec(family, k)) return setProblem(problem);
                      onOverride(k, val, false);
                      setEdit(null);
                    }}
                  >
                    <LabelValueInput
                      family={family}
                      field={k}
                      value={val}
                      onChange={(x) => (setVal(x), setProblem(null))}
                      label={`New value for ${fam?.title ?? family}: ${labelFieldSpec(family, k)?.title ?? k}`}
                      testid={`override-${family}-${k}`}
                    />
                    <button className="btn small" type="submit">
                      Set
                    </button>
                    <button className="btn small ghost" type="button" onClick={() => (setEdit(null), setProblem(null))}>
                      Cancel
                    </button>
                    {problem ? (
                      <span className="errtext small" role="alert">
                        {problem}
                      </span>
                    ) : null}
                  </form>
                ) : (
                  <>
                    <button
                      className="btn tiny ghost"
                      onClick={() => {
                        setEdit(k);
                        setProblem(null);
                        setVal(v === undefined || typeof v === 'object' ? null : (v as LabelScalar));
                      }}
                      title="Override this label value"
                      aria-label={`Edit ${fam?.title ?? family}: ${labelFieldSpec(family, k)?.title ?? k}`}
                    >
                      edit
                    </button>
                    {k in overridden ? (
                      <button className="btn tiny ghost" onClick={() => onOverride(k, null, true)} title="Back to the service's judgment">
                        reset
                      </button>
                    ) : null}
                  </>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {evidence ? <blockquote className="evidence">“{evidence}”</blockquote> : null}
    </div>
  );
}

/** "Show its comments in the Library" (a post) / "Show its replies" (a comment): the Library's thread filter (issue 27 #12). */
function ThreadButton({ d }: { d: ItemDetail }) {
  if (d.kind !== 'post' && d.kind !== 'comment') return null;
  return (
    <button
      className="btn small"
      onClick={() => {
        // the Library with this thread only: its comments and their replies held in the archive
        useLibrary.getState().set({ thread: { platform: d.platform, id: d.id }, sort: DEFAULT_LIBRARY_SORT });
        useUi.getState().setView('library');
      }}
      data-testid="drawer-thread"
    >
      {d.kind === 'post' ? 'Show its comments in the Library' : 'Show its replies in the Library'}
    </button>
  );
}

/** The item's tags, each with its colour (issue 27 #7), and the field that adds one (`t`). */
function DrawerTags({ d, run }: { d: ItemDetail; run: (f: () => Promise<unknown>, ok?: string) => Promise<void> }) {
  const writes = useLibraryWrites();
  const [tag, setTag] = useState('');
  const tagList = useLoupe('tags.list', {});
  const colours = new Map((tagList.data ?? []).map((t) => [t.tag.toLowerCase(), t.color]));
  const item = { platform: d.platform, kind: d.kind, id: d.id };
  return (
    <section>
      <h4>Tags</h4>
      <div className="chips">
        {d.tags.map((t) => (
          <span
            key={t}
            className="chip tone-muted"
            title={colours.get(t.toLowerCase()) ? `${colours.get(t.toLowerCase())} tag` : undefined}
          >
            <TagSwatch color={colours.get(t.toLowerCase())} />
            {t}{' '}
            <button className="chip-x" aria-label={`Remove tag ${t}`} onClick={() => run(() => writes.untagItems([item], t))}>
              ×
            </button>
          </span>
        ))}
      </div>
      <form
        className="row gap"
        onSubmit={(e) => {
          e.preventDefault();
          const t = tag.trim();
          if (!t) return;
          setTag('');
          void run(() => writes.tagItems([item], t));
        }}
      >
        <input value={tag} onChange={(e) => setTag(e.target.value)} placeholder="add a tag" aria-label="Add tag" data-testid="drawer-tag" />
        <button className="btn small" type="submit">
          Tag
        </button>
      </form>
    </section>
  );
}
