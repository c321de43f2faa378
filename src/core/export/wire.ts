/**
 * Rows as they travel to an export worker: a tuple, with the record as JSON text when the
 * source carries it (no parse on the sending thread, a plain string copy across threads).
 */
import type { ExportRow } from '../ports';

export type WireRow = [
  platform: string,
  kind: string,
  id: string,
  record: string | Record<string, unknown>,
  firstSeenAt: number,
  lastSeenAt: number,
  tags: string[],
  note: string | null,
  overrides: Record<string, Record<string, unknown>>,
  checkedAt: number | null,
  missingSince: number | null,
];

export interface WireBatch {
  seq: number;
  rows: WireRow[];
}

export function toWire(r: ExportRow): WireRow {
  return [
    r.platform,
    r.kind,
    r.id,
    typeof r.recordJson === 'string' ? r.recordJson : r.record,
    r.firstSeenAt,
    r.lastSeenAt,
    r.tags,
    r.note,
    r.overrides,
    r.checkedAt ?? null,
    r.missingSince ?? null,
  ];
}

export function fromWire(w: WireRow): ExportRow {
  return {
    platform: w[0],
    kind: w[1],
    id: w[2],
    record: typeof w[3] === 'string' ? (JSON.parse(w[3]) as Record<string, unknown>) : w[3],
    firstSeenAt: w[4],
    lastSeenAt: w[5],
    tags: w[6],
    note: w[7],
    overrides: w[8],
    checkedAt: w[9],
    missingSince: w[10],
  };
}
