export { DEFAULT_NOTE_OPTIONS, generateNote, type InjectedPhiType, type NoteOptions } from './clinical-notes.js';
export {
  DEFAULT_DOCUMENT_MIX,
  DOCUMENT_KINDS,
  type DocumentKind,
  type DocumentMix,
  generateDocument,
  type InjectedPhi,
  LENGTH_CLASS_CHARS,
  LENGTH_CLASSES,
  type LengthClass,
  lengthClassChars,
  type SyntheticDocument,
  type Weights,
} from './documents.js';
export { FIRST_NAMES, LAST_NAMES, MONTHS } from './lexicon.js';
export { cutIsInsideSentence, MIN_PIECE_CHARS_FOR_SEAMS, SEAM_REACH, seamPieces } from './seams.js';
export {
  createTextSource,
  type PayloadMode,
  type PayloadRecord,
  type PayloadSettings,
  piecesPerDocument,
  type SentDocument,
  type SizeStats,
  type TextSource,
} from './sources.js';
export {
  DEFAULT_SPLIT_LIMITS,
  maxPieceLength,
  type Piece,
  pieceTokenBudget,
  splitDocument,
  type SplitLimits,
} from './split.js';
export { readRegularText, readUserTexts, USER_TEXT_BOUNDS, type UserDocument, type UserTexts } from './user-texts.js';
