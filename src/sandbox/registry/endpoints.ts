/**
 * Every endpoint the spec names, on all 15 served networks (placeholder names).
 * Sources in the spec: the per-network tables, the "Also named" list, the paginated-endpoints
 * table (native paging params in brackets), "Incremental sync", Pagination rule 6 and the
 * "Other networks" table. Where the spec gives no price or parameters the row says
 * `assumed: '...'` and the catalogue description carries "(assumed: ...)". See
 * docs/sandbox-registry.md for the full list of choices.
 */
import type { Platform } from '../../shared/api-types';
import type { EndpointDef } from '../types';
import { build, BY_OWNER, list, POST_SEARCH, single, TTL, type Row } from './build';
import { SMALL_NETWORKS } from './small-networks';
import { boolParam, enumParam, intParam, param, stringParam } from './params';

/** Search rows that are accounts / groups: relevance only. */
const REL = { relevance: true } as const;
/** A user feed with incremental sync and the feed options. */
const SYNC_FEED = { sync: true, feedOptions: true } as const;

const PRICE_ASSUMED = 'price not given by the spec';

// World traits (EndpointDef.world, registry/traits.ts) shared by several rows.
/** Account search: a sample sized by the query, handles echoing it. */
const FIND_ACCOUNTS = { audience: 'sample', search: true } as const;
const FOLLOWING = { audience: 'following' } as const;
/** Profile plus latest posts: the profile and metrics ride in data.ext. */
const PROFILE_FULL = { attach: 'profile_metrics' } as const;
/** The photo network's /full lists carry per-item share counts. */
const FULL_SHARES = ['engagement.shares'];

const COUNTRY_CODES = [
  'US',
  'FR',
  'DE',
  'IT',
  'ES',
  'GB',
  'AR',
  'AU',
  'BR',
  'CA',
  'CO',
  'EG',
  'ID',
  'IL',
  'JP',
  'KR',
  'MY',
  'MX',
  'PH',
  'SA',
  'SG',
  'ZA',
  'TW',
  'TH',
  'TR',
  'AE',
  'VN',
];
const INDUSTRIES = [
  'education',
  'vehicle-and-transportation',
  'baby-kids-and-maternity',
  'beauty-and-personal-care',
  'tech-and-electronics',
  'travel',
  'household-products',
  'pets',
  'home-improvement',
  'apparel-and-accessories',
  'news-and-entertainment',
  'games',
  'food-and-beverage',
  'sports-and-outdoor',
  'health',
];

const safeUrl = () => boolParam('safe_url', 'Return media URLs that are safe to embed/download.');

