/**
 * "Rehydrate a bundle…" (issue 29, docs/datasets.md "Rehydrate"), beside Import in the export
 * panel's Dataset bundle: a dehydrated bundle's items re-collected. The bundle .zip is chosen on
 * this computer and sent (send-bundle.tsx: the app never names a path), the re-collection priced now as one plan (free: `datasets.rehydratePlan`) and shown in the confirm
 * dialog beside the bundle's own, older quote; only on approval does it run, with the plan's
 * maximum as its ceiling. The report: re-collected, already held, unavailable, not in the answers,
 * failed — and every key this archive does not hold, named.
 */
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { RehydratePlan, RehydrateReport } from '../../../../shared/contract-datasets';
import { api, errorText } from '../../lib/api';
import { fmtExact } from '../../lib/format';
import { invalidate } from '../../queries/keys';
import { useUi } from '../../stores/ui';
import { ErrorText } from '../../components/cells';
import { BundlePicker, FOLDER_NOTE, sendBundle } from './send-bundle';

const range = (a: number, b: number) => (a === b ? `${fmtExact(a)} credits` : `${fmtExact(a)}–${fmtExact(b)} credits`);

function planLines(p: RehydratePlan): string[] {
  const f = p.plan?.figures;
  const q = p.quoted;
  return [
    `${fmtExact(p.items)} item${p.items === 1 ? '' : 's'} from ${fmtExact(p.calls)} call${p.calls === 1 ? '' : 's'} (bundle ${p.root.slice(0, 16)}…).`,
    f
      ? `Today: ${fmtExact(p.plan?.inputs ?? 0)} call${p.plan?.inputs === 1 ? '' : 's'}, ${fmtExact(f.requests)} request${f.requests === 1 ? '' : 's'}; could cost ${range(f.creditsMin, f.creditsMax)}, likely ${fmtExact(f.creditsLikely)}.`
      : 'Today: nothing to collect, nothing to pay.',
    q
      ? `The bundle’s own quote (${q.quoted_at.slice(0, 10)}, stale): ${range(q.credits_min, q.credits_max)}, likely ${fmtExact(q.credits_likely)}.`
      : 'The bundle carries no quote.',
    p.held ? `${fmtExact(p.held)} already held here inside their cache window: free.` : '',
    p.cannotCount ? `${fmtExact(p.cannotCount)} cannot be re-collected (${p.cannot[0]?.reason ?? 'no call'}).` : '',
    p.resume ? `Continues the earlier rehydration “${p.resume.name}” (${p.resume.status}).` : '',
    'Not found marks an item unavailable; nothing is deleted.',
  ].filter(Boolean);
}

export function RehydrateBundle() {
  const qc = useQueryClient();
  const [busy, setBusy] = useState<'pricing' | 'running' | null>(null);
  const [report, setReport] = useState<RehydrateReport | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const go = async (file: File) => {
    setErr(null);
    setReport(null);
    setBusy('pricing');
    try {
      const bundle = await sendBundle(file);
      const p = await api.call('datasets.rehydratePlan', { bundle });
      const max = p.plan?.figures.creditsMax ?? 0;
      const ok = await useUi.getState().ask({
        title: 'Re-collect this bundle?',
        lines: planLines(p),
        okLabel: max > 0 ? `Re-collect — up to ${fmtExact(max)} credits` : 'Re-collect (free)',
      });
      if (!ok) return;
      setBusy('running');
      setReport(await api.call('datasets.rehydrate', { bundle, approved: true, budget: max }));
      invalidate(qc, 'library', 'datasets', 'usage', 'collect');
    } catch (e) {
      setErr(errorText(e));
    } finally {
      setBusy(null);
    }
  };
  const c = report?.counts;
  return (
    <div className="row gap wrap">
      <BundlePicker
        onFile={(f) => void go(f)}
        disabled={busy !== null}
        testid="bundle-rehydrate"
        title={`Re-collect a dehydrated bundle’s items: verified and priced first (free); you are asked before anything is spent. ${FOLDER_NOTE}`}
      >
        {busy === 'pricing' ? 'Pricing…' : busy === 'running' ? 'Re-collecting…' : 'Rehydrate a bundle…'}
      </BundlePicker>
      <ErrorText text={err} testid="bundle-rehydrate-error" />
      {report && c ? (
        <div className="small" role="status" data-testid="bundle-rehydrate-report">
          Rehydrated bundle {report.root.slice(0, 16)}…: {fmtExact(c.recollected)} re-collected, {fmtExact(c.held)} already held (free),{' '}
          {fmtExact(c.unavailable)} unavailable (not found), {fmtExact(c.missing)} not in the answers, {fmtExact(c.failed + c.pending)}{' '}
          failed or not read — of {fmtExact(report.items)}.
          {report.status && report.status.status !== 'done'
            ? ` The run is ${report.status.status}; rehydrate the same bundle again to continue it.`
            : ''}{' '}
          <span data-testid="bundle-rehydrate-check">
            {report.verify.ok
              ? `All ${fmtExact(report.verify.present)} keys are in this archive.`
              : `${fmtExact(report.verify.present)} of ${fmtExact(report.items)} keys are in this archive.`}
          </span>
          {report.notRecollected.length ? ' Not re-collected:' : ''}
          {report.notRecollected.length ? (
            <ul data-testid="bundle-rehydrate-missing">
              {report.notRecollected.slice(0, 20).map((x) => (
                <li key={x.key}>
                  <span className="mono">{x.key}</span>: {x.state}
                  {x.reason ? ` — ${x.reason}` : ''}
                </li>
              ))}
              {report.notRecollected.length > 20 ? <li>… and {fmtExact(report.notRecollected.length - 20)} more</li> : null}
            </ul>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
