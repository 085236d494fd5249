export { DEFAULT_CHAIN_OPTIONS, type DeidResult, documentPieces, identifyBudget, mergeEntities } from './chain.js';
export { deidJson } from './deid-json.js';
export { authorizeDeid, checkDocumentSize, deidOnce, MAX_DEID_DOCUMENT_BYTES, readDocumentFile } from './deid-once.js';
export { recallTable } from './deid-phi-table.js';
export { deidRecall, locateExpected } from './deid-recall.js';
export { deidSummaryLine, replacementTable } from './deid-table.js';
export { deidVerdict, mockCaveat } from './deid-verdict.js';
export { readPhiAnnotations } from './phi-annotations.js';