// ---------------------------------------------------------------------------------------------
// prettier-ignore
const photo: Row[] = [
  { path: 'profile', group: 'profiles', label: 'Profile', credits: 20, req: ['handle'], out: single('profile', 'profile'), assumed: PRICE_ASSUMED,
    desc: 'Bio, integer follower count in author.followers, following count, picture URL, verification, author.ext.public_email from the bio.' },
  { path: 'profile/about', group: 'profiles', label: 'Profile about', credits: 20, req: ['handle'], out: single('profile', 'profile'), world: { profile: 'about' }, assumed: PRICE_ASSUMED,
    desc: 'Country, month joined, published contact, follower count, lifetime post count.' },
  { path: 'profile/posts', group: 'posts', label: 'Profile posts', credits: [20, 340], req: ['handle'], out: list('user_posts'),
    paging: 'next_max_id', ...SYNC_FEED, labels: 'post', ttl: TTL.content,
    include: { tokens: ['audio'], desc: '`audio`: look up audio on reels/videos (photos and carousels never looked up; adds seconds; see data.hydration).' },
    desc: 'Recent posts of an account, pinned first then newest first; no share counts. trim omits ext.coauthors and sets flags.pinned null.' },
  { path: 'post', group: 'posts', label: 'Post', credits: 20, req: ['url'], out: single('post', 'post'), assumed: PRICE_ASSUMED,
    desc: 'One post: caption, views on videos and reels, likes, comments, media, author, tagged users.' },
  { path: 'post/comments', group: 'comments', label: 'Post comments', credits: [100, 380], req: ['url'], out: list('comments'), paging: true, labels: 'comment', topRepeats: true,
    opt: [
      enumParam('sort', ['top', 'recent'], '`top` most-liked first (a top walk repeats comments past the popular head), `recent` newest first; use recent to page a whole thread.', 'top'),
      safeUrl(),
      intParam('scan_pages', 1, 3, 'Read that many pages, drop repeats, return sorted by likes (top) or newest first (recent); see data.scan.', 1),
    ],
    desc: 'Comments of a post, reel or tv link.' },
  { path: 'comment', group: 'comments', label: 'Comment', credits: 20, oneOf: ['comment_url', 'post_url'], out: single('comment', 'post'), assumed: PRICE_ASSUMED,
    desc: "One comment plus the post's total comment count." },
  { path: 'basic-profile', group: 'profiles', label: 'Basic profile', credits: 10, req: ['userId'], out: single('profile', 'profile'), world: { profile: 'basic' }, assumed: PRICE_ASSUMED,
    desc: 'Username, full name, picture.' },
  { path: 'profile/reels', group: 'posts', label: 'Profile reels', credits: [20, 360], oneOf: ['user_id', 'handle'], out: list('user_posts'), world: { kinds: ['reel'] }, trimMedia: true,
    paging: 'max_id', ...SYNC_FEED, labels: 'post', ttl: TTL.content,
    include: { tokens: ['stats', 'audio'], desc: '`stats`: fills engagement.shares, engagement.saves, ext.repost_count, remix counter and ext.music_id (second source: a cursor from a request without it cannot continue a walk with it); `audio`. Tokens combine, e.g. audio,stats.' },
    desc: 'Reels of an account; no share counts. user_id is faster. trim drops content.media_urls, content.duration_seconds, ext.coauthors, flags.pinned; cover stays in content.thumbnail_url.' },
  { path: 'highlights', group: 'media', label: 'Highlights', credits: 20, oneOf: ['user_id', 'handle'], out: list('generic_posts', 'object'), world: { item: 'highlight' }, assumed: PRICE_ASSUMED,
    desc: 'Highlight collections: title, cover, item count.' },
  { path: 'highlight/detail', group: 'media', label: 'Highlight detail', credits: 20, req: ['id'], out: list('generic_posts'), world: { gen: 'highlight' }, assumed: PRICE_ASSUMED,
    desc: 'Stories in a highlight.' },
  { path: 'search/reels', group: 'search', label: 'Search reels', credits: [20, 180], req: ['query'], out: list('search_posts'), world: { rowKind: 'reel' }, paging: 'page', maxPages: true, ...POST_SEARCH,
    desc: 'Reels by keyword; no share or save counts.' },
  { path: 'media/transcript', group: 'media', label: 'Media transcript', credits: 100, req: ['url'], out: single('transcript', 'transcript'), assumed: PRICE_ASSUMED,
    desc: 'Spoken words of a video or reel up to 2 minutes; no speech gives 404 with reason no_speech, free.' },
  { path: 'media/screen-text', group: 'media', label: 'Media screen text', credits: 100, req: ['url'], out: single('screen_text'), assumed: PRICE_ASSUMED,
    desc: "Text read from images by AI: photo, each carousel slide up to 10, or a reel's cover frame, per slide." },
  { path: 'user/embed', group: 'profiles', label: 'User embed', credits: 10, req: ['handle'], out: single('embed'), assumed: PRICE_ASSUMED,
    desc: 'Embeddable HTML snippet.' },
  { path: 'audio/reels', group: 'discovery', label: 'Reels using audio', credits: 20, req: ['audio_id'], out: list('generic_posts'), world: { rowKind: 'reel' }, paging: true,
    desc: 'Reels using one audio track.' },
  { path: 'search/hashtag', group: 'search', label: 'Search hashtag', credits: 100, req: ['hashtag'], out: list('search_posts'), paging: true, maxPages: true, ...POST_SEARCH,
    desc: 'Public posts with the hashtag; no share or save counts.' },
  { path: 'search/profiles', group: 'search', label: 'Search profiles', credits: [20, 500], req: ['query'], out: list('accounts', 'profile'), world: FIND_ACCOUNTS, profileKey: 'profile', paging: true, ...REL,
    desc: 'Profiles by keyword.' },
  { path: 'reels/trending', group: 'discovery', label: 'Trending reels', credits: 20, out: list('generic_posts'), world: { trending: true, rowKind: 'reel' }, assumed: PRICE_ASSUMED,
    desc: 'Trending reels.' },
  { path: 'followers', group: 'audience', label: 'Followers', credits: [100, 200], oneOf: ['handle', 'user_id'], out: list('accounts', 'profile'), paging: true,
    desc: 'Followers of an account.' },
  { path: 'following', group: 'audience', label: 'Following', credits: [100, 200], oneOf: ['handle', 'user_id'], out: list('accounts', 'profile'), world: FOLLOWING, paging: true,
    desc: 'Accounts followed.' },
  { path: 'similar', group: 'audience', label: 'Similar accounts', credits: 20, oneOf: ['handle', 'user_id'], out: list('accounts', 'profile'), world: { audience: 'similar' }, assumed: PRICE_ASSUMED,
    desc: 'Suggested similar accounts.' },
  { path: 'post/likers', group: 'audience', label: 'Post likers', credits: 100, req: ['url'], out: list('accounts', 'profile'), world: { audience: 'likers', attach: 'like_count' }, listSize: 100,
    desc: 'Sample of likers (about the first 100 only) plus the full like count.' },
  { path: 'post/stats', group: 'posts', label: 'Post stats', credits: 20, req: ['url'], out: single('stats'), assumed: PRICE_ASSUMED,
    desc: 'Likes, comments, and on video posts play count and share count.' },
  { path: 'tagged', group: 'posts', label: 'Tagged posts', credits: 100, oneOf: ['handle', 'user_id'], out: list('generic_posts'), paging: true,
    desc: 'Posts tagging the user.' },
  { path: 'location/posts', group: 'discovery', label: 'Location posts', credits: 100, req: ['location_id'], out: list('generic_posts'), paging: true, pageSize: 60,
    desc: 'Posts at a place, newest first, about 60 a page.' },
  { path: 'engagement', group: 'profiles', label: 'Engagement report', credits: 100, req: ['handle'], out: single('engagement'), assumed: PRICE_ASSUMED,
    desc: 'Computed engagement report with per-post breakdown.' },
  { path: 'search/location', group: 'search', label: 'Search locations', credits: 20, req: ['query'], out: list('places', 'place'), assumed: PRICE_ASSUMED,
    desc: 'Places: id, name, coordinates, title, subtitle.' },
  { path: 'search', group: 'search', label: 'Search (mixed)', credits: 20, req: ['query'], out: single('results'), assumed: PRICE_ASSUMED,
    desc: 'Mixed matches: accounts, hashtags, places.' },
  { path: 'search/popular', group: 'search', label: 'Search popular posts', credits: [20, 260], req: ['query'], out: list('search_posts'), paging: true, ...POST_SEARCH,
    desc: 'Popular posts for a keyword.' },
  { path: 'post/comment/replies', group: 'comments', label: 'Comment replies', credits: [20, 100], req: ['url', 'comment_id'], out: list('replies'), paging: true, labels: 'comment',
    desc: 'Replies under one comment.' },
  { path: 'username-suggestions', group: 'profiles', label: 'Username suggestions', credits: 20, req: ['query'], out: single('suggestions'), assumed: PRICE_ASSUMED,
    desc: 'Suggested available usernames.' },
  { path: 'search/music', group: 'search', label: 'Search music', credits: 100, req: ['query'], out: list('audio', 'audio'), paging: true,
    desc: 'Audio tracks.' },
  { path: 'stories', group: 'media', label: 'Stories', credits: 100, oneOf: ['handle', 'user_id'], out: list('generic_posts'), world: { gen: 'stories' }, opt: [safeUrl()],
    desc: 'Live stories; none live gives an empty list, not an error.' },
  { path: 'story/download', group: 'media', label: 'Story download', credits: 20, req: ['user_id', 'story_id'], out: single('story', 'post'), gettable: false,
    assumed: 'price not given by the spec; listed in the catalogue but not callable through the API (405)',
    desc: 'Full-resolution media for one story.' },
  { path: 'music/trending', group: 'discovery', label: 'Trending music', credits: 20, out: list('audio', 'audio'), assumed: PRICE_ASSUMED,
    desc: 'Chart of licensed tracks.' },
  { path: 'profile/full', group: 'profiles', label: 'Full profile', credits: 100, oneOf: ['handle', 'user_id'], out: list('user_posts'), world: { fill: FULL_SHARES, attach: 'profile_metrics' }, paging: true, ttl: TTL.content,
    assumed: 'parameters not given by the spec: one of handle | user_id; rows are the latest posts, data.ext carries the profile and metrics',
    desc: 'Profile plus latest 12 posts and computed metrics (engagement by views and by followers, cadence, top post, format mix).' },
  { path: 'profile/reels/full', group: 'posts', label: 'Profile reels (full)', credits: [100, 500], oneOf: ['user_id', 'handle'], out: list('user_posts'), world: { kinds: ['reel'], fill: FULL_SHARES }, paging: true,
    limit: { kind: 'collect', max: 50 }, assumed: 'identifier parameters not given by the spec: one of user_id | handle, as profile/reels',
    desc: 'Reels with per-item share counts; limit collects up to 50 rows across pages.' },
  { path: 'profile/posts/full', group: 'posts', label: 'Profile posts (full)', credits: [100, 500], req: ['handle'], out: list('user_posts'), world: { fill: FULL_SHARES }, paging: true,
    limit: { kind: 'collect', max: 50 }, assumed: 'identifier parameters not given by the spec: handle, as profile/posts',
    desc: 'Posts with per-item share counts; limit collects up to 50 rows across pages.' },
];

