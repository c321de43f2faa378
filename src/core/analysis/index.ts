/** The analyses (docs/analysis.md): pure over the archive's rows; their SQL lives in the archive. */
export { AnalysisIndex } from './analysis-index';
export { engagementDistribution, labelShareOverTime, volumeBy } from './charts';
export { compare, overperformance } from './compare';
export { frequencyTable } from './frequency';
export { archiveParentLookup, exportNetwork, pseudonymousLookup, type ParentAuthorsSource } from './network-export';
export { networkMethods } from './network-methods';
export { archiveFacts, factsOptionsFor, type FactsSource } from './network-source';
export { isNetworkKind, NETWORK_KINDS, type NetworkKind } from './network-kind-names';
export { NETWORK_KIND_DEFS, type NetworkKindDef } from './network-kinds';
