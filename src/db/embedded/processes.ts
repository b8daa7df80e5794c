// Child processes and pids.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Ids } from './postgres-user.ts';

export function run(cmd: string, args: string[], ids: Ids): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...ids, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${path.basename(cmd)} failed (code ${code}, signal ${signal}):\n${out.slice(-4000)}`));
    });
  });
}

export function readFrom(file: string, offset: number): string {
  try {
    return readFileSync(file).subarray(offset).toString('utf8');
  } catch {
    return '';
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (process.platform === 'linux') {
    try {
      if (/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))) return false; // zombie: exited
    } catch {
      return false;
    }
  }
  return true;
}

export function sleep(ms: number) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
