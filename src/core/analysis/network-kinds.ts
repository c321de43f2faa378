/**
 * One entry per network kind (docs/analysis.md "Networks"): what it reads, whether it is directed,
 * and what it makes of each row — the builder (./network.ts) runs whichever kind it is given
 * through this table, with no test of the kind's name. A new kind is its name in
 * src/shared/contract-network.ts (NETWORK_KINDS, NETWORK_WORDS) and its entry here; the types fail
 * until both exist.
 */
import type { PairCounts } from './pair-counts';
import { hashtagsOf, mentionsOf, userKey, type RowAuthor, type RowFacts } from './network-entities';
import type { NetworkKind } from './network-kind-names';

/** What the builder lends a kind: its nodes (by index), its edges, its counts. */
export interface NetworkHands {
  tagNode(tag: string): number;
  mentionNode(platform: string, handle: string): number;
  accountNode(
    key: string,
    a: { username: string | null; id: string | null; displayName: string | null; followers?: number | null },
  ): number;
  edges: PairCounts;
  stats: { unresolvedReplies: number };
  hasNode(key: string): boolean;
  /** `mentions`: the authors of replied-to items outside the rows */
  lookupParents?: (platform: string, ids: string[]) => Map<string, RowAuthor>;
}

/** One build of a kind: each row's nodes (pushed on `touched`) and edges, then what is left after the pass. */
export interface KindRun {
  item(f: RowFacts, touched: number[]): void;
  finish?(): void;
}

export interface NetworkKindDef {
  /** edges have a direction (and count replies apart from mentions) */
  directed: boolean;
  /** the rows' authors are read (networks whose nodes include authors) */
  readsAuthors: boolean;
  /** a row touches each of its nodes at most once (no set needed to count them once) */
  uniquePerItem: boolean;
  start(h: NetworkHands): KindRun;
}

/** Every pair of the nodes one row touched is an edge (co-occurrence). */
function pairUp(h: NetworkHands, touched: number[]): void {
  for (let x = 0; x < touched.length; x++)
    for (let y = x + 1; y < touched.length; y++) {
      const p = touched[x];
      const q = touched[y];
      if (p < q) h.edges.add(p, q);
      else if (q < p) h.edges.add(q, p);
    }
}

const coOccurrence = (nodesOf: (h: NetworkHands, f: RowFacts) => number[]): NetworkKindDef => ({
  directed: false,
  readsAuthors: false,
  uniquePerItem: true,
  start: (h) => ({
    item(f, touched) {
      touched.push(...nodesOf(h, f));
      pairUp(h, touched);
    },
  }),
});

/** `mentions`: account → account it mentions or replies to; replies resolved after the pass (the parent may come later, or be outside the rows). */
function mentionsRun(h: NetworkHands): KindRun {
  const itemAuthor = new Map<string, RowAuthor>();
  /** each author as all their items together say: the first name, an id if any gave one, the most followers */
  const authorInfo = new Map<string, RowAuthor>();
  const knowAuthor = (a: RowAuthor): RowAuthor => {
    const was = authorInfo.get(a.key);
    if (!was) {
      const own = { ...a }; // one record per author, completed in place by their later items
      authorInfo.set(a.key, own);
      return own;
    }
    was.id ??= a.id;
    was.username ??= a.username;
    was.displayName ??= a.displayName;
    if (a.followers != null && (was.followers == null || a.followers > was.followers)) was.followers = a.followers;
    return was;
  };
  const pendingReplies: Array<{ from: number; platform: string; parentId: string }> = [];
  // an author becomes a node only when one of their items mentions or replies, or a reply points
  // to them (before, every author of the rows was a node: thousands of weight-0 isolates)
  const item = (f: RowFacts, touched: number[]): void => {
    const author = f.author;
    if (!author) return;
    itemAuthor.set(`${f.platform}\u0000${f.id}`, knowAuthor(author));
    const ms = mentionsOf(f.text).filter((m) => userKey(f.platform, m, null) !== author.key);
    const u = ms.length > 0 || f.parentId ? h.accountNode(author.key, author) : -1;
    if (u >= 0) touched.push(u);
    for (const m of ms) {
      const t = h.mentionNode(f.platform, m);
      touched.push(t);
      h.edges.add(u, t);
    }
    if (f.parentId) pendingReplies.push({ from: u, platform: f.platform, parentId: f.parentId });
  };
  const resolveReplies = (): void => {
    const missing = new Map<string, Set<string>>();
    for (const r of pendingReplies)
      if (!itemAuthor.has(`${r.platform}\u0000${r.parentId}`)) {
        let s = missing.get(r.platform);
        if (!s) missing.set(r.platform, (s = new Set()));
        s.add(r.parentId);
      }
    const found = new Map<string, number>();
    if (h.lookupParents)
      for (const [platform, ids] of missing)
        for (const [id, a] of h.lookupParents(platform, [...ids])) found.set(`${platform}\u0000${id}`, h.accountNode(a.key, a));
    for (const r of pendingReplies) {
      const k = `${r.platform}\u0000${r.parentId}`;
      const parent = itemAuthor.get(k);
      const to = parent ? h.accountNode(parent.key, parent) : found.get(k);
      if (to === undefined) h.stats.unresolvedReplies++;
      else h.edges.add(r.from, to, true);
    }
  };
  return {
    item,
    finish() {
      if (pendingReplies.length > 0) resolveReplies();
      // the accounts that are nodes get what every item of theirs said of them (id, the most followers)
      for (const a of authorInfo.values()) if (h.hasNode(`@${a.key}`)) h.accountNode(a.key, a);
    },
  };
}

export const NETWORK_KIND_DEFS: Readonly<Record<NetworkKind, NetworkKindDef>> = {
  'co-hashtag': coOccurrence((h, f) => hashtagsOf(f.text).map((t) => h.tagNode(t))),
  'co-mention': coOccurrence((h, f) => mentionsOf(f.text).map((m) => h.mentionNode(f.platform, m))),
  // bipartite: an edge = the account used the hashtag
  'user-hashtag': {
    directed: false,
    readsAuthors: true,
    uniquePerItem: false,
    start: (h) => ({
      item(f, touched) {
        const tags = hashtagsOf(f.text);
        if (!f.author || tags.length === 0) return;
        const u = h.accountNode(f.author.key, f.author);
        touched.push(u);
        for (const t of tags) {
          const n = h.tagNode(t);
          touched.push(n);
          h.edges.add(u, n);
        }
      },
    }),
  },
  mentions: { directed: true, readsAuthors: true, uniquePerItem: false, start: mentionsRun },
};
