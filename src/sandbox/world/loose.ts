/**
 * The emulator's typed records and the loose JSON items it serves are the same objects: a post
 * record goes out as an item (`Record<string, unknown>` with an id) and comes back as a record.
 * These say so in one place (issue 25: no `as unknown as` at the call sites).
 */
import type { PostRecord } from '../../shared/api-types';

/** A typed record (a post, an author, a clone of one) as the loose JSON object the service serves. */
export function looseOf<T extends object>(rec: T): Record<string, unknown> {
  return rec as Record<string, unknown>;
}

/** A post record as a row's item (it has an id). */
export function itemOf(rec: PostRecord): { id: string } & Record<string, unknown> {
  return looseOf(rec) as { id: string } & Record<string, unknown>;
}

/** A row's item or record, which the emulator made from a post record, as that record. */
export function postOf(item: unknown): PostRecord {
  return item as PostRecord;
}