// ---------------------------------------------------------------------------------------------
// prettier-ignore
const shortVideo: Row[] = [
  { path: 'profile', group: 'profiles', label: 'Profile', credits: 20, oneOf: ['handle', 'user_id'], out: single('profile', 'profile'),
    assumed: 'endpoint not listed in the spec; added so short-video profiles can be read; price chosen',
    desc: 'Bio, followers, following, likes total, picture, verification.' },
  { path: 'post', group: 'posts', label: 'Video', credits: 20, req: ['url'], out: single('post', 'post'),
    assumed: 'endpoint not listed in the spec; added so one video can be read; price chosen',
    desc: 'One video: caption, views, likes, comments, shares, saves, music.' },
  { path: 'profile/videos', group: 'posts', label: 'Profile videos', credits: [20, 100], oneOf: ['handle', 'user_id'], out: list('user_posts'), paging: 'max_cursor', ...SYNC_FEED,
    desc: 'Videos of an account, pinned first then newest first.' },
  { path: 'post/comments', group: 'comments', label: 'Video comments', credits: [20, 140], req: ['url'], out: list('comments'), paging: true, labels: 'comment',
    desc: 'Comments of a video.' },
  { path: 'video/comment/replies', group: 'comments', label: 'Comment replies', credits: [20, 100], req: ['url', 'comment_id'], out: list('replies'), paging: true, labels: 'comment',
    assumed: 'parameters not given by the spec: url and comment_id', desc: 'Replies under one comment.' },
  { path: 'search', group: 'search', label: 'Search videos', credits: [20, 840], req: ['query'], out: list('search_posts'), paging: true, maxPages: true, ...POST_SEARCH,
    desc: 'Videos by keyword.' },
  { path: 'search/hashtag', group: 'search', label: 'Search hashtag', credits: [20, 100], req: ['hashtag'], out: list('search_posts'), paging: true, maxPages: true, ...POST_SEARCH,
    desc: 'Videos with the hashtag.' },
  { path: 'search/top', group: 'search', label: 'Search top', credits: 20, req: ['query'], out: list('search_posts'), paging: true, maxPages: true, ...POST_SEARCH,
    desc: 'Top results for a keyword.' },
  { path: 'search/users', group: 'search', label: 'Search users', credits: [20, 2000], req: ['query'], out: list('accounts', 'profile'), world: FIND_ACCOUNTS, paging: true, ...REL,
    desc: 'Accounts by keyword.' },
  { path: 'user/followers', group: 'audience', label: 'Followers', credits: 20, oneOf: ['handle', 'user_id'], out: list('accounts', 'profile'), paging: true,
    desc: 'Followers of an account.' },
  { path: 'user/following', group: 'audience', label: 'Following', credits: 20, oneOf: ['handle', 'user_id'], out: list('accounts', 'profile'), world: FOLLOWING, paging: true,
    desc: 'Accounts followed.' },
  { path: 'song/videos', group: 'discovery', label: 'Videos using a sound', credits: 20, req: ['music_id'], out: list('generic_posts'), paging: true,
    assumed: 'parameter name not given by the spec: music_id', desc: 'Videos using one sound.' },
  { path: 'adlibrary/search', group: 'ads', label: 'Ad library search', credits: [100, 340], req: ['query'], out: list('generic_posts'), world: { attach: 'ad' }, paging: true, ttl: TTL.search,
    desc: 'Ads matching a keyword.' },
  { path: 'collection/videos', group: 'discovery', label: 'Collection videos', credits: 20, req: ['collection_id'], out: list('generic_posts'), world: BY_OWNER, paging: 'max_cursor',
    assumed: 'parameter name not given by the spec: collection_id', desc: 'Videos in a collection.' },
  { path: 'playlist/videos', group: 'discovery', label: 'Playlist videos', credits: 20, req: ['playlist_id'], out: list('generic_posts'), world: BY_OWNER, paging: true,
    assumed: 'parameter name not given by the spec: playlist_id', desc: 'Videos in a playlist.' },
  { path: 'user/liked', group: 'posts', label: 'Liked videos', credits: 20, oneOf: ['handle', 'user_id'], out: list('generic_posts'), paging: true, ttl: TTL.content,
    desc: 'Liked videos, newest first; a hidden list gives a refunded not found.' },
  { path: 'location/posts', group: 'discovery', label: 'Location videos', credits: 20, req: ['location_id'], out: list('generic_posts'), paging: true,
    desc: 'Videos at a place.' },
  { path: 'effect/videos', group: 'discovery', label: 'Effect videos', credits: 20, req: ['effect_id'], out: list('generic_posts'), paging: true,
    assumed: 'parameter name not given by the spec: effect_id', desc: 'Videos using one effect.' },
  { path: 'search/music', group: 'search', label: 'Search music', credits: 20, req: ['query'], out: list('audio', 'audio'), paging: true,
    desc: 'Sounds by keyword.' },
  { path: 'profile/full', group: 'profiles', label: 'Full profile', credits: 100, oneOf: ['handle', 'user_id'], out: list('user_posts'), world: PROFILE_FULL, paging: true, ttl: TTL.content,
    assumed: 'parameters not given by the spec: one of handle | user_id', desc: 'Profile plus latest videos and computed metrics.' },
  { path: 'hashtags/popular', group: 'discovery', label: 'Popular hashtags', credits: [120, 1920], out: list('hashtags', 'hashtag'), ttl: TTL.search, listSize: 3,
    opt: [
      enumParam('countryCode', COUNTRY_CODES, 'Country board.', 'US'),
      enumParam('period', ['7', '30', '90'], 'Window in days; each window is a different board.', '7'),
      param('industry', 'string', 'Omit for the overall board of 3 hashtags, an industry slug, or `all` (overall plus all 15 industry boards).', {
        enum: [...INDUSTRIES, 'all'], example: 'travel',
      }),
    ],
    desc: 'Rows carry rank, window post and view counts, daily popularity curve, industry board, top creators.' },
  { path: 'effects', group: 'discovery', label: 'Effects', credits: 20, req: ['ids'], out: list('generic_posts', 'object'), world: { item: 'effect' }, listSize: 50, ttl: TTL.content,
    desc: 'Effects by id (up to 50); repeated ids collapse and unknown ids drop, so fewer rows can return; match by returned id.' },
];

