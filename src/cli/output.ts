import { styleText } from 'node:util';

type Format = Parameters<typeof styleText>[0];

/** Colour only where a person reads it: styleText drops the codes when the stream is not a TTY or NO_COLOR is set. */
export const paint = (format: Format, text: string, stream: NodeJS.WriteStream = process.stdout) => styleText(format, text, { stream });

/** Prints a command's result: exactly one JSON document on one line with --json, else the human text. */
export function emit(json: boolean | undefined, value: unknown, human: () => string): void {
  process.stdout.write(`${json ? JSON.stringify(value) : human()}\n`);
}

const oneLine = (text: string) => text.trim().replace(/\s*\n\s*/g, ' ');

/** Any error as one line on stderr: no stack, no multi-line driver messages. */
export function printError(message: string): void {
  process.stderr.write(`${paint('red', 'error:', process.stderr)} ${oneLine(message.replace(/^error:\s*/, ''))}\n`);
}

export type Cell = { text: string; format?: Format };

/** Left-aligned columns under a header; widths are measured before colouring so codes never shift a column. */
export function table(headers: readonly string[], rows: readonly (readonly Cell[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].text.length)));
  const line = (cells: readonly Cell[]) =>
    cells
      .map((c, i) => {
        const padded = i === cells.length - 1 ? c.text : c.text.padEnd(widths[i]);
        return c.format ? paint(c.format, padded) : padded;
      })
      .join('  ');
  return [line(headers.map((h) => ({ text: h, format: 'bold' }))), ...rows.map(line)].join('\n');
}

/** `2026-11-27 07:30Z`: minutes are enough to read a key's history, and UTC keeps every operator's view the same. */
export const shortTime = (iso: string | null, none: string) => (iso === null ? none : `${iso.slice(0, 10)} ${iso.slice(11, 16)}Z`);

/** The help section every command shows after its options. */
export const examples = (...lines: string[]) => `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}`;

/** How the README and the examples invoke the CLI; also the program name in every usage line. */
export const CLI = 'npm run --silent cli --';
