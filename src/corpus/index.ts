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
