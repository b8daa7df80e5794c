// Number and text formatting for the console table and the report.
export function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}
export function pad(s: string, n: number, left = false): string {
  return left ? s.padStart(n) : s.padEnd(n);
}
