/**
 * Comparisons (analysis.compare): two to eight saved sets, watchlists, profiles or the current
 * scope side by side — items and share of voice, engagement and its rates, volume over time,
 * label shares, top posts. Every number with a query opens the Library on its items.
 */
import { useState } from 'react';
import { create } from 'zustand';
import type { ChartSeries, CompareSeries, PostBrief } from '../../../../shared/analysis';
import { PLATFORMS } from '../../../../shared/api-types';
import { labelValueWords } from '../../../../shared/labels';
import type { LibraryQuery } from '../../../../shared/query';
import { Empty, ErrorBox, Field, Name, Num, Skeleton, When } from '../../components/cells';
import { NetworkSelect } from '../../components/NetworkPicker';
import { fmtExact, truncate } from '../../lib/format';
import { showBidiControls } from '../../lib/words';
import { useLoupe } from '../../queries/hooks';
import { useUi } from '../../stores/ui';
import { describeQuery, openInLibrary, pct } from './analysis-state';
import { MarkChart } from './MarkChart';
import { SourceOptions } from './SourceOptions';

interface Series {
  name: string;
  query: LibraryQuery;
}

const useCompare = create<{ series: Series[]; set: (s: Series[]) => void }>((set) => ({ series: [], set: (series) => set({ series }) }));

const LABEL_WORDS: Record<string, { family: string; field: string; title: string }> = {
  'sentiment.label': { family: 'sentiment', field: 'label', title: 'Sentiment' },
  'intent.label': { family: 'intent', field: 'label', title: 'Intent' },
  sponsored: { family: 'sponsored', field: 'p', title: 'Sponsored' },
};
const labelRowWords = (label: string, value: string): string => {
  const l = LABEL_WORDS[label];
  if (!l) return `${label}: ${value}`;
  if (label === 'sponsored') return `${l.title}: ${value}`;
  return `${l.title}: ${labelValueWords(l.family, l.field, value)}`;
};

function AddSeries({ scopeQuery, series, onAdd }: { scopeQuery: LibraryQuery; series: Series[]; onAdd: (s: Series) => void }) {
  const sets = useLoupe('library.resultSets', {}, { staleTime: 30_000 });
  const lists = useLoupe('watchlists.list', {}, { staleTime: 30_000 });
  const [platform, setPlatform] = useState<string>(PLATFORMS[0]);
  const [handle, setHandle] = useState('');
  const full = series.length >= 8;
  const pick = (v: string) => {
    if (v === 'scope') return onAdd({ name: `analysed items (${describeQuery(scopeQuery)})`, query: scopeQuery });
    const [kind, id] = [v.slice(0, v.indexOf(':')), v.slice(v.indexOf(':') + 1)];
    if (kind === 'set') {
      const rs = sets.data?.find((x) => x.id === id);
      if (rs) onAdd({ name: rs.name, query: rs.query });
    } else if (kind === 'watchlist') {
      const wl = lists.data?.find((x) => x.id === id);
      if (wl) onAdd({ name: `watchlist ${wl.name}`, query: { source: { type: 'watchlist', id: wl.id } } });
    }
  };
  return (
    <div className="row gap wrap" data-testid="compare-add">
      <Field label="Add a saved set or watchlist">
        <select value="" onChange={(e) => e.target.value && pick(e.target.value)} disabled={full} data-testid="compare-pick">
          <option value="">choose…</option>
          <option value="scope">the items being analysed</option>
          <SourceOptions sets={sets.data} lists={lists.data} listsLabel="Watchlists" />
        </select>
      </Field>
      <form
        className="row gap"
        onSubmit={(e) => {
          e.preventDefault();
          const h = handle.trim().replace(/^@/, '');
          if (!h || full) return;
          onAdd({ name: `@${h} on ${platform}`, query: { platforms: [platform], author: h } });
          setHandle('');
        }}
      >
        <Field label="or a profile">
          <span className="row gap">
            <NetworkSelect
              value={platform}
              platforms={PLATFORMS}
              onChange={setPlatform}
              ariaLabel="Network of the profile"
              testid="compare-profile-platform"
            />
            <input
              value={handle}
              onChange={(e) => setHandle(e.target.value)}
              placeholder="handle, e.g. nasa"
              size={14}
              aria-label="Handle of the profile"
              data-testid="compare-profile-handle"
            />
          </span>
        </Field>
        <button type="submit" className="btn small" disabled={full || !handle.trim()} data-testid="compare-profile-add">
          Add profile
        </button>
      </form>
      {full ? <span className="muted small">Eight is the most that can be compared.</span> : null}
    </div>
  );
}

