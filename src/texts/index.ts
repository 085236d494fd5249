export { type PayloadMode, type PayloadRecord, type PayloadSettings, type SentDocument, type SizeStats, type TextSource, createTextSource, piecesPerDocument } from './sources.js';
export { USER_TEXT_BOUNDS, type UserDocument, type UserTexts, readRegularText, readUserTexts } from './user-texts.js';
export { DEFAULT_NOTE_OPTIONS, generateNote, type InjectedPhiType, type NoteOptions } from './clinical-notes.js';
export {
  DEFAULT_DOCUMENT_MIX,
  DOCUMENT_KINDS,
  type DocumentKind,
  type DocumentMix,
  type InjectedPhi,
  LENGTH_CLASSES,
  LENGTH_CLASS_CHARS,
  type LengthClass,
  type SyntheticDocument,
  type Weights,
  generateDocument,
  lengthClassChars,
} from './documents.js';
export { DEFAULT_SPLIT_LIMITS, type Piece, type SplitLimits, maxPieceLength, pieceTokenBudget, splitDocument } from './split.js';
export { MIN_PIECE_CHARS_FOR_SEAMS, SEAM_REACH, cutIsInsideSentence, seamPieces } from './seams.js';
export { FIRST_NAMES, LAST_NAMES, MONTHS } from './lexicon.js';
