/** Profiles: look up a profile (one call, priced), walk its feeds, charts, "Fetch newer" (incremental), "Watch this". */
import { useMemo, useState } from 'react';
import { create } from 'zustand';
import type { CallResult, Target } from '../../../shared/contract';
import type { LibraryQuery } from '../../../shared/query';
import { accepts, endpointPath, feedEndpoints, identityParam, platformsOf, profileEndpoint, usable } from '../lib/catalogue';
import { get, isObj, num, str, type Rec } from '../lib/records';
import { recordAuthor, recordFollowers } from '../../../shared/record-fields';
import { creditRange, safeHttpUrl } from '../lib/format';
import { useApproveSpend, useCallPrice, useCatalogue, useLibraryRows, useLoupe, useWalkPrice } from '../queries/hooks';
import { useQuoteNow, useSingleCall } from '../queries/calls';
import { useUi } from '../stores/ui';
import { useTakeHandoff } from '../stores/handoff';
import { Empty, ErrorBox, Field, LinkOut, Name, Num, Skeleton, SpendButton, When } from '../components/cells';
import { showBidiControls } from '../lib/words';
import { RemotePicture } from '../components/RemoteImage';
import { PagesField, QueryForm, TopStrip } from '../components/Controls';
import { EndpointSelect, NetworkSelect, useDefaultPlatform } from '../components/NetworkPicker';
import { useStartWalk, useWalk, WalkBar } from '../components/Walk';
import { SeriesChart } from '../components/Charts';
import { ResultsPane } from './ResultsPane';
import { WatchButton } from './WatchButton';

interface ProfileState {
  platform: string;
  handle: string;
  feed: string;
  pages: number;
  profile: CallResult | null;
  walkId: string | null;
  walkTarget: Target | null;
  /** library source tag for this profile's walks: all its feed rows across walks */
  source: string | null;
  set: (p: Partial<ProfileState>) => void;
}

const useProfile = create<ProfileState>((set) => ({
  platform: '',
  handle: '',
  feed: '',
  pages: 1,
  profile: null,
  walkId: null,
  walkTarget: null,
  source: null,
  set: (p) => set(p),
}));

/** The profile record inside an answer: data.profile, data.user, data.author, or data itself. */
function profileRecord(env: CallResult | null): Rec | null {
  const d = env?.envelope.data;
  if (!isObj(d)) return null;
  for (const k of ['profile', 'user', 'author', 'channel', 'page', 'account']) if (isObj(d[k])) return d[k] as Rec;
  if (isObj(d.post) && isObj((d.post as Rec).author)) return (d.post as Rec).author as Rec;
  return d;
}

