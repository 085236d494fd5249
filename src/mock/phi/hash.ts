/** A stable 32-bit number from a string (FNV-1a), so scores and deliberate misses are repeatable. */
export function hashOf(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}
