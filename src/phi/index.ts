export { isPhiKind, PHI_KINDS, type PhiKind } from './kinds.js';
export { locateAnnotations, type PhiAnnotation, type PlantedPhi } from './planted.js';
export { type ItemFate, type ItemRecall, type RecallInput, type TextRecall, textRecall } from './recall.js';
export {
  addCounts,
  addTallies,
  EMPTY_TALLY,
  leaked,
  NO_COUNTS,
  type PhiTally,
  type RecallCounts,
  tallyText,
} from './tally.js';
