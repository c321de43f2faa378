/**
 * Query keys, from one factory: every contract read is cached under [domain, method, input], so a
 * write invalidates whole domains (`['library']` covers library.query, library.item, library.count…)
 * by react-query's own array-prefix match — no string-prefix predicate over method names.
 */
import type { QueryClient } from '@tanstack/react-query';
import type { MethodInput, MethodName } from '../../../shared/contract';
import type { LibraryQuery } from '../../../shared/query';

/** The part of a method name before the dot: 'library', 'watchlists', 'settings', … */
export type Domain = MethodName extends infer K ? (K extends `${infer D}.${string}` ? D : never) : never;

function domainOf<K extends MethodName>(method: K): Domain {
  return method.slice(0, method.indexOf('.')) as Domain;
}

export const queryKeys = {
  /** everything cached for a domain (the key prefix a write invalidates) */
  domain: (d: Domain) => [d] as const,
  /** one read of the contract */
  method: <K extends MethodName>(method: K, input: MethodInput<K>) => [domainOf(method), method, input] as const,
  /** keyset pages of library rows */
  libraryRows: (query: LibraryQuery | null, pageSize: number) => ['library', 'library.query', query, pageSize, 'pages'] as const,
  /** the ledger's pages (Usage) */
  ledgerPages: () => ['usage', 'usage.ledger', 'pages'] as const,
};

/** Refetch every query of these domains. */
export function invalidate(qc: QueryClient, ...domains: Domain[]): void {
  for (const d of domains) void qc.invalidateQueries({ queryKey: queryKeys.domain(d) });
}