export function ProfilesView() {
  const cat = useCatalogue();
  const s = useProfile();
  const platforms = useMemo(() => platformsOf(usable(cat.data).filter((e) => profileEndpoint(cat.data, e.platform))), [cat.data]);
  const pep = s.platform ? profileEndpoint(cat.data, s.platform) : null;
  const feeds = useMemo(() => (s.platform ? feedEndpoints(cat.data, s.platform) : []), [cat.data, s.platform]);
  const feed = feeds.find((f) => endpointPath(f) === s.feed) ?? feeds[0] ?? null;
  const approve = useApproveSpend();
  const [singleCall, quoteNow] = [useSingleCall(), useQuoteNow()];
  const start = useStartWalk();
  const toast = useUi((u) => u.toast);
  const [busy, setBusy] = useState(false);
  const [err, setErr] = useState<unknown>(null);

  useTakeHandoff('profile', (handoff) =>
    s.set({ platform: handoff.platform, handle: handoff.handle.replace(/^@/, ''), profile: null, walkId: null, source: null }),
  );
  useDefaultPlatform(platforms, s.platform, (platform) => s.set({ platform }));

  const handle = s.handle.trim().replace(/^@/, '');
  const profTarget: Target | null =
    pep && handle ? { platform: s.platform, endpoint: endpointPath(pep), params: { [identityParam(pep)]: handle } } : null;
  const profPrice = useCallPrice(profTarget);
  const feedTarget: Target | null =
    feed && handle ? { platform: s.platform, endpoint: endpointPath(feed), params: { [identityParam(feed)]: handle } } : null;
  const feedPrice = useWalkPrice(feedTarget, s.pages);
  const sourceTag = `profile:${s.platform}/${handle}`.slice(0, 120);

  const lookup = async () => {
    if (!profTarget) return;
    setErr(null);
    // another handle: the previous profile, its feed and charts leave the screen now, so a
    // failed lookup (not found…) never shows someone else's profile (issue 14 #7)
    if (s.source !== sourceTag) s.set({ profile: null, walkId: null, walkTarget: null, source: null });
    setBusy(true);
    try {
      const q = await quoteNow(profTarget);
      if (
        !(await approve({
          what: `Look up @${handle} on ${s.platform}`,
          creditsMin: q.creditsMin,
          creditsMax: q.creditsMax,
          balance: q.balance,
          servedFromArchive: q.servedFromArchive,
        }))
      )
        return;
      const r = await singleCall(profTarget, sourceTag);
      s.set({ profile: r, source: sourceTag });
      const used = r.envelope.credits_used;
      toast(
        'info',
        `Profile loaded · cost ${r.fromArchive ? 'nothing (held in Loupe)' : r.envelope.cached && used === 0 ? 'nothing (cached)' : r.envelope.free_call ? 'a free call' : creditRange(used, used)}`,
      );
    } catch (e) {
      s.set({ profile: null, walkId: null, walkTarget: null, source: null });
      setErr(e);
    } finally {
      setBusy(false);
    }
  };

  const walkFeed = async (extra: Record<string, string> = {}, what?: string) => {
    if (!feedTarget) return;
    const t = { ...feedTarget, params: { ...feedTarget.params, ...extra } };
    const w = await start(
      t,
      sourceTag,
      s.pages,
      what ?? `Walk ${feed ? endpointPath(feed) : 'the feed'} of @${handle} (${s.pages} page${s.pages === 1 ? '' : 's'})`,
    );
    if (w) s.set({ walkId: w.walkId, walkTarget: t, source: sourceTag });
  };

  const query: LibraryQuery | null = s.source ? { source: { type: 'source', id: s.source }, kinds: undefined } : null;
  const newest = useLoupe(
    'library.query',
    { ...(query ?? {}), sort: { field: 'published_at', dir: 'desc' }, limit: 1 },
    { enabled: !!query },
  );
  const fetchNewer = async () => {
    const top = newest.data?.rows[0];
    if (!top || !feed) return walkFeed();
    if (accepts(feed, 'stop_at_id')) return walkFeed({ stop_at_id: top.id }, `Fetch posts newer than the newest held (${top.id})`);
    const pub = top.publishedAt !== null ? new Date(top.publishedAt).toISOString() : null;
    if (pub && accepts(feed, 'since')) return walkFeed({ since: pub }, `Fetch posts since ${pub}`);
    toast('warning', 'This feed does not accept stop_at_id or since: fetching the first pages again.');
    return walkFeed();
  };

  const walk = useWalk(s.walkId);
  const rows = useLibraryRows(query);
  const loaded = rows.data?.pages.flatMap((p) => p.rows) ?? [];
  const [engField, setEngField] = useState<'likes' | 'views' | 'comments'>('likes');
  const eng = useLoupe(
    'library.engagement',
    { query: query ?? {}, bucket: 'day', field: engField },
    { enabled: !!query && loaded.length > 0, keepPrevious: true },
  );
  const intent = useLoupe(
    'library.labelDistribution',
    { query: query ?? {}, family: 'intent', field: 'label' },
    { enabled: !!query && loaded.length > 0 },
  );
  const niche = useLoupe(
    'library.labelDistribution',
    { query: query ?? {}, family: 'niche', field: 'label' },
    { enabled: !!query && loaded.length > 0 },
  );
  const sponsored = useLoupe(
    'library.labelDistribution',
    { query: query ?? {}, family: 'sponsored', field: 'undisclosed' },
    { enabled: !!query && loaded.length > 0 },
  );

  const prof = profileRecord(s.profile);
  return (
    <div className="view">
      <div className="controls">
        <QueryForm onSubmit={lookup}>
          <Field label="Network">
            <NetworkSelect
              value={s.platform}
              platforms={platforms}
              onChange={(platform) => s.set({ platform, feed: '', profile: null, walkId: null, source: null })}
              testid="profile-platform"
            />
          </Field>
          <Field label={pep ? identityParam(pep) : 'handle'}>
            <input
              value={s.handle}
              onChange={(e) => s.set({ handle: e.target.value })}
              placeholder="nasa"
              data-testid="profile-handle"
              data-main-query
              aria-label="Handle"
            />
          </Field>
          <SpendButton
            label="Look up"
            price={profPrice.text}
            onClick={() => void lookup()}
            disabled={!profTarget || busy}
            testid="profile-lookup"
          />
          <WatchButton target={feedTarget} label={`@${handle} on ${s.platform}`} />
        </QueryForm>
        <ErrorBox error={err} />
        {prof ? <ProfileCard p={prof} unavailable={s.profile?.envelope.unavailable ?? []} /> : null}
        {handle && feeds.length ? (
          <div className="row gap wrap">
            <Field label="Feed">
              <EndpointSelect
                value={feed ? endpointPath(feed) : ''}
                endpoints={feeds}
                onChange={(path) => s.set({ feed: path })}
                testid="profile-feed"
              />
            </Field>
            <PagesField value={s.pages} onChange={(pages) => s.set({ pages })} testid="profile-pages" />
            <SpendButton
              label="Walk feed"
              price={feedPrice.text}
              onClick={() => void walkFeed()}
              disabled={!feedTarget}
              testid="profile-walk"
            />
            {loaded.length && feed && (accepts(feed, 'stop_at_id') || accepts(feed, 'since')) ? (
              <SpendButton
                label="Fetch newer"
                price={feedPrice.text ? `≤ ${feedPrice.text}` : ''}
                onClick={() => void fetchNewer()}
                testid="profile-newer"
                primary={false}
                title="Walk from the newest post back to the newest one already held (stop_at_id / since): pages never fetched cost nothing"
              />
            ) : null}
          </div>
        ) : null}
        {walk && s.walkTarget ? <WalkBar walk={walk} target={s.walkTarget} /> : null}
      </div>
      {cat.isLoading ? (
        <Skeleton />
      ) : !query ? (
        <Empty title="Look up a profile">
          Choose a network, type a handle and look it up; then walk its posts, reels or videos into the table. Try <b>nasa</b> in the
          sandbox.
          <button className="btn small" data-testid="try-example" onClick={() => s.set({ handle: 'nasa' })}>
            nasa
          </button>
        </Empty>
      ) : (
        <>
          {loaded.length ? (
            <TopStrip>
              <div className="charts four" data-testid="profile-charts">
                <div className="chart-with-control">
                  <select
                    value={engField}
                    onChange={(e) => setEngField(e.target.value as typeof engField)}
                    aria-label="Engagement measure"
                    className="small chart-control"
                  >
                    <option value="likes">likes</option>
                    <option value="views">views</option>
                    <option value="comments">comments</option>
                  </select>
                  <SeriesChart title={`${engField} over time`} data={eng.data} testid="chart-engagement" height={120} />
                </div>
                <SeriesChart
                  title="Intent mix"
                  data={intent.data}
                  kind="bar"
                  testid="chart-intent"
                  unit="posts"
                  height={120}
                  label={{ family: 'intent', field: 'label' }}
                />
                <SeriesChart
                  title="Niche mix"
                  data={niche.data}
                  kind="bar"
                  testid="chart-niche"
                  unit="posts"
                  height={120}
                  label={{ family: 'niche', field: 'label' }}
                />
                <SeriesChart
                  title="Undisclosed sponsorship"
                  data={sponsored.data}
                  kind="bar"
                  testid="chart-sponsored"
                  unit="posts"
                  height={120}
                  label={{ family: 'sponsored', field: 'undisclosed' }}
                />
              </div>
            </TopStrip>
          ) : null}
          {rows.isLoading ? (
            <Skeleton />
          ) : loaded.length === 0 ? (
            <Empty title={walk?.status === 'running' ? 'Walking…' : 'No posts held yet'}>
              Walk a feed to fill the table; the price is on the button.
            </Empty>
          ) : (
            <ResultsPane
              rows={loaded}
              variant="post"
              exportQuery={query}
              exportWhat="this profile’s posts"
              hasMore={rows.hasNextPage}
              fetchingMore={rows.isFetchingNextPage}
              onLoadMore={() => void rows.fetchNextPage()}
            />
          )}
        </>
      )}
    </div>
  );
}