// ---------------------------------------------------------------------------------------------
// prettier-ignore
const social: Row[] = [
  { path: 'profile', group: 'profiles', label: 'Page profile', credits: 20, req: ['url'], out: single('profile', 'profile'),
    opt: [stringParam('get_business_hours', 'Also return business hours when set.', 'true', 20)],
    desc: 'Page name, id, image, bio, followers, page likes.' },
  { path: 'profile/posts', group: 'posts', label: 'Page posts', credits: [20, 80], oneOf: ['url', 'pageId'], out: list('user_posts'), paging: true, ...SYNC_FEED, labels: 'post',
    include: { tokens: ['engagement'], desc: '`engagement` (one token): fills post.engagement.shares on every row, and engagement.views and content.duration_seconds on reels; event-link rows are not looked up.' },
    desc: 'Posts of a page or profile, newest first. Share counts are null without include=engagement.' },
  { path: 'post', group: 'posts', label: 'Post', credits: 20, req: ['url'], out: single('post', 'post'),
    opt: [boolParam('get_comments', 'Accepted; has no effect.'), boolParam('get_transcript', 'Accepted; has no effect.')],
    desc: 'One post.' },
  { path: 'post/comments', group: 'comments', label: 'Post comments', credits: 20, oneOf: ['url', 'feedback_id'], out: list('comments'), paging: true, labels: 'comment',
    desc: 'Comments of a post; feedback_id (from post) speeds the call; also returns feedback_id and expansion_token for the reply endpoint.' },
  { path: 'group/posts', group: 'groups', label: 'Group posts', credits: 20, oneOf: ['url', 'group_id'], out: list('generic_posts'), world: BY_OWNER, paging: true, pageSize: 3,
    opt: [enumParam('sort_by', ['TOP_POSTS', 'RECENT_ACTIVITY', 'CHRONOLOGICAL', 'CHRONOLOGICAL_LISTINGS'], 'Order of the group feed.')],
    desc: 'Posts of a group, 3-4 per page; no share counts.' },
  { path: 'search/groups', group: 'search', label: 'Search groups', credits: [20, 300], req: ['query'], out: list('groups', 'group'), noSiteOperator: true, paging: 'page', ...REL, ttl: TTL.search,
    include: { tokens: ['details'], desc: '`details` (one token): fills author.followers (members), author.bio, author.joined_at, author.ext.group.privacy_label, visibility_label, activity, numeric id, and the name where null.' },
    desc: 'Groups by keywords only; a site: operator is refused before billing.' },
  { path: 'search/pages', group: 'search', label: 'Search pages', credits: 20, req: ['query'], out: list('accounts', 'profile'), world: { ...FIND_ACCOUNTS, hideFollowers: true }, profileKey: 'profile', paging: true, ...REL, ttl: TTL.search,
    opt: [stringParam('location_uid', 'Restrict to a location id.', '110000000000001', 100)],
    desc: 'Pages by keyword; no follower counts.' },
  { path: 'adlibrary/search/companies', group: 'ads', label: 'Ad library companies', credits: 100, req: ['query'], out: list('advertisers', 'advertiser'), ttl: TTL.search,
    desc: 'Advertiser pages: page id, name, handle, verification badge, followers.' },
  { path: 'events', group: 'events', label: 'Events', credits: [20, 260], req: ['url'], out: list('events'), paging: true,
    opt: [enumParam('time', ['today', 'this_week', 'next_week'], 'Time window (default all time).')],
    include: { tokens: ['details'], desc: '`details` (one token): fills post.ext.event.description, address, city, latitude, longitude, hosts, host_context_text, category, privacy, is_canceled, attendance_count, and the host credit on post.author.display_name.' },
    desc: 'Events of a city or region events page: title, link, cover image, start time, venue, going and interested counts. Another description quotes 10-130 credits; 20-260 is used.' },
  { path: 'events/search', group: 'search', label: 'Search events', credits: 20, req: ['query'], out: list('events'), world: { search: true }, paging: true, ...REL,
    desc: 'Events by keyword, past events included; rows carry online and past flags (filter on is_past yourself).' },
  { path: 'post/transcript', group: 'media', label: 'Post transcript', credits: 100, req: ['url'], out: single('transcript', 'transcript'),
    assumed: 'parameters not given by the spec: url', desc: 'Transcript of a video post.' },
  { path: 'post/comment/replies', group: 'comments', label: 'Comment replies', credits: 20, req: ['feedback_id', 'expansion_token'], out: list('replies'), paging: true, labels: 'comment',
    assumed: 'price and parameters not given by the spec: feedback_id and expansion_token from post/comments', desc: 'Replies under one comment.' },
  { path: 'profile/events', group: 'events', label: 'Page events', credits: 20, req: ['url'], out: list('events'), paging: true, gettable: false,
    assumed: 'price and parameters not given by the spec; listed in the catalogue but not callable through the API (405)', desc: 'Events hosted by a page.' },
  { path: 'profile/photos', group: 'posts', label: 'Page photos', credits: 20, req: ['url'], out: list('generic_posts'), world: { gen: 'user_posts', kinds: ['photo'] }, paging: true,
    assumed: 'price and parameters not given by the spec', desc: 'Photos of a page.' },
  { path: 'profile/reels', group: 'posts', label: 'Page reels', credits: [20, 80], oneOf: ['url', 'pageId'], out: list('user_posts'), world: { kinds: ['reel'] }, paging: true, labels: 'post',
    assumed: 'price and parameters not given by the spec; as profile/posts without sync', desc: 'Reels of a page.' },
  { path: 'profile/reels/full', group: 'posts', label: 'Page reels (full)', credits: [100, 500], oneOf: ['url', 'pageId'], out: list('user_posts'), world: { kinds: ['reel'] }, paging: true,
    limit: { kind: 'collect', max: 50 }, assumed: 'price and identifier parameters not given by the spec',
    desc: 'Reels with per-item counts; limit collects up to 50 rows across pages.' },
  { path: 'group', group: 'groups', label: 'Group', credits: 20, oneOf: ['url', 'group_id'], out: single('group', 'group'),
    assumed: 'price and parameters not given by the spec', desc: 'One group: name, members, privacy, description.' },
  { path: 'adlibrary/ad', group: 'ads', label: 'Ad', credits: 20, req: ['ad_id'], out: single('ad'), gettable: false,
    assumed: 'price and parameters not given by the spec; listed in the catalogue but not callable through the API (405)', desc: 'One ad of the ad library.' },
  { path: 'adlibrary/company/ads', group: 'ads', label: 'Company ads', credits: 20, req: ['pageId'], out: list('generic_posts'), world: { byOwner: true, attach: 'ad' }, paging: true, ttl: TTL.search,
    assumed: 'price not given by the spec', desc: 'Ads of one advertiser page (where ads are counted).' },
];

