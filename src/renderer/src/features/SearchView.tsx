/** Search: network + search endpoint, query, options from the catalogue, relevance; walks into the table. */
import { useEffect, useMemo } from 'react';
import { create } from 'zustand';
import type { Target } from '../../../shared/contract';
import { accepts, cleanParams, endpointPath, platformsOf, queryParam, searchEndpoints, validateParams } from '../lib/catalogue';
import { useCatalogue, useLibraryRows, useWalkPrice } from '../queries/hooks';
import { Empty, ErrorBox, Field, Skeleton, SpendButton } from '../components/cells';
import { PagesField, QueryForm } from '../components/Controls';
import { NetworkEndpointPicker, useDefaultPlatform } from '../components/NetworkPicker';
import { ParamForm } from '../components/ParamForm';
import { useStartWalk, useWalk, WalkBar } from '../components/Walk';
import { ResultsPane } from './ResultsPane';

interface SearchState {
  platform: string;
  endpoint: string;
  query: string;
  relevance: '' | 'score' | 'filter';
  threshold: string;
  relevantTo: string;
  options: Record<string, string>;
  pages: number;
  walkId: string | null;
  target: Target | null;
  set: (p: Partial<SearchState>) => void;
}

export const useSearch = create<SearchState>((set) => ({
  platform: '',
  endpoint: '',
  query: '',
  relevance: '',
  threshold: '0.5',
  relevantTo: '',
  options: {},
  pages: 1,
  walkId: null,
  target: null,
  set: (p) => set(p),
}));

