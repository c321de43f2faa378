/** Explorer: every catalogue endpoint by network, a generated form, the price, quote (free), call, save, watch. */
import { useMemo, useState } from 'react';
import { create } from 'zustand';
import type { CatalogueEndpoint } from '../../../shared/api-types';
import type { Quote, Target } from '../../../shared/contract';
import { cleanParams, credits, endpointPath, usable, validateParams } from '../lib/catalogue';
import { errorText } from '../lib/api';
import { creditRange, fmtExact } from '../lib/format';
import { useApproveSpend, useCallPrice, useCatalogue } from '../queries/hooks';
import { useQuoteNow, useSingleCall } from '../queries/calls';
import { useTakeHandoff } from '../stores/handoff';
import { Empty, ErrorBox, ErrorText, Skeleton, SpendButton } from '../components/cells';
import { ParamForm } from '../components/ParamForm';
import { WatchButton } from './WatchButton';

interface ExplorerState {
  key: string | null;
  values: Record<string, string>;
  filter: string;
  set: (p: Partial<ExplorerState>) => void;
}
const useExplorer = create<ExplorerState>((set) => ({ key: null, values: {}, filter: '', set: (p) => set(p) }));

const keyOf = (e: CatalogueEndpoint) => `${e.platform} ${endpointPath(e)}`;

