// A second process for test/db/embedded.test.ts: starts the embedded PostgreSQL on argv[2], prints
// {"url","owned","pid"} as one line, then stops it (if owned) and exits when "stop" arrives on stdin.
import { startEmbeddedPostgres } from '../../src/db/embedded.ts';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: embedded-child.ts <dataDir>');
const pg = await startEmbeddedPostgres({ dataDir });
process.stdout.write(`${JSON.stringify({ url: pg.url, owned: pg.owned, pid: process.pid })}\n`);
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  if (chunk.includes('stop')) {
    void pg.stop().then(() => process.exit(0));
  }
});
