/**
 * The endpoints of the seven networks the spec names a few endpoints of (pin, open micro, CN
 * video, short video B, Q&A, stream, video B), in endpoints.ts's row form; endpoints.ts puts them
 * after the eight large networks' in its one table (ENDPOINTS), in this order.
 */
import type { Platform } from '../../shared/api-types';
import { BY_OWNER, list, POST_SEARCH, single, TTL, type Row } from './build';
import { enumParam, intParam, stringParam } from './params';

// prettier-ignore
const pin: Row[] = [
  { path: 'search', group: 'search', label: 'Search pins', credits: [20, 520], req: ['query'], out: list('search_posts'), paging: true, ...POST_SEARCH,
    desc: 'Pins by keyword.' },
  { path: 'board', group: 'posts', label: 'Board pins', credits: [20, 320], req: ['url'], out: list('generic_posts'), world: BY_OWNER, paging: true,
    desc: 'Pins of a board.' },
  { path: 'pin', group: 'posts', label: 'Pin', credits: 20, req: ['url'], out: single('post', 'post'),
    assumed: 'endpoint not listed in the spec; price chosen', desc: 'One pin.' },
];

// ---------------------------------------------------------------------------------------------
// prettier-ignore
const openMicro: Row[] = [
  { path: 'profile', group: 'profiles', label: 'Profile', credits: 10, req: ['handle'], out: single('profile', 'profile'), ttl: TTL.profile,
    desc: 'Profile of an account.' },
  { path: 'user/posts', group: 'posts', label: 'User posts', credits: 10, oneOf: ['handle', 'user_id'], out: list('user_posts'), paging: true, dateFilter: true, dateOrdered: false,
    assumed: 'cursor paging chosen (the spec says the list is not in date order and every page costs a page)',
    desc: "Posts of an account; user_id is the network's own decentralised id; not in date order, so since/until only filter each page." },
  { path: 'post', group: 'posts', label: 'Post thread', credits: 10, req: ['url'], out: single('post', 'post'), ttl: TTL.content,
    desc: 'One post with a threaded replies array.' },
  { path: 'search', group: 'search', label: 'Search posts', credits: 10, req: ['query'], out: list('search_posts'), world: { untilWindow: true }, listSize: 100, dateFilter: true, dateTz: true, ...POST_SEARCH, ttl: TTL.search,
    opt: [
      enumParam('sort', ['latest', 'top'], 'Order of results.', 'latest'),
      stringParam('lang', 'Language code, e.g. en.', 'en', 16),
      stringParam('author', 'Handle or decentralised id; an unknown account gives an empty list.', 'sample.handle', 300),
    ],
    desc: 'Up to 100 posts per call; set until to the oldest published_at of the last call to get older rows; a row at the same second can repeat, so deduplicate on post.id.' },
];

// ---------------------------------------------------------------------------------------------
// prettier-ignore
const cnVideo: Row[] = [
  { path: 'search', group: 'search', label: 'Search videos', credits: [50, 1250], req: ['query'], out: list('search_posts'), paging: true, pageSize: 25,
    dateFilter: true, dateOrdered: false, tier: 'advanced', ...POST_SEARCH, ttl: TTL.search,
    limit: { kind: 'cap', max: 25, def: 10 },
    opt: [
      enumParam('sort', ['relevance', 'most_liked', 'latest'], 'Order of results.', 'relevance'),
      enumParam('published', ['all', 'day', 'week', 'half_year'], 'Publish window.', 'all'),
      enumParam('duration', ['all', 'under_1m', 'one_to_five_m', 'over_5m'], 'Video length.', 'all'),
    ],
    assumed: 'cursor paging chosen (the spec says the walk continues and every page costs a page)',
    desc: 'Videos by keyword; not in date order, so since/until only filter each page.' },
];

// prettier-ignore
const shortVideoB: Row[] = [
  { path: 'user/posts', group: 'posts', label: 'User posts', credits: 10, oneOf: ['handle', 'url'], out: list('user_posts'), paging: true, pageSize: 20,
    opt: [intParam('count', 1, 50, 'Rows per page, up to 50.', 20)],
    desc: 'Posts of an account (handle without @).' },
];

// prettier-ignore
const qa: Row[] = [
  { path: 'search', group: 'search', label: 'Search questions', credits: 50, req: ['query'], out: list('questions'), listSize: 10, ...POST_SEARCH,
    limit: { kind: 'cap', max: 10, def: 10 },
    opt: [enumParam('time', ['all', 'hour', 'day', 'week', 'month', 'year'], 'Publish window.', 'all')],
    desc: 'Questions with title, URL, answer and follower counts, publish time.' },
];

// prettier-ignore
const stream: Row[] = [
  { path: 'clip', group: 'media', label: 'Clip', credits: 10, req: ['url'], out: single('post', 'post'),
    desc: 'Title, views, duration, category, creator, channel, thumbnail, creation time.' },
];

// prettier-ignore
const videoB: Row[] = [
  { path: 'video/transcript', group: 'media', label: 'Video transcript', credits: 100, req: ['url'], out: single('transcript', 'transcript'),
    desc: 'Transcript of a video; without captions transcript is null and nothing is charged.' },
];

export const SMALL_NETWORKS: ReadonlyArray<readonly [Platform, Row[]]> = [
  ['pin_net', pin],
  ['open_micro_net', openMicro],
  ['cn_video_net', cnVideo],
  ['short_video_net_b', shortVideoB],
  ['qa_net', qa],
  ['stream_net', stream],
  ['video_net_b', videoB],
];
