/** A LIKE/ILIKE pattern matching `q` literally anywhere: `%`, `_` and the escape character itself are escaped. */
export function containsPattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
