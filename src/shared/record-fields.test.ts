/**
 * The one definition of what an item shows (src/shared/record-fields.ts): every fallback, hostile
 * shapes, ids as strings, null for "not provided".
 */
import { describe, expect, it } from 'vitest';
import {
  authorName,
  countHidden,
  hiddenCounts,
  idText,
  recordAuthor,
  recordCount,
  recordFields,
  recordFollowers,
  recordPublishedAt,
  recordText,
  recordTitle,
} from './record-fields';

describe('text', () => {
  it('posts: content.text, ext.post_title, title, text; comments: content.text, text — never a profile field', () => {
    expect(recordText('post', { content: { text: 'body' }, ext: { post_title: 'T' }, title: 't', text: 'x' })).toBe('body');
    expect(recordText('post', { content: { text: null }, ext: { post_title: 'Only a title' } })).toBe('Only a title');
    expect(recordText('post', { title: 'plain title', text: 'x' })).toBe('plain title');
    // a comment's ext.post_title names the post it answers: never the comment's text
    expect(recordText('comment', { content: { text: null }, ext: { post_title: 'Parent post' }, text: 'x' })).toBe('x');
    expect(recordText('comment', { content: { text: null }, ext: { post_title: 'Parent post' } })).toBeNull();
    expect(recordText('post', { text: 'top-level text' })).toBe('top-level text');
    expect(recordText('post', { author: { bio: 'my bio' }, bio: 'b', display_name: 'D', name: 'N', username: 'u' })).toBeNull();
    expect(recordText('post', { content: { text: '' } })).toBe(''); // empty is what the API said, not "missing"
  });

  it('other kinds go on to the fields that describe them', () => {
    expect(recordText('profile', { bio: 'b', author: { bio: 'ab' } })).toBe('b');
    expect(recordText('profile', { author: { bio: 'ab' }, description: 'd' })).toBe('ab');
    expect(recordText('group', { description: 'd', display_name: 'D' })).toBe('d');
    expect(recordText('profile', { display_name: 'D', name: 'N' })).toBe('D');
    expect(recordText('playlist', { name: 'N', username: 'u' })).toBe('N');
    expect(recordText('profile', { username: 'u' })).toBe('u');
    expect(recordText('profile', { title: 'a title', bio: 'b' })).toBe('a title');
    expect(recordText('profile', {})).toBeNull();
  });

  it('a finite number is text; anything else is not', () => {
    expect(recordText('post', { content: { text: 42 } })).toBe('42');
    expect(recordText('post', { content: { text: { nested: 1 } }, text: ['a'] })).toBeNull();
    expect(recordText('profile', { bio: Number.NaN, name: 'n' })).toBe('n');
  });
});

describe('title', () => {
  it('ext.post_title, else title', () => {
    expect(recordTitle({ ext: { post_title: 'A' }, title: 'B' })).toBe('A');
    expect(recordTitle({ ext: 'not an object', title: 'B' })).toBe('B');
    expect(recordTitle({})).toBeNull();
  });
});

describe('author', () => {
  it('the author object; a post without one names its author by username / handle', () => {
    expect(recordAuthor('post', { author: { id: 7, username: 'u', display_name: 'U' }, username: 'other' })).toEqual({
      id: '7',
      username: 'u',
      displayName: 'U',
    });
    expect(recordAuthor('post', { username: 'poster' })).toEqual({ id: null, username: 'poster', displayName: null });
    expect(recordAuthor('comment', { handle: 'h', id: 'c1', name: 'not the author' })).toEqual({
      id: null,
      username: 'h',
      displayName: null,
    });
  });

  it('a profile-like record without an author object describes its own account', () => {
    expect(recordAuthor('profile', { id: '12345678901234567890', handle: 'h', name: 'Name' })).toEqual({
      id: '12345678901234567890',
      username: 'h',
      displayName: 'Name',
    });
    expect(recordAuthor('profile', { id: 5, username: 'u', display_name: 'D', name: 'N' })).toEqual({
      id: '5',
      username: 'u',
      displayName: 'D',
    });
  });

  it('on screen: the username, else the display name', () => {
    expect(authorName({ username: 'u', displayName: 'D' })).toBe('u');
    expect(authorName({ username: null, displayName: 'D' })).toBe('D');
    expect(authorName({ username: null, displayName: null })).toBe('');
    expect(authorName(null)).toBe('');
  });
});