// ---------------------------------------------------------------------------------------------
// prettier-ignore
const work: Row[] = [
  { path: 'profile', group: 'profiles', label: 'Profile', credits: 20, req: ['url'], out: single('profile', 'profile'),
    assumed: 'endpoint not listed in the spec (named indirectly by author.ext.urn of `profile`); price chosen',
    desc: 'Person or company profile; author.ext.urn is the id other endpoints accept.' },
  { path: 'profile/posts', group: 'posts', label: 'Profile posts', credits: 20, req: ['url'], out: list('user_posts'), paging: true,
    assumed: 'endpoint not listed in the spec (post lists are mentioned); price chosen', desc: "A profile's posts; post.url carries the activity id." },
  { path: 'post', group: 'posts', label: 'Post', credits: 20, req: ['url'], out: single('post', 'post'),
    assumed: 'endpoint not listed in the spec; price chosen', desc: 'One post by activity URL.' },
  { path: 'post/comments', group: 'comments', label: 'Post comments', credits: 100, req: ['url'], out: list('comments'), paging: true, labels: 'comment',
    assumed: 'endpoint not listed in the spec (comment_id comes "from post/comments"); price chosen as its replies endpoint', desc: 'Comments of a post.' },
  { path: 'post/comments/replies', group: 'comments', label: 'Comment replies', credits: 100, req: ['url', 'comment_id'], out: list('replies'), paging: true, labels: 'comment',
    desc: 'Replies under one comment (comment_id from post/comments). The url must carry the activity id.' },
  { path: 'post/reposts', group: 'posts', label: 'Post reposts', credits: 100, req: ['url'], out: list('generic_posts'), world: { attach: 'reposted_from' }, paging: 'page',
    desc: 'Reposts of a post; page is 1-based.' },
  { path: 'profile/comments', group: 'comments', label: 'Profile comments', credits: 100, req: ['url'], out: list('comments'), ttl: TTL.profile, labels: 'comment',
    opt: [stringParam('urn', 'author.ext.urn from profile; pass beside url to skip a lookup.', 'urn:li:person:ACoAA0000001', 200)],
    desc: 'Comments written by a profile, company or on a post.' },
  { path: 'profile/contact', group: 'profiles', label: 'Profile contact', credits: 100, req: ['url'], out: single('contact'), ttl: TTL.profile,
    desc: 'Websites, phones, address, and other contact fields; mostly empty unless filled in; no e-mail returned.' },
  { path: 'search/people', group: 'search', label: 'Search people', credits: 100, req: ['query'], out: list('accounts', 'profile'), world: FIND_ACCOUNTS, paging: true, pageSize: 10, ...REL,
    limit: { kind: 'cap', max: 10 }, assumed: 'price, required query and page size of 10 not given by the spec',
    desc: 'People by keyword; limit takes the top rows of a page.' },
];

