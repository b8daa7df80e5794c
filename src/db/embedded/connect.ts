// Connecting to the embedded server: it listens on loopback only and authenticates the `postgres` user by password.
import pg from 'pg';
import { sleep } from './processes.ts';

export const USER = 'postgres';
export const HOST = '127.0.0.1';

export async function waitConnectable(port: number, password: string, deadline: number) {
  while (!(await canConnect(port, password))) {
    if (Date.now() > deadline) throw new Error(`cannot connect to the embedded PostgreSQL on port ${port}`);
    await sleep(100);
  }
}

export async function canConnect(port: number, password: string): Promise<boolean> {
  const client = new pg.Client({ host: HOST, port, user: USER, password, database: 'postgres', connectionTimeoutMillis: 2_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

export async function ensureDatabase(port: number, password: string, database: string) {
  const client = new pg.Client({ host: HOST, port, user: USER, password, database: 'postgres' });
  client.on('error', () => {});
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!rowCount) {
      await client.query(`CREATE DATABASE ${pg.escapeIdentifier(database)}`).catch((err: { code?: string }) => {
        if (err.code !== '42P04' && err.code !== '23505') throw err; // created meanwhile by another client
      });
    }
  } finally {
    await client.end().catch(() => {});
  }
}
