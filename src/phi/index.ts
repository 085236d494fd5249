export { isPhiKind, PHI_KINDS, type PhiKind } from './kinds.js';
export { locateAnnotations, type PhiAnnotation, type PlantedPhi } from './planted.js';
export { type ItemFate, textRecall } from './recall.js';
export { addTallies, EMPTY_TALLY, leaked, type PhiTally, type RecallCounts, tallyText } from './tally.js';
