/**
 * What identification and obfuscation answer, as the de-identification chain (src/deid) takes it, and the calls it
 * makes.
 */
/** One entity as identification reports it, in the text it was given. */
export interface FoundEntity {
  readonly type: string;
  /** UTF-16 offsets in the text sent. */
  readonly start: number;
  readonly end: number;
  readonly score?: number;
}

export interface IdentifyAnswer {
  readonly entities: readonly FoundEntity[];
  /** The service cut the entity list at its output cap. */
  readonly truncated: boolean;
}

export interface Replacement {
  readonly type: string;
  /** Span in the document. */
  readonly start: number;
  readonly end: number;
  /** What the span became. */
  readonly replacement: string;
}

export interface ObfuscateAnswer {
  readonly text: string;
  readonly replacements: readonly Replacement[];
}

/**
 * An obfuscation answer's output, `{text, replacements}` (replacements not in that shape are left out), or undefined
 * when it has no `text` string.
 */
export function obfuscationOutput(answer: Record<string, unknown>): ObfuscateAnswer | undefined {
  if (typeof answer.text !== 'string') return undefined;
  const replacements = Array.isArray(answer.replacements)
    ? answer.replacements.flatMap((r: unknown) => {
        const { type, start, end, replacement } = (r ?? {}) as Record<string, unknown>;
        return typeof type === 'string' &&
          typeof start === 'number' &&
          typeof end === 'number' &&
          typeof replacement === 'string'
          ? [{ type, start, end, replacement }]
          : [];
      })
    : [];
  return { text: answer.text, replacements };
}

export interface ChainCalls {
  identify(text: string): Promise<IdentifyAnswer>;
  obfuscate(text: string, entities: readonly FoundEntity[]): Promise<ObfuscateAnswer>;
}

/** An answer the chain cannot use: an entity outside its text, say. */
export class ChainError extends Error {}
