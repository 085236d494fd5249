export { DEFAULT_SPLIT_LIMITS, type Piece, type SplitLimits, maxPieceLength, pieceTokenBudget, splitDocument } from './split.js';
export { MIN_PIECE_CHARS_FOR_SEAMS, SEAM_REACH, cutIsInsideSentence, seamPieces } from './seams.js';
