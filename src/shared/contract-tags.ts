/**
 * The contract's tag management (issue 27 #7): list, rename, merge, delete and colour the
 * analyst's tags — the Library's Tags manager and `loupe tags …` call these. A rename or a merge
 * changes only what it names: every other tag, note and label override stays, and each tagging
 * keeps its author and time; a merge never stores an item's tag twice. Re-exported by contract.ts.
 */
import { z } from 'zod';
import { TAG_COLOURS, type TagColour } from './contract-constants';

export { isTagColour, TAG_COLOURS, type TagColour } from './contract-constants';

const tagName = z.string().trim().min(1, 'a tag needs a name').max(80);

export interface TagInfo {
  tag: string;
  /** items carrying it */
  count: number;
  color: TagColour | null;
  createdAt: number;
}

/**
 * What a rename, merge or delete did (or, with `dryRun`, would do): the items it touches, and the
 * saved sets whose filter names the tag (a rename or merge makes them name the new tag; a delete
 * leaves them as they are, matching nothing through that tag).
 */
export interface TagChange {
  /** the tag as it is named after the change (rename, merge: the target; delete: the deleted tag) */
  tag: string;
  /** items whose tags change: rename, every item carrying it; merge, every item carrying a merged tag; delete, every item losing it */
  items: number;
  /** merge: of those, the items that already carried the target (they just lose the merged tag) */
  alreadyTagged: number;
  /** saved result sets whose filter names a changed tag */
  savedSets: number;
  dryRun: boolean;
}

export const tagsRenameInput = z.object({ tag: tagName, to: tagName, dryRun: z.boolean().default(false) });
export const tagsMergeInput = z.object({ from: z.array(tagName).min(1).max(50), into: tagName, dryRun: z.boolean().default(false) });
export const tagsDeleteInput = z.object({ tag: tagName, dryRun: z.boolean().default(false) });
export const tagsColorInput = z.object({ tag: tagName, color: z.enum(TAG_COLOURS).nullable() });
