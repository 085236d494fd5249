export { DEFAULT_SPLIT_LIMITS, type Piece, type SplitLimits, maxPieceLength, pieceTokenBudget, splitDocument } from './split.js';
export { SEAM_REACH, cutIsInsideSentence, seamPieces } from './seams.js';
