export { DEFAULT_CHAIN_OPTIONS, documentPieces, identifyBudget, mergeEntities } from './chain.js';
export { deidJson } from './deid-json.js';
export { authorizeDeid, checkDocumentSize, deidOnce, MAX_DEID_DOCUMENT_BYTES, readDocumentFile } from './deid-once.js';
export { deidSummaryLine, replacementTable } from './deid-table.js';
