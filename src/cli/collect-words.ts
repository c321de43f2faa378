/** A collection plan and its status in words, for the terminal (docs/collect.md). */
import { COLLECT_DO_WORDS, type CollectPlan, type CollectStatus } from '../shared/contract-collect';

export const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const range = (a: number, b: number) => (a === b ? fmt(a) : `${fmt(a)}–${fmt(b)}`);
const SHOWN = 20;

function seconds(ms: number): string {
  const s = Math.ceil(ms / 1000);
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}

export function describePlan(p: CollectPlan): string {
  const out: string[] = [];
  const what = p.do ? COLLECT_DO_WORDS[p.do].label.toLowerCase() : 'calls';
  const nets = [...new Set(p.byNetwork.map((n) => n.platform))];
  out.push(
    `Plan "${p.name}" (${what}): ${fmt(p.read)} ${p.design.source.type === 'text' ? 'line(s)' : p.design.source.type === 'calls' ? 'call(s)' : 'item(s)'} read${p.column ? ` (CSV, column "${p.column}")` : ''} → ${fmt(p.inputs)} input(s)${nets.length ? ` on ${nets.join(', ')}` : ''}${p.belowTopK ? `; ${fmt(p.belowTopK)} below the top ${p.design.topK?.n} left out` : ''}.`,
  );
  if (p.duplicates.length) {
    out.push(`${fmt(p.duplicates.length)} duplicate(s), collected once:`);
    for (const d of p.duplicates.slice(0, SHOWN))
      out.push(
        `  ${d.line !== null ? `line ${d.line}` : d.text}: ${d.label} — ${d.sameAs === null ? 'already in the plan' : `same as line ${d.sameAs}`}`,
      );
    if (p.duplicates.length > SHOWN) out.push(`  … and ${fmt(p.duplicates.length - SHOWN)} more (--json lists all)`);
  }
  if (p.problems.length) {
    out.push(`${fmt(p.problems.length)} line(s) not collected:`);
    for (const x of p.problems.slice(0, SHOWN))
      out.push(
        `  ${x.line !== null ? `line ${x.line}: ` : ''}${JSON.stringify(x.text.length > 80 ? x.text.slice(0, 80) + '…' : x.text)} — ${x.reason}`,
      );
    if (p.problems.length > SHOWN) out.push(`  … and ${fmt(p.problems.length - SHOWN)} more (--json lists all)`);
  }
  for (const w of p.warnings) out.push(`Note: ${w}`);
  const f = p.figures;
  out.push(
    `Price before anything is spent: ${range(f.creditsMin, f.creditsMax)} credits, likely ${fmt(f.creditsLikely)}, over ${fmt(f.requests)} request(s)${f.etaMs > 0 ? ` (at least ${seconds(f.etaMs)} at the pacer's pace)` : ''}${p.approval.balance !== null ? `; balance ${fmt(p.approval.balance)}` : ''}.`,
  );
  if (f.heldPages) out.push(`  ${fmt(f.heldPages)} page(s) already in the archive inside their cache window: free.`);
  if (p.byNetwork.length > 1 || p.byNetwork[0]?.inputs !== p.inputs)
    for (const n of p.byNetwork)
      out.push(
        `  ${n.platform}/${n.endpoint}: ${fmt(n.inputs)} input(s), ${range(n.creditsMin, n.creditsMax)} credits (likely ${fmt(n.creditsLikely)})`,
      );
  const depth = p.curves.depth.filter((c) => [1, 2, 3, 5, 10].includes(c.x) || c.x === p.design.pages);
  if (depth.length > 1 && p.byNetwork.some((n) => n.pages > 0 || n.requests > 0))
    out.push(`  by depth: ${depth.map((c) => `${c.x} page${c.x === 1 ? '' : 's'} ${range(c.creditsMin, c.creditsMax)}`).join(' · ')}`);
  if (p.curves.topK)
    out.push(
      `  by top K: ${p.curves.topK
        .slice(0, 8)
        .map((c) => `${fmt(c.x)}: ${range(c.creditsMin, c.creditsMax)}`)
        .join(' · ')}`,
    );
  for (const b of p.basis) out.push(`  (${b})`);
  if (p.approval.needed && p.approval.reason) out.push(`${p.approval.reason} Run it with --yes, or give it --budget.`);
  return out.join('\n') + '\n';
}

export function describeStatus(s: CollectStatus): string {
  const c = s.counts;
  const lines = [
    `${s.name}: ${s.status} · ${fmt(c.done + c.held)}/${fmt(s.total)} done${c.held ? ` (${fmt(c.held)} from the archive)` : ''}${c.failed ? ` · ${fmt(c.failed)} failed` : ''}${c.skipped ? ` · ${fmt(c.skipped)} skipped` : ''}${c.waiting + c.running ? ` · ${fmt(c.waiting + c.running)} waiting` : ''}`,
    `  spent ${fmt(s.spent)} credits this run (${fmt(s.spentTotal)} in all) · planned ${range(s.figures.creditsMin, s.figures.creditsMax)}, likely ${fmt(s.figures.creditsLikely)}${s.budget !== null ? ` · budget ${fmt(s.budget)}` : ''}`,
  ];
  if (s.remaining.creditsMax > 0 && s.status !== 'done')
    lines.push(`  left: ${range(s.remaining.creditsMin, s.remaining.creditsMax)} credits over ${fmt(s.remaining.requests)} request(s)`);
  if (s.message) lines.push(`  ${s.message}`);
  return lines.join('\n') + '\n';
}
