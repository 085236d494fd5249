/** How a one-shot de-identification is shown: a line of counts and a table of what was replaced. */
import type { CallRecord } from '../client/index.js';
import { formatTable } from '../core/index.js';
import type { DeidResult } from './chain.js';

/** Counts: pieces, calls, entities by type. */
export function deidSummaryLine(result: DeidResult, calls: readonly CallRecord[], text: string): string {
  const byType = new Map<string, number>();
  for (const e of result.entities) byType.set(e.type, (byType.get(e.type) ?? 0) + 1);
  const types = [...byType].map(([t, n]) => `${t} ${n}`).join(', ');
  const obfuscation = calls.filter((c) => c.endpoint === 'obfuscation').length;
  return `deid: ${text.length} characters in ${result.pieces.length - result.seams} piece${result.pieces.length - result.seams === 1 ? '' : 's'}${result.seams === 0 ? '' : ` and ${result.seams} seam${result.seams === 1 ? '' : 's'} around cuts inside a sentence`}; ${result.identifyRequests} identification call${result.identifyRequests === 1 ? '' : 's'}, ${obfuscation} obfuscation call${obfuscation === 1 ? '' : 's'}; ${result.entities.length} entit${result.entities.length === 1 ? 'y' : 'ies'} replaced${types === '' ? '' : ` (${types})`}`;
}

/** The replacements as a table: type, position, replacement, and the original value only when asked. */
export function replacementTable(result: DeidResult, original: string, showValues: boolean): string[] {
  const replacementAt = new Map(result.replacements.map((r) => [`${r.start}:${r.end}`, r.replacement]));
  const head = ['type', 'start', 'end', 'replaced by', ...(showValues ? ['original'] : [])];
  const rows = result.entities.map((e) => [
    e.type,
    String(e.start),
    String(e.end),
    replacementAt.get(`${e.start}:${e.end}`) ?? '',
    ...(showValues ? [JSON.stringify(original.slice(e.start, e.end))] : []),
  ]);
  return formatTable([head, ...rows], (col) => col === 1 || col === 2);
}
