/**
 * The calls table: the Usage view's ledger (every attempt, with balance, status, key and request id)
 * and the drawer's provenance (the calls that returned an item) are the same table — when, source,
 * endpoint, credits, marks — the ledger adding its four columns.
 */
import type { LedgerEntry } from '../../../shared/contract';
import type { ItemCall } from '../../../shared/query';
import { fmtExact } from '../lib/format';
import { When } from './cells';

export interface CallLine {
  key: string;
  at: number;
  source: string;
  endpoint: string;
  /** the endpoint cell's tooltip (the call's parameters) */
  endpointTitle?: string;
  creditsUsed: number;
  marks: string[];
  requestId: string | null;
  /** the ledger's columns */
  ledger?: Pick<LedgerEntry, 'creditsRemaining' | 'errorType' | 'status' | 'keyName'>;
}

export function ledgerLine(r: LedgerEntry): CallLine {
  const marks = [
    r.cached && 'cache',
    r.idempotentReplay && 'replay',
    r.freeCall && 'free call',
    r.dryRun && 'quote',
    r.chargeReason === 'miss' && 'charged',
  ].filter((m): m is string => !!m);
  return {
    key: String(r.id),
    at: r.startedAt,
    source: r.source,
    endpoint: `${r.platform}/${r.endpoint}`,
    endpointTitle: r.params,
    creditsUsed: r.creditsUsed,
    marks,
    requestId: r.requestId,
    ledger: r,
  };
}

export function provenanceLine(
  p: Pick<ItemCall, 'callId' | 'at' | 'source' | 'endpoint' | 'creditsUsed' | 'cached' | 'replay' | 'freeCall' | 'requestId'>,
): CallLine {
  const marks = [p.cached && 'cached', p.replay && 'replay', p.freeCall && 'free call'].filter((m): m is string => !!m);
  return {
    key: p.callId + p.at,
    at: p.at,
    source: p.source,
    endpoint: p.endpoint,
    creditsUsed: p.creditsUsed,
    marks,
    requestId: p.requestId,
  };
}

/** `ledger`: the ledger's columns (balance, status, key, request), one row per attempt (`ledger-row`). */
export function CallsTable({ lines, testid, ledger = false }: { lines: CallLine[]; testid: string; ledger?: boolean }) {
  return (
    <table className="mini" data-testid={testid}>
      <thead>
        <tr>
          <th>When</th>
          <th>Source</th>
          <th>Endpoint</th>
          <th className="right">Credits</th>
          {ledger ? <th className="right">Balance</th> : null}
          <th>Marks</th>
          {ledger ? (
            <>
              <th>Status</th>
              <th>Key</th>
              <th>Request</th>
            </>
          ) : null}
        </tr>
      </thead>
      <tbody>
        {lines.map((r) => (
          <tr
            key={r.key}
            data-testid={ledger ? 'ledger-row' : undefined}
            title={!ledger && r.requestId ? `request ${r.requestId}` : undefined}
          >
            <td>
              <When v={r.at} />
            </td>
            <td>{r.source}</td>
            <td className="mono" title={r.endpointTitle}>
              {r.endpoint}
            </td>
            <td className="right num" title={fmtExact(r.creditsUsed)}>
              {fmtExact(r.creditsUsed)}
            </td>
            {ledger && r.ledger ? <LedgerCells r={r} l={r.ledger} /> : <td>{r.marks.join(', ') || '—'}</td>}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function LedgerCells({ r, l }: { r: CallLine; l: NonNullable<CallLine['ledger']> }) {
  return (
    <>
      <td
        className="right num"
        title={l.creditsRemaining != null ? fmtExact(l.creditsRemaining) : 'not known (authentication or rate-limit answer)'}
      >
        {l.creditsRemaining != null ? fmtExact(l.creditsRemaining) : '—'}
      </td>
      <td>
        {r.marks.map((m) => (
          <span key={m} className="mark">
            {m}
          </span>
        ))}
      </td>
      <td>{l.errorType ? <span className="errtext">{l.errorType}</span> : (l.status ?? '—')}</td>
      <td className="small">{l.keyName ?? '—'}</td>
      <td className="mono small">{r.requestId ?? '—'}</td>
    </>
  );
}