describe('date', () => {
  it('published_at, else created_at; unparsable or non-text dates are not provided', () => {
    expect(recordPublishedAt({ published_at: '2024-05-01T10:00:00Z', created_at: '2020-01-01T00:00:00Z' })).toBe(
      Date.parse('2024-05-01T10:00:00Z'),
    );
    expect(recordPublishedAt({ created_at: '2024-05-01T12:00:00+02:00' })).toBe(Date.parse('2024-05-01T10:00:00Z'));
    expect(recordPublishedAt({ published_at: 'yesterday', created_at: '2024-05-01' })).toBe(Date.parse('2024-05-01'));
    expect(recordPublishedAt({ published_at: 1714557600 })).toBeNull();
    expect(recordPublishedAt({})).toBeNull();
  });
});

describe('counts', () => {
  it('engagement.<f> when the record has it (null stays null), else likes / like_count, views / view_count', () => {
    expect(recordCount({ engagement: { likes: 5 }, likes: 9 }, 'likes')).toBe(5);
    expect(recordCount({ engagement: { likes: null }, likes: 9 }, 'likes')).toBeNull();
    expect(recordCount({ engagement: { views: 1 }, likes: 9 }, 'likes')).toBe(9);
    expect(recordCount({ like_count: 3 }, 'likes')).toBe(3);
    expect(recordCount({ view_count: 4 }, 'views')).toBe(4);
    expect(recordCount({ views: 2, view_count: 4 }, 'views')).toBe(2);
    expect(recordCount({ comment_count: 4 }, 'comments')).toBeNull();
    expect(recordCount({ engagement: { shares: 0 } }, 'shares')).toBe(0); // zero is a count, missing is null
    expect(recordCount({ engagement: { saves: '12' } }, 'saves')).toBeNull();
    expect(recordCount({ engagement: { views: 12.9 } }, 'views')).toBe(12);
    expect(recordCount({ engagement: { views: Number.POSITIVE_INFINITY } }, 'views')).toBeNull();
  });

  it('hidden counts: flags.<f>_hidden === true', () => {
    expect(countHidden({ flags: { likes_hidden: true } }, 'likes')).toBe(true);
    expect(countHidden({ flags: { likes_hidden: 'true' } }, 'likes')).toBe(false);
    expect(hiddenCounts({ flags: { views_hidden: true, saves_hidden: true, likes_hidden: false } })).toEqual(['views', 'saves']);
    expect(hiddenCounts({ flags: null })).toEqual([]);
  });

  it('followers: author.followers, followers, follower_count', () => {
    expect(recordFollowers({ author: { followers: 10 }, followers: 20 })).toBe(10);
    expect(recordFollowers({ author: { followers: null }, followers: 20 })).toBe(20);
    expect(recordFollowers({ follower_count: 30 })).toBe(30);
    expect(recordFollowers({ followers: '100' })).toBeNull();
  });
});

describe('hostile shapes', () => {
  it('never throws; every field reads as not provided', () => {
    const empty = {
      text: null,
      title: null,
      author: { id: null, username: null, displayName: null },
      publishedAt: null,
      url: null,
      lang: null,
      engagement: { views: null, likes: null, comments: null, shares: null, saves: null },
      followers: null,
      parentId: null,
      postKind: null,
    };
    for (const rec of [null, undefined, 42, 'text', [1, 2], [], { author: [], content: 'x', engagement: [1], ext: 7, flags: 'x' }]) {
      expect(recordFields('post', rec)).toEqual(empty);
      expect(recordFields('profile', rec)).toEqual(empty);
    }
    const proto = JSON.parse('{"__proto__": {"text": "polluted"}, "constructor": {"text": "c"}}') as Record<string, unknown>;
    expect(recordFields('post', proto).text).toBeNull();
  });

  it('ids are strings: numbers and bigints become their decimal text, big ids given as text stay exact', () => {
    expect(idText('98765432109876543210')).toBe('98765432109876543210');
    expect(idText(12)).toBe('12');
    expect(idText(2n ** 70n)).toBe('1180591620717411303424');
    expect(idText(Number.NaN)).toBeNull();
    expect(idText({ id: 1 })).toBeNull();
    const f = recordFields('comment', { parent_id: '123456789012345678901', author: { id: '900719925474099312345' }, kind: 'reply' });
    expect(f.parentId).toBe('123456789012345678901');
    expect(f.author.id).toBe('900719925474099312345');
    expect(f.postKind).toBe('reply');
    expect(recordFields('profile', { kind: 'creator' }).postKind).toBeNull();
  });
});
