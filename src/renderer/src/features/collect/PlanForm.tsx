/**
 * A new plan: where the inputs come from (a pasted or dropped list, a saved set, the Library's
 * current query), what to collect for each, on which networks, how deep, the top K of a set, one
 * budget. "Check the plan" prices it (free); once checked, moving the depth, K or the networks
 * prices it again. "Save and run" asks first when the plan's ceiling is above the threshold.
 */
import { useEffect, useMemo, useState } from 'react';
import type { CollectDesign, CollectPlan } from '../../../../shared/contract';
import { COLLECT_DO_WORDS, COLLECT_DOS, COLLECT_RANKS, type CollectDo, type CollectRank } from '../../../../shared/collect-words';
import { errorText } from '../../lib/api';
import { creditRange, fmtExact } from '../../lib/format';
import { platformsOf, usable } from '../../lib/catalogue';
import { useCatalogue, useDebounced, useLoupe } from '../../queries/hooks';
import { useCollectMutations } from '../../queries/collect';
import { useLibrary, withoutPaging } from '../../stores/library';
import { useUi } from '../../stores/ui';
import { Field } from '../../components/cells';
import { PlanFigures } from './PlanFigures';

type SourceKind = 'text' | 'set' | 'query';
const MAX_FILE = 20_000_000;

