export { type PayloadRecord, type PayloadSettings, type SizeStats, type TextSource, createTextSource } from './texts.js';
export { USER_TEXT_BOUNDS, type UserDocument, type UserTexts, readUserTexts } from './user-texts.js';