function ProfileCard({ p, unavailable }: { p: Rec; unavailable: string[] }) {
  const why = (f: string) => (unavailable.some((u) => u.endsWith(f)) ? `This network does not provide ${f}` : undefined);
  const avatar = safeHttpUrl(str(p.avatar_url) ?? str(p.profile_pic_url) ?? str(get(p, 'author.avatar_url')));
  // the account's names and followers as the archive extracts a profile's (src/shared/record-fields.ts)
  const account = recordAuthor('profile', p);
  const username = account.username;
  const name = account.displayName ?? str(p.full_name);
  const bio = str(p.bio) ?? str(p.biography) ?? str(get(p, 'author.bio'));
  const verified = p.verified ?? get(p, 'author.verified');
  const email = str(get(p, 'ext.public_email')) ?? str(get(p, 'author.ext.public_email'));
  const link = safeHttpUrl(str(p.url) ?? str(p.external_url) ?? str(get(p, 'ext.bio_link')));
  return (
    <div className="panel profile-card" data-testid="profile-card">
      {avatar ? <RemotePicture src={avatar} alt="" testid="profile-avatar" /> : null}
      <div style={{ flex: 1, minWidth: 0 }}>
        <div className="row gap">
          <strong data-testid="profile-name">
            <Name text={name ?? username} />
          </strong>
          {username ? (
            <span className="muted" data-testid="profile-username">
              <Name text={username} prefix="@" />
            </span>
          ) : null}
          {verified === true ? (
            <span className="chip tone-info">verified</span>
          ) : verified === false ? (
            <span className="chip tone-muted">not verified</span>
          ) : null}
        </div>
        {bio ? (
          <div className="profile-bio" dir="auto">
            {showBidiControls(bio)}
          </div>
        ) : null}
        <div className="row gap wrap small">
          <span>
            <span className="muted">followers</span> <Num v={recordFollowers(p)} why={why('followers')} />
          </span>
          <span>
            <span className="muted">following</span> <Num v={num(p.following) ?? num(get(p, 'author.following'))} why={why('following')} />
          </span>
          <span>
            <span className="muted">posts</span> <Num v={num(p.posts_count) ?? num(p.post_count) ?? num(p.media_count)} />
          </span>
          <span>
            <span className="muted">joined</span> <When v={str(p.joined_at) ?? str(get(p, 'author.joined_at'))} why={why('joined_at')} />
          </span>
          {email ? (
            <span>
              <span className="muted">contact</span> {email}
            </span>
          ) : null}
          <LinkOut url={link} />
        </div>
      </div>
    </div>
  );
}
