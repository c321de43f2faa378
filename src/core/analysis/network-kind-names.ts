/** The network kinds, declared once in the contract (src/shared/contract-network.ts). */
import { NETWORK_KINDS, type NetworkKindName } from '../../shared/contract-network';

export { NETWORK_KINDS };
export type NetworkKind = NetworkKindName;

export function isNetworkKind(s: string): s is NetworkKind {
  return (NETWORK_KINDS as readonly string[]).includes(s);
}
