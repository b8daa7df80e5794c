// embedded-pg.json: the remembered port, the generated password and the owning process.
import fs from 'node:fs/promises';

export type State = { port?: number; password?: string; ownerPid?: number };

export async function readState(file: string): Promise<State> {
  try {
    return JSON.parse(await fs.readFile(file, 'utf8')) as State;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new Error(`cannot read ${file}`, { cause: err });
  }
}

export async function writeState(file: string, state: State) {
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(tmp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  await fs.rename(tmp, file); // atomic: a reader never sees half a file
}