// ---------------------------------------------------------------------------------------------
// prettier-ignore
const micro: Row[] = [
  { path: 'profile', group: 'profiles', label: 'Profile', credits: 20, req: ['handle'], out: single('profile', 'profile'),
    assumed: 'endpoint not listed in the spec; price chosen', desc: 'Bio, followers, following, picture, verification.' },
  { path: 'tweet', group: 'posts', label: 'Post', credits: 20, req: ['url'], out: single('post', 'post'),
    assumed: 'endpoint not listed in the spec; price chosen', desc: 'One post.' },
  { path: 'user/tweets', group: 'posts', label: 'User posts', credits: [20, 100], oneOf: ['handle', 'user_id'], out: list('user_posts'), paging: true, ...SYNC_FEED,
    desc: 'Posts of an account, pinned first then newest first.' },
  { path: 'search/tweets', group: 'search', label: 'Search posts', credits: [20, 180], req: ['query'], out: list('search_posts'), paging: true, maxPages: true, ...POST_SEARCH,
    desc: 'Posts by keyword.' },
  { path: 'tweet/replies', group: 'comments', label: 'Replies', credits: [20, 100], req: ['url'], out: list('comments'), paging: true, labels: 'comment',
    desc: 'Replies to a post.' },
  { path: 'user/media', group: 'posts', label: 'User media', credits: 20, oneOf: ['handle', 'user_id'], out: list('generic_posts'), world: { gen: 'user_posts', kinds: ['photo', 'video', 'carousel'] }, paging: true,
    desc: 'Posts with media of an account.' },
  { path: 'user/followers', group: 'audience', label: 'Followers', credits: 20, oneOf: ['handle', 'user_id'], out: list('accounts', 'profile'), paging: true,
    desc: 'Followers of an account.' },
  { path: 'user/following', group: 'audience', label: 'Following', credits: 20, oneOf: ['handle', 'user_id'], out: list('accounts', 'profile'), world: FOLLOWING, paging: true,
    desc: 'Accounts followed.' },
  { path: 'tweet/retweeters', group: 'audience', label: 'Reposters', credits: 20, req: ['url'], out: list('accounts', 'profile'), world: { audience: 'sample' }, paging: true,
    desc: 'Accounts that reposted a post.' },
  { path: 'search/users', group: 'search', label: 'Search users', credits: 20, req: ['query'], out: list('accounts', 'profile'), world: FIND_ACCOUNTS, paging: true, ...REL,
    desc: 'Accounts by keyword.' },
  { path: 'profile/full', group: 'profiles', label: 'Full profile', credits: 100, oneOf: ['handle', 'user_id'], out: list('user_posts'), world: PROFILE_FULL, paging: true, ttl: TTL.content,
    assumed: 'parameters not given by the spec: one of handle | user_id', desc: 'Profile plus latest posts and computed metrics.' },
];

