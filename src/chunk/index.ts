export { DEFAULT_SPLIT_LIMITS, type Piece, type SplitLimits, maxPieceLength, pieceTokenBudget, splitDocument } from './split.js';