function PostList({ posts }: { posts: PostBrief[] }) {
  const openDrawer = useUi((s) => s.openDrawer);
  if (posts.length === 0) return <span className="muted small">No post with a known engagement.</span>;
  return (
    <ol className="top-posts">
      {posts.map((p) => (
        <li key={`${p.platform}/${p.kind}/${p.id}`}>
          <button
            type="button"
            className="linklike"
            onClick={() => openDrawer({ platform: p.platform, kind: p.kind, id: p.id })}
            title="Open the details"
            data-testid="compare-top-post"
          >
            <bdi dir="auto">{p.text ? showBidiControls(truncate(p.text, 90)) : '(no text)'}</bdi>
          </button>
          <div className="muted small">
            <Name text={p.author} /> · <Num v={p.engagement} why="No engagement count known" /> engagement · <When v={p.publishedAt} />
          </div>
        </li>
      ))}
    </ol>
  );
}

export function ComparePanel({ scopeQuery }: { scopeQuery: LibraryQuery }) {
  const { series, set } = useCompare();
  const [bucket, setBucket] = useState<'day' | 'week' | 'month'>('week');
  const ready = series.length >= 2;
  const cmp = useLoupe('analysis.compare', { series, bucket, topPosts: 5 }, { enabled: ready, keepPrevious: true, staleTime: 30_000 });
  const data = ready ? cmp.data : undefined;
  const keyOf = (s: CompareSeries, i: number) => `${i + 1}. ${s.name}`;
  const volume: ChartSeries | undefined = data && {
    keys: data.series.map(keyOf),
    marks: data.series
      .flatMap((s, i) => s.volume.map((v) => ({ bucket: v.bucket, key: keyOf(s, i), value: v.value, query: v.query })))
      .sort((a, b) => (a.bucket < b.bucket ? -1 : a.bucket > b.bucket ? 1 : 0)),
    setAside: data.series.reduce((n, s) => n + (s.datesSetAside ?? 0), 0),
  };
  const labelRows = data ? [...new Set(data.series.flatMap((s) => s.labels.map((l) => `${l.label}\u0000${l.value}`)))].sort() : [];
  return (
    <section className="panel" aria-labelledby="compare-title" data-testid="compare-panel">
      <div className="row gap wrap">
        <h2 id="compare-title" className="panel-title">
          Compare side by side
        </h2>
        <Field label="Volume per">
          <select value={bucket} onChange={(e) => setBucket(e.target.value as typeof bucket)} data-testid="compare-bucket">
            <option value="day">day</option>
            <option value="week">week</option>
            <option value="month">month</option>
          </select>
        </Field>
      </div>
      <AddSeries scopeQuery={scopeQuery} series={series} onAdd={(s) => set([...series, s].slice(0, 8))} />
      {series.length ? (
        <div className="row gap wrap" data-testid="compare-series">
          {series.map((s, i) => (
            <span key={i} className="cond" title={describeQuery(s.query)}>
              {i + 1}. {s.name}
              <button
                type="button"
                className="chip-x"
                onClick={() => set(series.filter((_, k) => k !== i))}
                aria-label={`Remove ${s.name}`}
              >
                ×
              </button>
            </span>
          ))}
        </div>
      ) : null}
      {!ready ? (
        <Empty title="Choose two to eight things to compare">
          Saved result sets, watchlists and profiles (a network and a handle: every item of that account held in Loupe). Save a result set
          from the Library, or add the profile <b>nasa</b> on photo_net after fetching it in Profiles.
        </Empty>
      ) : null}
      <ErrorBox error={ready ? cmp.error : null} onRetry={() => void cmp.refetch()} />
      {ready && !data && cmp.isLoading ? <Skeleton rows={5} /> : null}
      {data ? (
        <>
          <table className="mini" data-testid="compare-table">
            <thead>
              <tr>
                <th scope="col">Series</th>
                <th scope="col" className="right" title="items matched (API: items)">
                  Items
                </th>
                <th scope="col" className="right" title="items ÷ all series’ items (API: shareOfVoice)">
                  Share of voice
                </th>
                <th scope="col" className="right" title="likes + comments + shares + saves, known counts only (API: engagement)">
                  Engagement
                </th>
                <th scope="col" className="right" title="engagement ÷ all series’ engagement (API: engagementShare)">
                  Engagement share
                </th>
                <th scope="col" className="right" title="Σ engagement ÷ Σ views, items where both are known (API: rateByViews)">
                  Engagement ÷ views
                </th>
                <th
                  scope="col"
                  className="right"
                  title="Σ engagement ÷ Σ author followers, items where both are known (API: rateByFollowers)"
                >
                  Engagement ÷ followers
                </th>
              </tr>
            </thead>
            <tbody>
              {data.series.map((s, i) => (
                <tr key={i} data-testid="compare-row">
                  <th scope="row">{keyOf(s, i)}</th>
                  <td className="right">
                    <button
                      type="button"
                      className="linklike num"
                      onClick={() => openInLibrary(s.query)}
                      title="Open these items in the Library"
                      data-testid="compare-items"
                    >
                      {fmtExact(s.items)}
                    </button>
                  </td>
                  <td className="right num">{pct(s.shareOfVoice)}</td>
                  <td className="right">
                    <Num v={s.engagement} why="No engagement count known" />
                  </td>
                  <td className="right num">{pct(s.engagementShare)}</td>
                  <td className="right num" title={s.rateByViews === null ? 'No item with both views and engagement known' : undefined}>
                    {pct(s.rateByViews, 2)}
                  </td>
                  <td
                    className="right num"
                    title={s.rateByFollowers === null ? 'No item with both followers and engagement known' : undefined}
                  >
                    {pct(s.rateByFollowers, 3)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <OverlapNote overlap={data.overlap} total={data.series.reduce((a, s) => a + s.items, 0)} />
          <MarkChart
            title={`Items per ${bucket}`}
            data={volume}
            stacked={false}
            testid="chart-compare-volume"
            bucketTitle={bucket === 'month' ? 'Month' : bucket === 'week' ? 'Week of' : 'Day'}
          />
          <h3 className="panel-subtitle">Label shares</h3>
          <LabelShares series={data.series} rows={labelRows} keyOf={keyOf} />
          <h3 className="panel-subtitle">Top posts by engagement</h3>
          <div className="compare-columns">
            {data.series.map((s, i) => (
              <div key={i} className="compare-column">
                <div className="strong small">{keyOf(s, i)}</div>
                <PostList posts={s.topPosts} />
              </div>
            ))}
          </div>
        </>
      ) : null}
    </section>
  );
}

/** Said when series share items: their shares of voice then count those items more than once (issue 27 #11). */
function OverlapNote({ overlap, total }: { overlap: { distinct: number; shared: number }; total: number }) {
  if (overlap.shared === 0) return null;
  return (
    <p className="small" data-testid="compare-overlap">
      These series overlap: {fmtExact(overlap.shared)} item{overlap.shared === 1 ? ' is' : 's are'} in more than one of them (
      {fmtExact(overlap.distinct)} distinct items, {fmtExact(total)} counted), so the shares of voice count{' '}
      {overlap.shared === 1 ? 'it' : 'them'} more than once and are shares of the {fmtExact(total)} counted, not of the distinct items.
    </p>
  );
}

/** Each series' label shares with their base: "40 % of 15 judged" (issue 27 #11). */
function LabelShares({ series, rows, keyOf }: { series: CompareSeries[]; rows: string[]; keyOf: (s: CompareSeries, i: number) => string }) {
  return (
    <>
      {rows.length === 0 ? (
        <span className="muted small">No item of these series is judged for sentiment, intent or sponsorship.</span>
      ) : (
        <table className="mini" data-testid="compare-labels">
          <thead>
            <tr>
              <th scope="col">Label</th>
              {series.map((s, i) => (
                <th key={i} scope="col" className="right">
                  {keyOf(s, i)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => {
              const [label, value] = row.split('\u0000');
              return (
                <tr key={row}>
                  <th scope="row" title={`${label} = ${value}`}>
                    {labelRowWords(label, value)}
                  </th>
                  {series.map((s, i) => {
                    const l = s.labels.find((x) => x.label === label && x.value === value);
                    return (
                      <td key={i} className="right">
                        {l ? (
                          <>
                            <button
                              type="button"
                              className="linklike num"
                              onClick={() => openInLibrary(l.query)}
                              title={`${fmtExact(l.items)} of ${fmtExact(l.judged)} judged items — open them in the Library`}
                            >
                              {pct(l.share)}
                            </button>
                            <span className="muted small" data-testid="compare-judged">
                              {' '}
                              of {fmtExact(l.judged)} judged
                            </span>
                          </>
                        ) : (
                          <span className="muted">—</span>
                        )}
                      </td>
                    );
                  })}
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </>
  );
}
