export { type PayloadMode, type PayloadRecord, type PayloadSettings, type SentDocument, type SizeStats, type TextSource, createTextSource, piecesPerDocument } from './texts.js';
export { USER_TEXT_BOUNDS, type UserDocument, type UserTexts, readRegularText, readUserTexts } from './user-texts.js';
