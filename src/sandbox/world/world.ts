/**
 * The World implementation: feeds and single records of every endpoint kind, plus judgments.
 * Pure in (seed, identifier, now); the only state is caches (which never change an answer) and
 * the index of posts already served (core.ts). Which generator answers, and how, follows the
 * endpoint's declared world traits (EndpointDef.world, registry/traits.ts), never its path.
 */
import { traitsOf } from '../registry/traits';
import { growRecord, isPrivate, postGone, postOfRow } from './aging';
import type { FeedResult, JudgeOptions, NotFound, SingleResult, World, WorldQuery, WorldRow } from '../types';
import { comments, replies, searchComments } from './comments';
import { WorldCore } from './core';
import { events } from './events';
import { reserved } from './identify';
import { userId } from './ids';
import { judge, relevance as relevanceOf, switchReceipts as receiptsOf } from './judge';
import { objectPosts, objects } from './objects';
import { userPosts } from './own-posts';
import { accountsList } from './people';
import { genericPosts, stories } from './posts';
import { fullAuthor } from './records';
import { commentNull, POST_NULL } from './platform-traits';
import { searchPosts } from './search';
import { single } from './singles';

export { OPEN_SEARCH_PAGE } from './search';

export class WorldImpl extends WorldCore implements World {
  feed(q: WorldQuery): FeedResult | NotFound {
    const { def, params, now } = q;
    const rs = reserved(params);
    if (rs === 'notFound') return { notFound: true };
    const feed = def.feed ?? 'generic_posts';
    if (rs === 'empty')
      return {
        rows: [],
        unavailable:
          feed === 'comments' || feed === 'replies' ? commentNull(def.platform) : def.record === 'post' ? POST_NULL[def.platform] : [],
      };
    const gen = traitsOf(def).gen;
    if (gen === 'user_posts') {
      // an account made private (aging.ts) has no feed
      const a = this.accountFromParams(def.platform, params);
      if (a && isPrivate(this.ctx, def.platform, a.handle, now)) return { notFound: true };
    }
    switch (gen) {
      case 'user_posts':
        return userPosts(this, def, params, now);
      case 'comments':
        return comments(this, def, params, now);
      case 'replies':
        return replies(this, def, params, now);
      case 'search_posts':
        return searchPosts(this, def, params, now);
      case 'search_comments':
        return searchComments(this, def, params, now);
      case 'accounts':
        return accountsList(this, def, params, now);
      case 'events':
        return events(this, def, params, now);
      case 'objects':
        return objects(this, def, params, now);
      case 'object_posts':
        return objectPosts(this, def, params);
      case 'stories':
        return stories(this, def, params, now, false);
      case 'highlight':
        return stories(this, def, params, now, true);
      case 'generic_posts':
      default:
        return genericPosts(this, def, params, now);
    }
  }

  single(q: WorldQuery): SingleResult | NotFound {
    return single(this, q);
  }

  labels(row: WorldRow, kind: 'post' | 'comment', opts: JudgeOptions) {
    return judge(this.seed, row, kind, opts);
  }

  relevance(row: WorldRow, topic: string) {
    return relevanceOf(this.seed, row, topic);
  }

  switchReceipts(rows: WorldRow[], brand: string) {
    return receiptsOf(rows, brand);
  }

  available(platform: string, row: WorldRow, now: number): boolean {
    const rec = postOfRow(row);
    return !rec || !postGone(this.ctx, platform, rec, row.publishedAt, now);
  }

  atTime(row: WorldRow, now: number): void {
    const rec = postOfRow(row);
    if (rec) growRecord(this.ctx, rec, row.publishedAt, now);
  }
}

export { fullAuthor, userId };
