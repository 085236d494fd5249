export { DEFAULT_SPLIT_LIMITS, type Piece, type SplitLimits, pieceTokenBudget, splitDocument } from './split.js';
