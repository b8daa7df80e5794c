// What the processes of a run cost: memory and CPU read from /proc (Linux), per process, per PostgreSQL backend
// and for the whole machine.
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { round } from './format.ts';
import { settings } from './settings.ts';

/** VmRSS and VmHWM (peak) of a process, in MB; null where /proc is not available. */
export function memoryOf(pid: number): { rssMb: number; peakRssMb: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssMb: round(kb('VmRSS') / 1024, 1), peakRssMb: round(kb('VmHWM') / 1024, 1) };
  } catch {
    return null;
  }
}

const CLOCK_TICKS = 100; // USER_HZ on Linux
/** User + system CPU seconds of one process (utime + stime in /proc/<pid>/stat). */
export function cpuSecondsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15 (1-based).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}
/**
 * CPU seconds per PostgreSQL backend serving the bench database (pool connections stay open during a run, so the
 * delta over a window is the database work of that window; other databases' backends are not counted).
 */
export async function backendCpu(databaseName: string): Promise<Map<number, number>> {
  const client = new pg.Client({ connectionString: settings.serverUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [databaseName],
    );
    return new Map(rows.map((r) => [r.pid, cpuSecondsOf(r.pid)]));
  } finally {
    await client.end();
  }
}
export function backendCpuDelta(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, cpu] of after) total += cpu - (before.get(pid) ?? 0);
  return total;
}

/**
 * Busy and total CPU seconds of the whole machine (first line of /proc/stat), and the seconds CPUs sat idle with
 * I/O outstanding (iowait: here mostly PostgreSQL's WAL flushes and checkpoint writes).
 */
export function machineCpu(): { busy: number; total: number; iowait: number } | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
    const idle = fields[3] + fields[4];
    return { busy: (total - idle) / CLOCK_TICKS, total: total / CLOCK_TICKS, iowait: fields[4] / CLOCK_TICKS };
  } catch {
    return null;
  }
}

/**
 * CPU seconds spent during a window that starts now, read when the returned function is called: by each of `pids`, by
 * the database's backends, and by the rest of the machine (every other process, this bench's own excluded; null where
 * /proc is missing), with the machine's iowait and the window's length. The machine is shared: "other" is the
 * background load a measurement saw.
 */
export async function cpuWindow(databaseName: string, pids: readonly number[]) {
  const pg0 = await backendCpu(databaseName);
  const own0 = pids.map(cpuSecondsOf);
  const bench0 = process.cpuUsage();
  const machine0 = machineCpu();
  const t0 = Date.now();
  return async () => {
    const seconds = (Date.now() - t0) / 1000;
    const machine1 = machineCpu();
    const { user, system } = process.cpuUsage(bench0);
    const own = pids.map((pid, i) => cpuSecondsOf(pid) - own0[i]);
    const pg = backendCpuDelta(pg0, await backendCpu(databaseName));
    const machine = machine0 && machine1
      ? { other: machine1.busy - machine0.busy - (user + system) / 1e6 - own.reduce((a, b) => a + b, 0) - pg, iowait: machine1.iowait - machine0.iowait }
      : null;
    return { seconds, own, pg, machine };
  };
}
