export { deidSummaryLine, replacementTable } from './deid-table.js';
export {
  type ChainOptions,
  DEFAULT_CHAIN_OPTIONS,
  type DeidResult,
  deidentify,
  documentPieces,
  identifyBudget,
  mergeEntities,
} from './chain.js';
export { MAX_DEID_DOCUMENT_BYTES, authorizeDeid, checkDocumentSize, deidOnce, readDocumentFile } from './deid-once.js';
