export { generateNote } from './clinical-notes.js';
export { DOCUMENT_KINDS, generateDocument, LENGTH_CLASSES } from './documents.js';
export { FIRST_NAMES, LAST_NAMES, MONTHS } from './lexicon.js';
export { HAS_LETTER_OR_DIGIT, shownKind } from './phi-annotations.js';
export { MIN_PIECE_CHARS_FOR_SEAMS, seamPieces } from './seams.js';
export {
  createTextSource,
  type PayloadRecord,
  piecesPerDocument,
  type SentDocument,
  type TextSource,
} from './sources.js';
export { DEFAULT_SPLIT_LIMITS, maxPieceLength, type Piece, splitDocument, type SplitLimits } from './split.js';
export { readRegularText, readUserTexts, type UserTexts } from './user-texts.js';