// ---------------------------------------------------------------------------------------------
// prettier-ignore
const thread: Row[] = [
  { path: 'profile', group: 'profiles', label: 'Profile', credits: 20, req: ['handle'], out: single('profile', 'profile'), ttl: TTL.profile,
    desc: 'Bio, external bio link, followers, picture, verification.' },
  { path: 'user/posts', group: 'posts', label: 'User posts', credits: [20, 100], oneOf: ['handle', 'user_id'], out: list('user_posts'), paging: true, ...SYNC_FEED,
    assumed: 'price and identifier parameters not given by the spec (named under Incremental sync)', desc: 'Posts of an account, pinned first then newest first.' },
  { path: 'search', group: 'search', label: 'Search posts', credits: [20, 680], req: ['query'], out: list('search_posts'), paging: true, maxPages: true, ...POST_SEARCH,
    limit: { kind: 'collect', max: 100 }, desc: 'Posts by keyword; limit collects up to 100 rows across pages.' },
];

// ---------------------------------------------------------------------------------------------
const CT = 'continuationToken';
// prettier-ignore
const video: Row[] = [
  { path: 'channel', group: 'profiles', label: 'Channel', credits: 20, oneOf: ['handle', 'channel_id'], out: single('profile', 'profile'),
    assumed: 'endpoint not listed in the spec; price chosen', desc: 'Channel name, description, subscribers, video count, avatar.' },
  { path: 'video', group: 'posts', label: 'Video', credits: 20, req: ['url'], out: single('post', 'post'),
    assumed: 'endpoint not listed in the spec; price chosen', desc: 'One video: title, description, views, likes, comments, duration.' },
  { path: 'channel/videos', group: 'posts', label: 'Channel videos', credits: [20, 40], oneOf: ['handle', 'channel_id'], out: list('user_posts'), world: { kinds: ['video'] }, paging: CT, ...SYNC_FEED,
    desc: 'Videos of a channel, newest first.' },
  { path: 'video/comments', group: 'comments', label: 'Video comments', credits: [20, 100], req: ['url'], out: list('comments'), paging: CT, labels: 'comment',
    desc: 'Comments of a video.' },
  { path: 'video/comment/replies', group: 'comments', label: 'Comment replies', credits: [20, 100], req: ['url', 'comment_id'], out: list('replies'), paging: CT, labels: 'comment',
    assumed: 'parameters not given by the spec: url and comment_id', desc: 'Replies under one comment.' },
  { path: 'search', group: 'search', label: 'Search videos', credits: [20, 380], req: ['query'], out: list('search_posts'), paging: CT, maxPages: true, ...POST_SEARCH,
    desc: 'Videos by keyword.' },
  { path: 'channel/shorts', group: 'posts', label: 'Channel shorts', credits: [20, 40], oneOf: ['handle', 'channel_id'], out: list('user_posts'), world: { kinds: ['short'] }, paging: CT, ...SYNC_FEED,
    desc: 'Shorts of a channel, newest first.' },
  { path: 'playlist', group: 'discovery', label: 'Playlist', credits: [20, 220], req: ['playlist_id'], out: list('generic_posts'), world: BY_OWNER, paging: true,
    assumed: 'parameter name not given by the spec: playlist_id', desc: 'A playlist and its videos.' },
  { path: 'search/hashtag', group: 'search', label: 'Search hashtag', credits: [20, 220], req: ['hashtag'], out: list('search_posts'), paging: CT, maxPages: true, ...POST_SEARCH,
    desc: 'Videos with the hashtag.' },
  { path: 'channel/playlists', group: 'discovery', label: 'Channel playlists', credits: 20, oneOf: ['handle', 'channel_id'], out: list('generic_posts', 'object'), world: { item: 'playlist' }, paging: CT,
    desc: 'Playlists of a channel.' },
  { path: 'channel/lives', group: 'posts', label: 'Channel lives', credits: [20, 140], oneOf: ['handle', 'channel_id'], out: list('generic_posts'), world: { gen: 'user_posts', kinds: ['video'] }, paging: CT,
    desc: 'Live streams of a channel.' },
  { path: 'channel/community-posts', group: 'posts', label: 'Community posts', credits: 20, oneOf: ['handle', 'channel_id'], out: list('generic_posts'), world: { gen: 'user_posts' }, paging: CT,
    desc: 'Community posts of a channel.' },
  { path: 'videos/trending', group: 'discovery', label: 'Trending videos', credits: [20, 120], out: list('generic_posts'), world: { trending: true }, paging: true,
    desc: 'Trending videos.' },
  { path: 'playlist/items', group: 'discovery', label: 'Playlist items', credits: [20, 220], req: ['playlist_id'], out: list('generic_posts'), world: BY_OWNER, paging: true,
    assumed: 'parameter name not given by the spec: playlist_id', desc: 'Videos of a playlist.' },
  { path: 'search/advanced', group: 'search', label: 'Advanced search', credits: [20, 220], req: ['query'], out: list('search_posts'), paging: true, maxPages: true, ...POST_SEARCH,
    opt: [
      enumParam('sort', ['relevance', 'upload_date', 'view_count', 'rating'], 'Order of results.', 'relevance'),
      enumParam('upload_date', ['hour', 'today', 'week', 'month', 'year'], 'Upload window.'),
      enumParam('duration', ['short', 'medium', 'long'], 'Video length: under 4 min, 4-20 min, over 20 min.'),
    ],
    assumed: 'filter parameters not given by the spec: sort, upload_date, duration', desc: 'Videos by keyword with filters.' },
  { path: 'profile/full', group: 'profiles', label: 'Full channel', credits: 100, oneOf: ['handle', 'channel_id'], out: list('user_posts'), world: PROFILE_FULL, paging: true, ttl: TTL.content,
    assumed: 'parameters not given by the spec: one of handle | channel_id', desc: 'Channel plus latest videos and computed metrics.' },
];