export function PlanForm({ onSaved }: { onSaved: (id: string) => void }) {
  const cat = useCatalogue();
  const sets = useLoupe('library.resultSets', {}, { staleTime: 30_000 });
  const libQ = useLibrary((s) => s.q);
  const platforms = useMemo(() => platformsOf(usable(cat.data)), [cat.data]);
  const m = useCollectMutations();
  const [name, setName] = useState('');
  const [kind, setKind] = useState<SourceKind>('text');
  const [text, setText] = useState('');
  const [column, setColumn] = useState('');
  const [setId, setSetId] = useState('');
  const [what, setWhat] = useState<CollectDo>('feed');
  const [networks, setNetworks] = useState<string[]>([]);
  const [pages, setPages] = useState(1);
  const [topN, setTopN] = useState('');
  const [by, setBy] = useState<CollectRank>('engagement');
  const [budget, setBudget] = useState('');
  const [plan, setPlan] = useState<CollectPlan | null>(null);
  const [checked, setChecked] = useState(false);
  const [busy, setBusy] = useState(false);
  const [err, setErr] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);

  const design: CollectDesign | null = useMemo(() => {
    const source: CollectDesign['source'] | null =
      kind === 'text'
        ? text.trim()
          ? { type: 'text', text, ...(column.trim() ? { column: column.trim() } : {}) }
          : null
        : kind === 'set'
          ? setId
            ? { type: 'set', id: setId }
            : null
          : { type: 'query', query: withoutPaging(libQ) };
    if (!source) return null;
    const n = Math.floor(Number(topN));
    const b = budget.trim() === '' ? null : Math.max(0, Math.floor(Number(budget)));
    return {
      name: name.trim() || 'Untitled plan',
      source,
      do: what,
      networks,
      pages,
      ...(kind !== 'text' && n > 0 ? { topK: { n, by } } : {}),
      budget: b !== null && Number.isFinite(b) ? b : null,
    };
  }, [kind, text, column, setId, libQ, name, what, networks, pages, topN, by, budget]);
  const key = JSON.stringify(design);
  const debounced = useDebounced(key, 400);

  const check = async (d: CollectDesign | null = design) => {
    setErr(null);
    if (!d) return setErr(kind === 'text' ? 'Paste a list, or drop a file on the box.' : 'Pick a saved set.');
    setBusy(true);
    try {
      setPlan(await m.preview(d));
      setChecked(true);
    } catch (e) {
      setErr(errorText(e));
      setPlan(null);
    } finally {
      setBusy(false);
    }
  };
  // once checked, a moved curve or another network prices the plan again (free)
  useEffect(() => {
    if (checked && design && debounced === key) void check(design);
  }, [debounced]);

  const save = async (run: boolean) => {
    if (!design || !plan) return;
    setErr(null);
    if (!name.trim()) return setErr('Name the plan: its results become a saved set of that name.');
    let approved = false;
    if (run && plan.approval.needed) {
      approved = await useUi.getState().ask({
        title: `Run “${name.trim()}”?`,
        lines: [
          `${fmtExact(plan.inputs)} input${plan.inputs === 1 ? '' : 's'}, ${fmtExact(plan.figures.requests)} request${plan.figures.requests === 1 ? '' : 's'}.`,
          `Could cost ${creditRange(plan.figures.creditsMin, plan.figures.creditsMax)}; likely ${fmtExact(plan.figures.creditsLikely)}.`,
          plan.approval.reason ?? '',
          'Nothing is paid twice: cancel any time and run again to continue.',
        ].filter(Boolean),
        okLabel: `Run — up to ${fmtExact(plan.figures.creditsMax)} credits`,
      });
      if (!approved) return;
    }
    setBusy(true);
    try {
      const saved = await m.create({ ...design, name: name.trim() });
      onSaved(saved.id as string);
      if (run) void m.run(saved.id as string, approved).catch((e) => useUi.getState().toast('error', errorText(e)));
      else useUi.getState().toast('info', `Saved “${saved.name}”. Nothing spent yet.`);
    } catch (e) {
      setErr(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  const pick = async (f: File | undefined) => {
    if (!f) return;
    if (f.size > MAX_FILE) return setErr('That file is over 20 MB; split it.');
    setKind('text');
    setText(await f.text());
    if (!name.trim()) setName(f.name.replace(/\.[^.]+$/, ''));
  };
  const toggle = (p: string) => setNetworks((n) => (n.includes(p) ? n.filter((x) => x !== p) : [...n, p]));
  const each = COLLECT_DO_WORDS[what].each;

  return (
    <form
      className="col gap"
      aria-label="New collection plan"
      onSubmit={(e) => {
        e.preventDefault();
        void check();
      }}
      data-testid="collect-form"
    >
      <div className="row gap wrap">
        <Field label="Plan name" required hint="its results become a saved set of this name">
          <input value={name} onChange={(e) => setName(e.target.value)} maxLength={120} data-testid="collect-name" data-main-query />
        </Field>
        <Field label="Collect">
          <select value={what} onChange={(e) => setWhat(e.target.value as CollectDo)} data-testid="collect-do">
            {COLLECT_DOS.map((d) => (
              <option key={d} value={d}>
                {COLLECT_DO_WORDS[d].label}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Pages per input" hint="depth on list endpoints (feeds, comments, searches); one answer otherwise">
          <input
            type="number"
            min={1}
            max={100}
            value={pages}
            onChange={(e) => setPages(Math.min(100, Math.max(1, Math.floor(Number(e.target.value)) || 1)))}
            style={{ width: 70 }}
            data-testid="collect-pages"
          />
        </Field>
        <Field label="Budget (credits)" hint="one ceiling for the whole run; empty: ask above your threshold">
          <input
            type="number"
            min={0}
            value={budget}
            onChange={(e) => setBudget(e.target.value)}
            style={{ width: 110 }}
            placeholder="none"
            data-testid="collect-budget"
          />
        </Field>
      </div>
      <fieldset className="row gap wrap">
        <legend>Inputs from</legend>
        {(['text', 'set', 'query'] as const).map((k) => (
          <label key={k} className="inline">
            <input
              type="radio"
              name="collect-source"
              checked={kind === k}
              onChange={() => setKind(k)}
              data-testid={`collect-source-${k}`}
            />{' '}
            {k === 'text' ? 'a list (paste or drop a file)' : k === 'set' ? 'a saved set' : 'the Library’s current filters'}
          </label>
        ))}
      </fieldset>
      {kind === 'text' ? (
        <div
          className={`dropzone ${dragging ? 'over' : ''}`}
          onDragOver={(e) => (e.preventDefault(), setDragging(true))}
          onDragLeave={() => setDragging(false)}
          onDrop={(e) => {
            e.preventDefault();
            setDragging(false);
            void pick(e.dataTransfer.files[0]);
          }}
        >
          <Field label={`One ${each} a line, or a CSV (the column is found by its name: handle, url, post_url, query, hashtag…)`}>
            <textarea
              rows={8}
              value={text}
              onChange={(e) => setText(e.target.value)}
              spellCheck={false}
              className="mono"
              placeholder={placeholder(what)}
              data-testid="collect-text"
            />
          </Field>
          <div className="row gap wrap">
            <label className="field">
              <span className="field-label">…or a file (.csv, .txt) — or drop it on the box</span>
              <input
                type="file"
                accept=".csv,.txt,.tsv,text/csv,text/plain"
                onChange={(e) => void pick(e.target.files?.[0])}
                data-testid="collect-file"
              />
            </label>
            <Field label="CSV column" hint="optional: the column to read, by its name">
              <input value={column} onChange={(e) => setColumn(e.target.value)} style={{ width: 140 }} data-testid="collect-column" />
            </Field>
          </div>
        </div>
      ) : (
        <div className="row gap wrap">
          {kind === 'set' ? (
            <Field label="Saved set">
              <select value={setId} onChange={(e) => setSetId(e.target.value)} data-testid="collect-set">
                <option value="">Pick a set…</option>
                {(sets.data ?? []).map((s) => (
                  <option key={s.id} value={s.id}>
                    {s.name}
                  </option>
                ))}
              </select>
            </Field>
          ) : null}
          <Field label="Only the top K" hint="of the posts, authors or hashtags, by engagement; empty: all">
            <input
              type="number"
              min={1}
              value={topN}
              onChange={(e) => setTopN(e.target.value)}
              style={{ width: 90 }}
              data-testid="collect-topk"
            />
          </Field>
          <Field label="ranked by">
            <select value={by} onChange={(e) => setBy(e.target.value as CollectRank)} data-testid="collect-by">
              {COLLECT_RANKS.map((r) => (
                <option key={r} value={r}>
                  {r === 'engagement' ? 'all engagement' : r}
                </option>
              ))}
            </select>
          </Field>
        </div>
      )}
      <fieldset className="row gap wrap" data-testid="collect-networks">
        <legend>
          Networks {what === 'search' || what === 'hashtag' ? '(a search goes to each)' : '(a handle goes to each; an address to its own)'}
        </legend>
        {platforms.map((p) => (
          <label key={p} className="inline small">
            <input type="checkbox" checked={networks.includes(p)} onChange={() => toggle(p)} /> {p}
          </label>
        ))}
      </fieldset>
      {err ? (
        <p className="errtext" role="alert" data-testid="collect-error">
          {err}
        </p>
      ) : null}
      <div className="row gap">
        <button type="submit" className="btn" disabled={busy} data-testid="collect-check">
          {plan ? 'Check again' : 'Check the plan (free)'}
        </button>
        <button
          type="button"
          className="btn"
          disabled={busy || !plan || plan.inputs === 0}
          onClick={() => void save(false)}
          data-testid="collect-save"
        >
          Save plan
        </button>
        <button
          type="button"
          className="btn primary"
          disabled={busy || !plan || plan.inputs === 0}
          onClick={() => void save(true)}
          data-testid="collect-run"
        >
          {plan ? `Save and run — ${creditRange(plan.figures.creditsMin, plan.figures.creditsMax)}` : 'Save and run'}
        </button>
      </div>
      {plan ? <PlanFigures plan={plan} onDepth={setPages} onTopK={(k) => setTopN(String(k))} onNetworks={setNetworks} busy={busy} /> : null}
    </form>
  );
}

function placeholder(what: CollectDo): string {
  if (what === 'search') return 'running shoes\n"trail running" waterproof';
  if (what === 'hashtag') return '#running\nmarathon';
  if (what === 'comments' || what === 'post') return 'https://…/p/Cx1aB/\nhttps://…/status/1790…';
  return 'nasa\n@esa\nhttps://…/jaxa';
}
