/**
 * CSV records written from the stored record's bytes (issue 30): an export worker reads each row's
 * record as the bytes SQLite holds (`CAST(raw AS BLOB)`: no JavaScript string of the whole record),
 * scans them once (record-scan.ts) and writes each cell from the bytes found, with no record
 * object, no string per cell and no JSON.parse of the record. The bytes are exactly those of
 * csvBytesRenderer over the parsed record (render-spans.test.ts compares them over generated
 * records, odd ones included): a row the scan cannot vouch for, or one with label overrides (its
 * label cells are the analyst's values), is rendered from its parsed record by that renderer.
 */
import { csvBytesRenderer, resolveColumns } from './columns';
import { cellBytes, commaBytes, eolBytes, isoBytes, spanJsonBytes, spanNumberBytes, spanTextBytes, textCell } from './csv-bytes';
import { bytesRow, type BytesTuple } from './rid-rows';
import { end, extraBytes, extraLength, extraOther, kind, Span, start } from './record-scan';
import {
  CHECKED,
  columnOps,
  EXTRA,
  FIRST_SEEN,
  fromBytes,
  ID,
  KIND,
  LAST_SEEN,
  MISSING,
  NOTE,
  OVERRIDES,
  PLATFORM,
  TAGS,
} from './byte-row';

const decoder = new TextDecoder();

/** One slot's value (record-scan.ts) as its cell. */
function slotCell(src: Uint8Array, slot: number): void {
  const s = start[slot];
  const e = end[slot];
  switch (kind[slot] as Span) {
    case Span.Absent:
    case Span.Null:
      return;
    case Span.Text:
      return spanTextBytes(src, s, e);
    case Span.Number:
      return spanNumberBytes(src, s, e);
    case Span.Json:
      return spanJsonBytes(src, s, e);
    case Span.True:
      return cellBytes(true);
    case Span.False:
      return cellBytes(false);
    case Span.EscapedText: {
      const text = JSON.parse(decoder.decode(src.subarray(s - 1, e + 1))) as string;
      if (text.length > 0) textCell(text);
      return;
    }
    case Span.OtherNumber:
      return cellBytes(Number(decoder.decode(src.subarray(s, e))));
    case Span.OtherJson:
      return cellBytes(JSON.parse(decoder.decode(src.subarray(s, e))));
  }
}

/**
 * The renderer of these columns (all, or a subset in the order given) for rows read as bytes:
 * appends each row's CSV record to this thread's batch (csv-bytes.ts beginBytes / takeBytes).
 */
export function csvSpanRenderer(columns?: readonly string[]): (t: BytesTuple, scanned?: boolean) => void {
  const defs = resolveColumns(columns);
  const fallback = csvBytesRenderer(defs);
  const ops = columnOps(defs.map((d) => d.name));
  // `scanned`: see fromBytes (byte-row.ts)
  return (t, scanned) => {
    const src = t[3];
    if (!fromBytes(t, scanned)) return fallback(bytesRow(t));
    for (let c = 0; c < ops.length; c++) {
      if (c > 0) commaBytes();
      const op = ops[c];
      if (op >= 0) slotCell(src, op);
      else
        switch (op) {
          case PLATFORM:
            cellBytes(t[0]);
            break;
          case KIND:
            cellBytes(t[1]);
            break;
          case ID:
            cellBytes(t[2]);
            break;
          case TAGS:
            cellBytes(t[8] === undefined || t[8] === '[]' ? [] : (JSON.parse(t[8]) as string[]));
            break;
          case NOTE:
            cellBytes(t[9]);
            break;
          case OVERRIDES:
            break; // a row with overrides took the fallback
          case FIRST_SEEN:
            isoBytes(t[4]);
            break;
          case LAST_SEEN:
            isoBytes(t[5]);
            break;
          case CHECKED:
            isoBytes(t[6] ?? NaN);
            break;
          case MISSING:
            isoBytes(t[7] ?? NaN);
            break;
          case EXTRA:
            if (extraLength === 0) break;
            if (extraOther) cellBytes(JSON.parse(decoder.decode(extraBytes().subarray(0, extraLength))));
            else spanJsonBytes(extraBytes(), 0, extraLength);
            break;
        }
    }
    eolBytes();
  };
}