export function SearchView() {
  const cat = useCatalogue();
  const s = useSearch();
  const all = useMemo(() => searchEndpoints(cat.data), [cat.data]);
  const platforms = useMemo(() => platformsOf(all), [all]);
  const eps = useMemo(() => all.filter((e) => e.platform === s.platform), [all, s.platform]);
  const ep = eps.find((e) => endpointPath(e) === s.endpoint) ?? null;
  const qp = ep ? queryParam(ep) : null;

  useDefaultPlatform(platforms, s.platform, (platform) => s.set({ platform, endpoint: '' }));
  useEffect(() => {
    if (eps.length && !eps.some((e) => endpointPath(e) === s.endpoint)) {
      const pref = eps.find((e) => endpointPath(e) === 'search/reels') ?? eps.find((e) => endpointPath(e) === 'search') ?? eps[0];
      s.set({ endpoint: endpointPath(pref), options: {} });
    }
  }, [eps, s]);

  const params = useMemo(() => {
    if (!ep || !qp) return null;
    const p: Record<string, string> = { ...cleanParams(s.options), [qp.name]: s.query.trim() };
    if (s.relevance && accepts(ep, 'relevance')) {
      p.relevance = s.relevance;
      if (s.threshold && s.relevance === 'filter') p.relevance_threshold = s.threshold;
      if (s.relevantTo.trim()) p.relevant_to = s.relevantTo.trim();
    }
    return p;
  }, [ep, qp, s.options, s.query, s.relevance, s.threshold, s.relevantTo]);
  const problems = ep && params ? validateParams(ep, params) : [];
  const target: Target | null =
    ep && params && s.query.trim() && problems.length === 0 ? { platform: s.platform, endpoint: endpointPath(ep), params } : null;
  const price = useWalkPrice(target, s.pages);
  const start = useStartWalk();
  const walk = useWalk(s.walkId);
  const rows = useLibraryRows(s.walkId ? { source: { type: 'walk', id: s.walkId } } : null);
  const loaded = rows.data?.pages.flatMap((p) => p.rows) ?? [];

  const submit = async () => {
    if (!target) return;
    const w = await start(
      target,
      'search',
      s.pages,
      `Search ${s.platform} ${target.endpoint} for “${s.query.trim()}” (${s.pages} page${s.pages === 1 ? '' : 's'})`,
    );
    if (w) s.set({ walkId: w.walkId, target });
  };

  return (
    <div className="view">
      <div className="controls">
        <QueryForm onSubmit={submit}>
          <NetworkEndpointPicker
            prefix="search"
            platforms={platforms}
            platform={s.platform}
            onPlatform={(platform) => s.set({ platform, endpoint: '', options: {} })}
            endpoints={eps}
            endpoint={s.endpoint}
            onEndpoint={(endpoint) => s.set({ endpoint, options: {} })}
            text={(e) => `${endpointPath(e)} — ${e.label}`}
            title={(e) => e.description}
          />
          <Field label="Query" hint={qp?.description}>
            <input
              className="wide"
              value={s.query}
              onChange={(e) => s.set({ query: e.target.value })}
              placeholder={qp?.example ? String(qp.example) : 'running shoes'}
              data-testid="search-query"
              data-main-query
              aria-label="Search query"
            />
          </Field>
          <PagesField value={s.pages} onChange={(pages) => s.set({ pages })} testid="search-pages" choices={[1, 2, 3, 5, 10, 20]} />
          <SpendButton label="Search" price={price.text} submit disabled={!target} testid="search-submit" />
        </QueryForm>
        {ep && accepts(ep, 'relevance') ? (
          <div className="row gap wrap">
            <Field label="Relevance" hint="score: judge every row; filter: also drop rows not about the query">
              <select
                value={s.relevance}
                onChange={(e) => s.set({ relevance: e.target.value as SearchState['relevance'] })}
                data-testid="search-relevance"
              >
                <option value="">default (free score)</option>
                <option value="score">score</option>
                <option value="filter">filter</option>
              </select>
            </Field>
            {s.relevance === 'filter' ? (
              <Field label="Threshold" hint="minimum probability kept by filter (0–1)">
                <input
                  type="number"
                  min={0}
                  max={1}
                  step={0.05}
                  value={s.threshold}
                  onChange={(e) => s.set({ threshold: e.target.value })}
                  data-testid="search-threshold"
                />
              </Field>
            ) : null}
            {s.relevance ? (
              <Field label="Relevant to" hint="topic used instead of the query (up to 200 characters)">
                <input
                  value={s.relevantTo}
                  maxLength={200}
                  onChange={(e) => s.set({ relevantTo: e.target.value })}
                  placeholder="e.g. trail running"
                  data-testid="search-relevant-to"
                />
              </Field>
            ) : null}
          </div>
        ) : null}
        {ep ? (
          <details className="options">
            <summary>Options for {endpointPath(ep)}</summary>
            <ParamForm
              endpoint={ep}
              values={s.options}
              onChange={(options) => s.set({ options })}
              omit={[qp?.name ?? 'query', 'relevance', 'relevance_threshold', 'relevant_to']}
              testidPrefix="search-opt"
            />
          </details>
        ) : null}
        {s.query.trim() && problems.length ? <div className="muted small">{problems.join('; ')}</div> : null}
        <ErrorBox error={cat.error} onRetry={() => void cat.refetch()} />
        {walk && s.target ? <WalkBar walk={walk} target={s.target} /> : null}
      </div>
      {cat.isLoading ? (
        <Skeleton />
      ) : !s.walkId ? (
        <Empty title="Search any network">
          Pick a network and one of its search endpoints, type a query and press <kbd>Enter</kbd>. The price is on the button before you
          press it.
          <div>
            Try in the sandbox:{' '}
            <button
              className="btn small"
              data-testid="try-example"
              onClick={() => {
                const p = platforms.includes('photo_net') ? 'photo_net' : s.platform;
                s.set({ platform: p, query: 'running shoes' });
              }}
            >
              running shoes
            </button>
          </div>
        </Empty>
      ) : rows.isLoading ? (
        <Skeleton />
      ) : (
        <>
          <ErrorBox error={rows.error} onRetry={() => void rows.refetch()} />
          {loaded.length === 0 && walk?.status !== 'running' && walk?.error ? (
            <Empty title="Stopped before any results" testid="stopped-state">
              The search did not finish: the bar above names the cause and the way out. Nothing is wrong with your words.
            </Empty>
          ) : loaded.length === 0 && walk?.status !== 'running' ? (
            <Empty title="No results">
              Nothing came back for this query. Try broader words, another endpoint, or switch relevance filtering off.
            </Empty>
          ) : (
            <ResultsPane
              rows={loaded}
              variant="post"
              showRelevance
              hasMore={rows.hasNextPage}
              fetchingMore={rows.isFetchingNextPage}
              onLoadMore={() => void rows.fetchNextPage()}
              exportQuery={{ source: { type: 'walk', id: s.walkId } }}
              key={s.walkId}
            />
          )}
        </>
      )}
    </div>
  );
}