export function ExplorerView() {
  const cat = useCatalogue();
  const s = useExplorer();
  const eps = useMemo(() => usable(cat.data), [cat.data]);
  const groups = useMemo(() => {
    const words = s.filter.toLowerCase().split(/\s+/).filter(Boolean);
    const m = new Map<string, CatalogueEndpoint[]>();
    for (const e of eps) {
      const hay = `${e.platform} ${endpointPath(e)} ${e.label} ${e.description} ${e.group}`.toLowerCase();
      if (!words.every((w) => hay.includes(w))) continue;
      m.set(e.platform, [...(m.get(e.platform) ?? []), e]);
    }
    return [...m.entries()]
      .sort((a, b) => a[0].localeCompare(b[0]))
      .map(([p, list]) => [p, list.sort((a, b) => a.order - b.order)] as const);
  }, [eps, s.filter]);
  const ep = eps.find((e) => keyOf(e) === s.key) ?? null;
  useTakeHandoff('explorer', (handoff) => s.set({ key: `${handoff.platform} ${handoff.endpoint}`, values: handoff.params }));

  const params = cleanParams(s.values);
  const problems = ep ? validateParams(ep, params) : [];
  const target: Target | null = ep && problems.length === 0 ? { platform: ep.platform, endpoint: endpointPath(ep), params } : null;
  const price = useCallPrice(target);
  const approve = useApproveSpend();
  const [singleCall, quoteNow] = [useSingleCall(), useQuoteNow()];
  const [quote, setQuote] = useState<Quote | null>(null);
  const [answer, setAnswer] = useState<string | null>(null);
  const [meta, setMeta] = useState<string | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const doQuote = async () => {
    if (!target) return;
    setErr(null);
    try {
      setQuote(await quoteNow(target));
    } catch (e) {
      setErr(errorText(e));
    }
  };
  const doCall = async (save: boolean) => {
    if (!target || !ep) return;
    setErr(null);
    setBusy(true);
    try {
      const q = await quoteNow(target);
      setQuote(q);
      if (
        !(await approve({
          what: `Call ${ep.platform}/${endpointPath(ep)}`,
          creditsMin: q.creditsMin,
          creditsMax: q.creditsMax,
          balance: q.balance,
          servedFromArchive: q.servedFromArchive,
        }))
      )
        return;
      const r = await singleCall(target, 'explorer', { save });
      setAnswer(JSON.stringify(r.envelope, null, 2));
      const used = r.envelope.credits_used;
      setMeta(
        `${r.fromArchive ? 'Served from the archive — cost nothing' : `Cost ${creditRange(used, used)}`}${r.envelope.cached ? ' · shared cache' : ''}${r.envelope.free_call ? ' · free call' : ''}${r.envelope.idempotent_replay ? ' · replay' : ''} · request ${r.envelope.request_id}${save ? ` · ${fmtExact(r.newItems)} new items saved to the library` : ''}${r.unreadable ? ` · ${fmtExact(r.unreadable)} row(s) without an id of their own kept raw in the stored answer, not in the library` : ''}`,
      );
    } catch (e) {
      setErr(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="view">
      <div className="split">
        <div className="sidelist" data-testid="explorer-list">
          <div style={{ padding: 8, position: 'sticky', top: 0, background: 'var(--panel)', zIndex: 3 }}>
            <input
              value={s.filter}
              onChange={(e) => s.set({ filter: e.target.value })}
              placeholder={`Filter ${eps.length} endpoints…`}
              style={{ width: '100%' }}
              data-testid="explorer-filter"
              data-main-query
              aria-label="Filter endpoints"
            />
          </div>
          {cat.isLoading ? <Skeleton /> : null}
          <ErrorBox error={cat.error} onRetry={() => void cat.refetch()} />
          {groups.map(([platform, list]) => (
            <div key={platform}>
              <div className="group">
                {platform} · {list.length}
              </div>
              {list.map((e) => (
                <button
                  key={e.path}
                  className={`item ${keyOf(e) === s.key ? 'active' : ''}`}
                  onClick={() => {
                    s.set({ key: keyOf(e), values: {} });
                    setQuote(null);
                    setAnswer(null);
                    setMeta(null);
                    setErr(null);
                  }}
                  data-testid="explorer-endpoint"
                  data-endpoint={keyOf(e)}
                  title={e.description}
                >
                  <span className="mono">{endpointPath(e)}</span> <span className="muted small">{priceText(e)}</span>
                </button>
              ))}
            </div>
          ))}
        </div>
        <div className="page">
          {!ep ? (
            <Empty title="Pick an endpoint">
              Every endpoint the service lists, with a form built from its parameters. Quoting is free. Try <b>photo_net profile</b> with
              handle <b>nasa</b>.
              <button className="btn small" data-testid="try-example" onClick={() => s.set({ filter: 'photo_net profile' })}>
                Find it
              </button>
            </Empty>
          ) : (
            <>
              <div>
                <h3>
                  <span className="mono">
                    {ep.platform}/{endpointPath(ep)}
                  </span>{' '}
                  <span className="muted small">{ep.label}</span>
                </h3>
                <div className="muted">{ep.description}</div>
                <div className="small">
                  Price: <b data-testid="explorer-price">{priceText(ep)}</b> per call · tier {ep.tier} ·{' '}
                  {ep.paginates ? 'paginates' : 'single page'} · repeat free for {Math.round(ep.cache_ttl_seconds / 3600) || '<1'} h
                </div>
              </div>
              <form
                onSubmit={(e) => {
                  e.preventDefault();
                  void doQuote();
                }}
              >
                <ParamForm
                  endpoint={ep}
                  values={s.values}
                  onChange={(values) => s.set({ values })}
                  testidPrefix="explorer-param"
                  onSubmit={() => void doQuote()}
                />
              </form>
              {problems.length && Object.keys(params).length ? <div className="muted small">{problems.join('; ')}</div> : null}
              <div className="row gap wrap">
                <button className="btn" onClick={() => void doQuote()} disabled={!target} data-testid="explorer-quote">
                  Quote (free)
                </button>
                <SpendButton
                  label="Call"
                  price={price.text}
                  onClick={() => void doCall(false)}
                  disabled={!target || busy}
                  testid="explorer-call"
                />
                <SpendButton
                  label="Save to library"
                  price={price.text}
                  onClick={() => void doCall(true)}
                  disabled={!target || busy}
                  testid="explorer-save"
                  primary={false}
                />
                <WatchButton
                  target={ep.paginates ? target : null}
                  label={`${ep.platform}/${endpointPath(ep)} ${Object.values(params).join(' ')}`.trim()}
                />
              </div>
              {quote ? (
                <div className="panel small" data-testid="explorer-quote-result">
                  <div>
                    Quote:{' '}
                    <b>
                      {quote.servedFromArchive ? 'free — Loupe already holds this answer' : creditRange(quote.creditsMin, quote.creditsMax)}
                    </b>
                    {quote.balance != null ? ` · balance ${fmtExact(quote.balance)}` : ''}
                  </div>
                  {quote.estimate ? (
                    <div className="muted">
                      labels: {quote.estimate.rows_expected} rows expected ({quote.estimate.rows_cached} already judged) · base{' '}
                      {fmtExact(quote.estimate.base_credits)} + labels{' '}
                      {creditRange(quote.estimate.label_credits_min, quote.estimate.label_credits_max)}
                    </div>
                  ) : null}
                </div>
              ) : null}
              <ErrorText text={err} testid="error" />
              {meta ? (
                <div className="small" data-testid="explorer-meta">
                  {meta}
                </div>
              ) : null}
              {answer ? (
                <pre className="raw raw-answer" data-testid="explorer-answer">
                  {answer}
                </pre>
              ) : null}
            </>
          )}
        </div>
      </div>
    </div>
  );
}

function priceText(e: CatalogueEndpoint): string {
  const c = credits(e);
  return creditRange(c.min, c.max);
}
