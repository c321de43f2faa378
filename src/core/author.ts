/**
 * Who did what (issue 29): the name tags, notes, label overrides and saved sets are made under, and
 * that dataset bundles carry. Settings' author name wins, then LOUPE_AUTHOR for this process, then
 * the OS user name; null only when none of them is known.
 */
import { userInfo } from 'node:os';

export function osUserName(): string | null {
  try {
    const n = userInfo().username.trim();
    return n === '' ? null : n;
  } catch {
    return null; // no passwd entry (some containers)
  }
}

export function authorName(stored: string | null | undefined, env: string | undefined): string | null {
  return stored?.trim() || env?.trim() || osUserName();
}