// ---------------------------------------------------------------------------------------------
// prettier-ignore
const forum: Row[] = [
  { path: 'subreddit', group: 'groups', label: 'Community posts', credits: [20, 100], req: ['subreddit'], out: list('generic_posts'), paging: 'after',
    opt: [enumParam('sort', ['hot', 'new', 'top', 'rising'], 'Order of the feed.', 'hot')],
    assumed: 'sort parameter not given by the spec', desc: 'Posts of a community.' },
  { path: 'search', group: 'search', label: 'Search posts', credits: [20, 680], req: ['query'], out: list('search_posts'), paging: 'after', maxPages: true, ...POST_SEARCH,
    desc: 'Posts by keyword.' },
  { path: 'post/comments', group: 'comments', label: 'Post comments', credits: [100, 180], req: ['url'], out: list('comments'), paging: true, labels: 'comment',
    desc: 'Comments of a post.' },
  { path: 'subreddit/search', group: 'search', label: 'Search in community', credits: [20, 520], req: ['subreddit', 'query'], out: list('search_posts'), paging: true, ...POST_SEARCH,
    desc: 'Posts of one community by keyword.' },
  { path: 'profile/posts', group: 'posts', label: 'User posts', credits: 20, req: ['handle'], out: list('user_posts'), paging: true,
    desc: 'Posts of a user.' },
  { path: 'search/comments', group: 'search', label: 'Search comments', credits: 20, req: ['query'], out: list('search_comments'), paging: true, labels: 'comment', relevance: true, ttl: TTL.search,
    opt: [
      enumParam('sort', ['relevance', 'top', 'new'], 'Order of results.', 'relevance'),
      stringParam('switch_from', 'Brand: fills data.switch_receipts with comments whose authors say they left it (no extra credits).', 'Acme', 300),
    ],
    desc: 'Comments by keyword (supports author: and subreddit:-style scoping and quoted phrases); rows carry ext.post_title, ext.subreddit, ext.post_score, ext.post_url; parent_id is null.' },
  { path: 'subreddits/search', group: 'search', label: 'Search communities', credits: [20, 520], req: ['query'], out: list('groups', 'group'), paging: true, ...REL,
    desc: 'Communities by keyword.' },
  { path: 'search/media', group: 'search', label: 'Search media posts', credits: 20, req: ['query'], out: list('search_posts'), world: { rowKind: 'photo_mostly' }, paging: true, ...POST_SEARCH,
    desc: 'Image and video posts by keyword.' },
  { path: 'omni-search', group: 'search', label: 'Omni search', credits: [100, 180], req: ['query'], out: list('search_posts'), paging: true, ...POST_SEARCH,
    desc: 'Posts, communities and users by keyword in one call.' },
];

const TABLE: ReadonlyArray<readonly [Platform, Row[]]> = [
  ['photo_net', photo],
  ['short_video_net', shortVideo],
  ['social_net', social],
  ['work_net', work],
  ['micro_net', micro],
  ['thread_net', thread],
  ['video_net', video],
  ['forum_net', forum],
  ...SMALL_NETWORKS,
];

function buildAll(): EndpointDef[] {
  const out: EndpointDef[] = [];
  for (const [platform, rows] of TABLE) {
    for (const r of rows) out.push(build(platform, r, out.length + 1));
  }
  return out;
}

export const ENDPOINTS: readonly EndpointDef[] = Object.freeze(buildAll());
