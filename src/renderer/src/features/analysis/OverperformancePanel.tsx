/**
 * Overperformance (analysis.overperformance): each post's engagement ÷ the median engagement of
 * the same account's previous N posts held in Loupe; the highest first (or the lowest). A row
 * opens the post's details; the account opens the Library on that account's items.
 */
import { useState } from 'react';
import { Empty, ErrorBox, Field, Name, Num, Skeleton, When } from '../../components/cells';
import { fmtExact, truncate } from '../../lib/format';
import { showBidiControls } from '../../lib/words';
import { useLoupe } from '../../queries/hooks';
import { useUi } from '../../stores/ui';
import type { LibraryQuery } from '../../../../shared/query';
import { openInLibrary } from './analysis-state';

export function OverperformancePanel({ query, scopeName }: { query: LibraryQuery; scopeName: string }) {
  const [baseline, setBaseline] = useState(30);
  const [minBaseline, setMinBaseline] = useState(5);
  const [dir, setDir] = useState<'desc' | 'asc'>('desc');
  const r = useLoupe(
    'analysis.overperformance',
    { query, baseline, minBaseline, dir, limit: 100 },
    { keepPrevious: true, staleTime: 30_000 },
  );
  const openDrawer = useUi((s) => s.openDrawer);
  const d = r.data;
  return (
    <section className="panel" aria-labelledby="over-title" data-testid="overperformance-panel">
      <div className="row gap wrap">
        <h2 id="over-title" className="panel-title">
          Posts against their account’s usual engagement
        </h2>
        <Field label="Usual = median of the previous" hint="the account’s previous N posts held in Loupe (API: baseline)">
          <select value={baseline} onChange={(e) => setBaseline(Number(e.target.value))} data-testid="over-baseline">
            {[10, 30, 100].map((n) => (
              <option key={n} value={n}>
                {n} posts
              </option>
            ))}
          </select>
        </Field>
        <Field label="Score only with at least" hint="fewer previous posts than this: no score (API: minBaseline)">
          <select value={minBaseline} onChange={(e) => setMinBaseline(Number(e.target.value))} data-testid="over-min">
            {[3, 5, 10].map((n) => (
              <option key={n} value={n}>
                {n} previous posts
              </option>
            ))}
          </select>
        </Field>
        <Field label="Show">
          <select value={dir} onChange={(e) => setDir(e.target.value as 'desc' | 'asc')} data-testid="over-dir">
            <option value="desc">over-performers first</option>
            <option value="asc">under-performers first</option>
          </select>
        </Field>
      </div>
      <ErrorBox error={r.error} onRetry={() => void r.refetch()} />
      {!d && r.isLoading ? (
        <Skeleton rows={6} />
      ) : d && d.scored === 0 ? (
        <Empty title="No post could be scored">
          {fmtExact(d.unscored)} post{d.unscored === 1 ? '' : 's'} in {scopeName} lack a known engagement or {minBaseline} earlier posts of
          the same account held in Loupe. Fetch more of an account’s feed in Profiles (its earlier pages), or lower “Score only with at
          least”.
        </Empty>
      ) : d ? (
        <>
          <div className="muted small" data-testid="over-summary">
            {fmtExact(d.scored)} posts scored, {fmtExact(d.unscored)} not (engagement unknown, too few earlier posts, or a usual engagement
            of 0) · showing {fmtExact(d.rows.length)}
          </div>
          <div className="freq-scroll">
            <table className="mini" data-testid="over-table">
              <thead>
                <tr>
                  <th scope="col" className="right" title="engagement ÷ the account’s usual engagement (API: score)">
                    Score
                  </th>
                  <th scope="col">Post</th>
                  <th scope="col">Account</th>
                  <th scope="col" className="right" title="likes + comments + shares + saves (API: engagement)">
                    Engagement
                  </th>
                  <th scope="col" className="right" title="median of the previous posts (API: baselineMedian, baselinePosts)">
                    Usual
                  </th>
                  <th scope="col">Published</th>
                </tr>
              </thead>
              <tbody>
                {d.rows.map((p) => (
                  <tr key={`${p.platform}/${p.kind}/${p.id}`} data-testid="over-row">
                    <td className="right num strong">×{p.score >= 10 ? p.score.toFixed(0) : p.score.toFixed(2)}</td>
                    <td>
                      <button
                        type="button"
                        className="linklike"
                        onClick={() => openDrawer({ platform: p.platform, kind: p.kind, id: p.id })}
                        title="Open the details"
                      >
                        <bdi dir="auto">{p.text ? showBidiControls(truncate(p.text, 80)) : '(no text)'}</bdi>
                      </button>
                    </td>
                    <td>
                      <button
                        type="button"
                        className="linklike"
                        onClick={() => openInLibrary({ platforms: [p.platform], kinds: [p.kind], author: p.authorKey })}
                        title="This account’s items in the Library"
                      >
                        <Name text={p.author ?? p.authorKey} />
                      </button>
                      <span className="muted small"> · {p.platform}</span>
                    </td>
                    <td className="right">
                      <Num v={p.engagement} exact />
                    </td>
                    <td className="right num" title={`median of ${p.baselinePosts} previous posts`}>
                      {fmtExact(Math.round(p.baselineMedian * 10) / 10)}
                    </td>
                    <td>
                      <When v={p.publishedAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      ) : null}
    </section>
  );
}
