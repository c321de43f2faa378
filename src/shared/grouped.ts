/**
 * A count written with commas between groups of three digits, as `n.toLocaleString('en-US')`
 * writes it (`1234567` → `1,234,567`), without the locale machinery: the first `toLocaleString` of
 * a process initialises ICU (35–100 ms of the command line's start-up, docs/cli.md "Start-up"),
 * and a count needs none of it. Integers only (a safe integer: every count Loupe prints); anything
 * else is handed to `toLocaleString` itself, so the text is the same for every number.
 * `grouped.test.ts` compares the two over generated numbers.
 */
export function grouped(n: number): string {
  if (!Number.isSafeInteger(n) || Object.is(n, -0)) return n.toLocaleString('en-US');
  const digits = String(n < 0 ? -n : n);
  let out = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let i = out.length; i < digits.length; i += 3) out += ',' + digits.slice(i, i + 3);
  return n < 0 ? '-' + out : out;
}
