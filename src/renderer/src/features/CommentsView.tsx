/**
 * Comments: a post URL → that network's comments endpoint, walked into a threaded table with
 * comment label chips and facets, a sentiment-over-time chart, and (forum) switch receipts.
 */
import { useMemo, useState } from 'react';
import { create } from 'zustand';
import type { CallResult, Target } from '../../../shared/contract';
import type { SwitchReceipt } from '../../../shared/api-types';
import { cleanParams, commentEndpoints, endpointPath, identityParam, platformsOf, validateParams } from '../lib/catalogue';
import { effectiveLabels, isObj, str } from '../lib/records';
import { safeHttpUrl } from '../lib/format';
import { useApproveSpend, useCallPrice, useCatalogue, useLibraryRows, useWalkPrice } from '../queries/hooks';
import { useQuoteNow, useSingleCall } from '../queries/calls';
import { useTakeHandoff } from '../stores/handoff';
import { Empty, ErrorBox, Field, LinkOut, Skeleton, SpendButton } from '../components/cells';
import { PagesField, QueryForm, TopStrip } from '../components/Controls';
import { NetworkEndpointPicker, useDefaultPlatform } from '../components/NetworkPicker';
import { ParamForm } from '../components/ParamForm';
import { useStartWalk, useWalk, WalkBar } from '../components/Walk';
import { StackedChart } from '../components/Charts';
import { ResultsPane } from './ResultsPane';

interface CommentsState {
  platform: string;
  endpoint: string;
  values: Record<string, string>;
  pages: number;
  walkId: string | null;
  callId: string | null;
  receipts: SwitchReceipt[] | null;
  target: Target | null;
  set: (p: Partial<CommentsState>) => void;
}

const useComments = create<CommentsState>((set) => ({
  platform: '',
  endpoint: '',
  values: {},
  pages: 1,
  walkId: null,
  callId: null,
  receipts: null,
  target: null,
  set: (p) => set(p),
}));

/** Guess the network from a pasted URL's host (the sandbox serves hosts like photo_net.example). */
function platformFromUrl(url: string, platforms: string[]): string | null {
  try {
    const h = new URL(url).hostname.toLowerCase().replace(/^www\./, '');
    const hit = platforms
      .filter((p) => h.includes(p.replace(/_/g, '')) || h.includes(p) || h.includes(p.replace(/_/g, '-')))
      .sort((a, b) => b.length - a.length);
    return hit[0] ?? null;
  } catch {
    return null;
  }
}

