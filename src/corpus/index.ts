export { DEFAULT_NOTE_OPTIONS, generateNote, type NoteOptions } from './clinical-notes.js';
