/**
 * What an item shows: its text, title, author, date, counts and followers, read from a record as
 * the API returned it. ONE definition for the archive (src/core/archive/extract.ts stores these
 * as the `items` columns the library filters, sorts, searches and exports by) and for the
 * renderer (which shows the row's columns, never its own reading of the record), so an item
 * shows what it is found by. Pure functions, no node imports (the renderer bundles this file).
 *
 * Rules (docs/archive.md "Extracted columns"):
 * - every reader tolerates any shape: a missing, null or wrongly typed field reads as not
 *   provided (null), never as 0 or '' — hostile or partial data never throws;
 * - ids are strings (a numeric id becomes its decimal text; a big id given as text stays exact);
 * - text-like fields take a string, or a finite number as its text;
 * - counts are finite numbers, truncated to integers; anything else is null;
 * - posts and comments never fall back to a profile's fields (an author's bio is not a post's text).
 */

export type Rec = Record<string, unknown>;

export const COUNT_FIELDS = ['views', 'likes', 'comments', 'shares', 'saves'] as const;
export type CountField = (typeof COUNT_FIELDS)[number];

export function isRec(v: unknown): v is Rec {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** An id as text: strings as they are, finite numbers and bigints as their decimal text. */
export function idText(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : null;
  return typeof v === 'bigint' ? String(v) : null;
}

/** A text field: a string, or a finite number as its text. */
export function textOf(v: unknown): string | null {
  if (typeof v === 'string') return v;
  return typeof v === 'number' && Number.isFinite(v) ? String(v) : null;
}

/** A count: a finite number, truncated; null when not provided (never 0 for a missing value). */
export function countOf(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : null;
}

/** A time as epoch ms: an ISO (or any Date.parse-able) string; null otherwise. */
export function timeOf(v: unknown): number | null {
  if (typeof v !== 'string') return null;
  const t = Date.parse(v);
  return Number.isFinite(t) ? t : null;
}

function sub(r: Rec, key: string): Rec | null {
  const v = r[key];
  return isRec(v) ? v : null;
}

/** Kinds whose records are posts (one record shape for posts and comments). */
export function isPostKind(kind: string): boolean {
  return kind === 'post' || kind === 'comment';
}

/**
 * The title of a record: `ext.post_title`, else `title`. On a comment from comment search it is
 * the title of the post the comment answers (shown above it for context; not its text).
 */
export function recordTitle(r: Rec): string | null {
  return textOf(sub(r, 'ext')?.post_title) ?? textOf(r.title);
}

/**
 * The main text: `content.text`, then `ext.post_title`, `title`, `text` (a post with only a title
 * shows, and is searched by, that title). A comment skips the titles: its `ext.post_title` names
 * the post it answers (comment search rows), not the comment. Other kinds (profiles, groups,
 * playlists…) go on to the fields that describe them: `bio`, `author.bio`, `description`,
 * `display_name`, `name`, `username`.
 */
export function recordText(kind: string, r: Rec): string | null {
  const body = textOf(sub(r, 'content')?.text);
  if (body !== null) return body;
  if (kind === 'comment') return textOf(r.text);
  const own = recordTitle(r) ?? textOf(r.text);
  if (own !== null || isPostKind(kind)) return own;
  return (
    textOf(r.bio) ??
    textOf(sub(r, 'author')?.bio) ??
    textOf(r.description) ??
    textOf(r.display_name) ??
    textOf(r.name) ??
    textOf(r.username)
  );
}

export interface RecordAuthor {
  id: string | null;
  username: string | null;
  displayName: string | null;
}

/**
 * The author: `author.{id, username, display_name}`. A record without an `author` object: a post
 * or comment names its author by `username` / `handle`; any other kind (a profile-like record)
 * describes its own account (`id`, `username` / `handle`, `display_name` / `name`).
 */
export function recordAuthor(kind: string, r: Rec): RecordAuthor {
  const a = sub(r, 'author');
  if (a) return { id: idText(a.id), username: textOf(a.username), displayName: textOf(a.display_name) };
  const username = textOf(r.username) ?? textOf(r.handle);
  if (isPostKind(kind)) return { id: null, username, displayName: null };
  return { id: idText(r.id), username, displayName: textOf(r.display_name) ?? textOf(r.name) };
}

/** How an author is named on screen: the username, else the display name ('' when neither). */
export function authorName(a: { username: string | null; displayName: string | null } | null | undefined): string {
  return a?.username ?? a?.displayName ?? '';
}

/** When it was published (epoch ms): `published_at`, else `created_at`; null when neither parses. */
export function recordPublishedAt(r: Rec): number | null {
  return timeOf(r.published_at) ?? timeOf(r.created_at);
}

/**
 * One count: `engagement.<f>` when the record has it (even null: the API said "not provided"),
 * else for likes `likes` / `like_count` and for views `views` / `view_count` at the top level.
 */
export function recordCount(r: Rec, f: CountField): number | null {
  const e = sub(r, 'engagement');
  if (e && e[f] !== undefined) return countOf(e[f]);
  if (f === 'likes') return countOf(r.likes) ?? countOf(r.like_count);
  if (f === 'views') return countOf(r.views) ?? countOf(r.view_count);
  return null;
}

export function recordCounts(r: Rec): Record<CountField, number | null> {
  return {
    views: recordCount(r, 'views'),
    likes: recordCount(r, 'likes'),
    comments: recordCount(r, 'comments'),
    shares: recordCount(r, 'shares'),
    saves: recordCount(r, 'saves'),
  };
}

/** Whether the owner hid this count (`flags.<f>_hidden`), so a view can say so instead of "not provided". */
export function countHidden(r: Rec, f: CountField): boolean {
  return sub(r, 'flags')?.[`${f}_hidden`] === true;
}

/** The counts the owner hid, in COUNT_FIELDS order (none for anything that is not a record). */
export function hiddenCounts(rec: unknown): CountField[] {
  return isRec(rec) ? COUNT_FIELDS.filter((f) => countHidden(rec, f)) : [];
}

/** The author's followers (a profile's own): `author.followers`, `followers`, `follower_count`. */
export function recordFollowers(r: Rec): number | null {
  return countOf(sub(r, 'author')?.followers) ?? countOf(r.followers) ?? countOf(r.follower_count);
}

/** A post's thumbnail: `content.thumbnail_url` as text (a list's card shows it; not checked as a URL here). */
export function recordThumbnail(rec: unknown): string | null {
  return isRec(rec) ? textOf(sub(rec, 'content')?.thumbnail_url) : null;
}

/** Everything an item shows, read once. */
export interface RecordFields {
  text: string | null;
  title: string | null;
  author: RecordAuthor;
  publishedAt: number | null;
  url: string | null;
  lang: string | null;
  engagement: Record<CountField, number | null>;
  followers: number | null;
  parentId: string | null;
  /** the post record's own `kind` (short, photo…); null for other kinds */
  postKind: string | null;
}

export function recordFields(kind: string, rec: unknown): RecordFields {
  const r: Rec = isRec(rec) ? rec : {};
  return {
    text: recordText(kind, r),
    title: recordTitle(r),
    author: recordAuthor(kind, r),
    publishedAt: recordPublishedAt(r),
    url: typeof r.url === 'string' ? r.url : null,
    lang: typeof r.language === 'string' ? r.language : null,
    engagement: recordCounts(r),
    followers: recordFollowers(r),
    parentId: idText(r.parent_id),
    postKind: isPostKind(kind) && typeof r.kind === 'string' ? r.kind : null,
  };
}