export function CommentsView() {
  const cat = useCatalogue();
  const s = useComments();
  const all = useMemo(() => commentEndpoints(cat.data), [cat.data]);
  const platforms = useMemo(() => platformsOf(all), [all]);
  const eps = useMemo(() => all.filter((e) => e.platform === s.platform), [all, s.platform]);
  const ep = eps.find((e) => endpointPath(e) === s.endpoint) ?? eps[0] ?? null;
  const idp = ep ? identityParam(ep) : 'url';
  const approve = useApproveSpend();
  const [singleCall, quoteNow] = [useSingleCall(), useQuoteNow()];
  const start = useStartWalk();
  const [err, setErr] = useState<unknown>(null);

  useDefaultPlatform(platforms, s.platform, (platform) => s.set({ platform, endpoint: '' }));
  useTakeHandoff('commentsUrl', (handoff) => {
    const p = platforms.includes(handoff.platform) ? handoff.platform : s.platform;
    const first = commentEndpoints(cat.data, p)[0];
    s.set({ platform: p, endpoint: first ? endpointPath(first) : '', values: { [first ? identityParam(first) : 'url']: handoff.url } });
  });

  const params = cleanParams(s.values);
  const problems = ep ? validateParams(ep, params) : ['choose an endpoint'];
  const target: Target | null = ep && problems.length === 0 ? { platform: s.platform, endpoint: endpointPath(ep), params } : null;
  // switch receipts come in the answer's data, not in rows: a switch_from search is one call
  const oneCall = !!params.switch_from;
  const walkPrice = useWalkPrice(oneCall ? null : target, s.pages);
  const callPrice = useCallPrice(oneCall ? target : null);

  const run = async () => {
    if (!target) return;
    setErr(null);
    if (oneCall) {
      try {
        const q = await quoteNow(target);
        if (
          !(await approve({
            what: `Read comments mentioning a switch from ${params.switch_from}`,
            creditsMin: q.creditsMin,
            creditsMax: q.creditsMax,
            balance: q.balance,
            servedFromArchive: q.servedFromArchive,
          }))
        )
          return;
        const r: CallResult = await singleCall(target, 'comments');
        const rec = isObj(r.envelope.data) ? (r.envelope.data as { switch_receipts?: SwitchReceipt[] }).switch_receipts : undefined;
        s.set({ callId: r.callId, walkId: null, receipts: rec ?? [], target });
      } catch (e) {
        setErr(e);
      }
      return;
    }
    const w = await start(
      target,
      'comments',
      s.pages,
      `Read comments of ${params[idp] ?? 'this post'} (${s.pages} page${s.pages === 1 ? '' : 's'})`,
    );
    if (w) s.set({ walkId: w.walkId, callId: null, receipts: null, target });
  };

  const walk = useWalk(s.walkId);
  const query = s.walkId
    ? { source: { type: 'walk' as const, id: s.walkId } }
    : s.callId
      ? { source: { type: 'call' as const, id: s.callId } }
      : null;
  const rows = useLibraryRows(query);
  const loaded = rows.data?.pages.flatMap((p) => p.rows) ?? [];

  // sentiment over time, over what is loaded (exact counts per day and label)
  const sentiment = useMemo(() => {
    const m = new Map<string, Record<string, number>>();
    const series = new Set<string>();
    for (const r of loaded) {
      const lab = str(effectiveLabels(r).sentiment?.label);
      if (r.publishedAt === null || !lab) continue;
      const day = new Date(r.publishedAt).toISOString().slice(0, 10); // the UTC day, as the archive's charts bucket it
      series.add(lab);
      const b = m.get(day) ?? {};
      b[lab] = (b[lab] ?? 0) + 1;
      m.set(day, b);
    }
    const data = [...m.entries()].sort((a, b) => a[0].localeCompare(b[0])).map(([bucket, v]) => ({ bucket, ...v }));
    return { data, series: [...series].sort() };
  }, [loaded]);

  return (
    <div className="view">
      <div className="controls">
        <QueryForm onSubmit={run}>
          <NetworkEndpointPicker
            prefix="comments"
            platforms={platforms}
            platform={s.platform}
            onPlatform={(platform) => s.set({ platform, endpoint: '', values: { [idp]: s.values[idp] ?? '' } })}
            endpoints={eps}
            endpoint={ep ? endpointPath(ep) : ''}
            onEndpoint={(endpoint) => s.set({ endpoint })}
            title={(e) => e.description}
          />
          <Field label={idp === 'url' ? 'Post URL' : idp}>
            <input
              className="wide"
              value={s.values[idp] ?? ''}
              onChange={(e) => {
                const v = e.target.value;
                const guess = idp === 'url' ? platformFromUrl(v, platforms) : null;
                if (guess && guess !== s.platform) {
                  const first = commentEndpoints(cat.data, guess)[0];
                  s.set({
                    platform: guess,
                    endpoint: first ? endpointPath(first) : '',
                    values: { [first ? identityParam(first) : 'url']: v },
                  });
                } else s.set({ values: { ...s.values, [idp]: v } });
              }}
              placeholder={String(ep?.params.find((p) => p.name === idp)?.example || 'https://…')}
              data-testid="comments-url"
              data-main-query
              aria-label={idp}
            />
          </Field>
          {!oneCall ? <PagesField value={s.pages} onChange={(pages) => s.set({ pages })} testid="comments-pages" /> : null}
          <SpendButton
            label="Read comments"
            price={oneCall ? callPrice.text : walkPrice.text}
            onClick={() => void run()}
            disabled={!target}
            testid="comments-submit"
          />
        </QueryForm>
        {ep ? (
          <details className="options">
            <summary>
              Options for {endpointPath(ep)} (sort, scan_pages, labels
              {ep.params.some((p) => p.name === 'switch_from') ? ', switch_from' : ''})
            </summary>
            <ParamForm endpoint={ep} values={s.values} onChange={(values) => s.set({ values })} omit={[idp]} testidPrefix="comments-opt" />
          </details>
        ) : null}
        {params[idp] && problems.length ? <div className="muted small">{problems.join('; ')}</div> : null}
        <ErrorBox error={err} />
        {walk && s.target ? <WalkBar walk={walk} target={s.target} /> : null}
      </div>
      {cat.isLoading ? (
        <Skeleton />
      ) : !query ? (
        <Empty title="Read a post’s comments">
          Paste a post URL (or open a post in Search or Profiles and choose “Comments…”). Comments come with sentiment, question,
          purchase-intent and complaint labels. Try it in the sandbox: search
          <b> running shoes</b>, open a result, then “Comments…”.
        </Empty>
      ) : (
        <>
          {s.receipts ? (
            <TopStrip>
              <div className="panel" data-testid="switch-receipts">
                <strong>
                  Switch receipts · {s.receipts.length} comment{s.receipts.length === 1 ? '' : 's'} where the author says they left{' '}
                  {params.switch_from}
                </strong>
                <div className="receipts">
                  {s.receipts.length === 0 ? (
                    <div className="muted small">None found on this page (non-switch and low-confidence comments are left out).</div>
                  ) : null}
                  {s.receipts.map((r) => (
                    <div key={r.comment_id} className="receipt">
                      “{r.text}”{' '}
                      <span className="muted small">
                        — reason: {r.reason}
                        {r.destination ? ` · went to ${r.destination}` : ''}
                      </span>{' '}
                      <LinkOut url={safeHttpUrl(r.link)} />
                    </div>
                  ))}
                </div>
              </div>
            </TopStrip>
          ) : null}
          {loaded.length ? (
            <TopStrip>
              <div className="charts">
                <StackedChart
                  title="Sentiment over time (loaded comments)"
                  data={sentiment.data}
                  series={sentiment.series}
                  testid="chart-sentiment"
                  height={130}
                />
              </div>
            </TopStrip>
          ) : null}
          {rows.isLoading ? (
            <Skeleton />
          ) : loaded.length === 0 ? (
            <Empty
              title={walk?.status === 'running' ? 'Reading…' : walk?.error ? 'Stopped before any comments' : 'No comments'}
              testid={walk?.error && walk.status !== 'running' ? 'stopped-state' : undefined}
            >
              {walk?.status === 'running'
                ? 'Rows appear as pages arrive.'
                : walk?.error
                  ? 'The walk did not finish: the bar above names the cause and the way out.'
                  : 'This post has no public comments on the pages read.'}
            </Empty>
          ) : (
            <ResultsPane
              rows={loaded}
              variant="comment"
              allowCards={false}
              threaded
              exportQuery={query}
              hasMore={rows.hasNextPage}
              fetchingMore={rows.isFetchingNextPage}
              onLoadMore={() => void rows.fetchNextPage()}
              key={s.walkId ?? s.callId ?? ''}
            />
          )}
        </>
      )}
    </div>
  );
}
