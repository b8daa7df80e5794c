// A real SMTP server for the e-mail tests (the smtp-server package) on an ephemeral local port, and a small reader
// of the MIME messages it receives: the headers, and the text and HTML parts decoded.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { expect } from 'vitest';

export type ReceivedEmail = {
  from: string;
  to: string[];
  subject: string;
  messageId: string;
  text: string;
  html: string;
  raw: string;
};

export type TestSmtp = {
  port: number;
  /** SMTP_URL for the service: with user and password when the server was started with `auth`. */
  url: string;
  received: ReceivedEmail[];
  /** Resolves once `count` e-mails have arrived (fails the test after `timeoutMs`). */
  waitFor: (count: number, timeoutMs?: number) => Promise<ReceivedEmail[]>;
  close: () => Promise<void>;
};

/**
 * Listens on 127.0.0.1 (`port` 0: any free one). Without TLS (no STARTTLS offered), so nodemailer speaks plain
 * SMTP; with `auth` the server requires AUTH PLAIN/LOGIN with exactly that user and password.
 */
export async function startSmtp(
  opts: {
    port?: number;
    auth?: { user: string; pass: string };
    /** Collects into this list (kept across a restart on the same port). */
    received?: ReceivedEmail[];
    /** Answers 550 to RCPT TO for these addresses: a mailbox that does not exist. */
    refuse?: readonly string[];
    /** Runs when a message has arrived, before the server answers that it accepted it. */
    beforeAccepting?: () => Promise<void>;
  } = {},
): Promise<TestSmtp> {
  const received = opts.received ?? [];
  const server = new SMTPServer({
    logger: false,
    disabledCommands: opts.auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !opts.auth,
    allowInsecureAuth: true,
    onAuth(auth, _session, callback) {
      if (opts.auth && auth.username === opts.auth.user && auth.password === opts.auth.pass) callback(null, { user: auth.username });
      else callback(new Error('Invalid username or password'));
    },
    onRcptTo(address, _session, callback) {
      if (!opts.refuse?.includes(address.address.toLowerCase())) return callback();
      callback(Object.assign(new Error('5.1.1 No such mailbox'), { responseCode: 550 }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        received.push({ ...parseMessage(raw), from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address) });
        void (opts.beforeAccepting?.() ?? Promise.resolve()).then(() => callback());
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  const credentials = opts.auth ? `${encodeURIComponent(opts.auth.user)}:${encodeURIComponent(opts.auth.pass)}@` : '';
  return {
    port,
    url: `smtp://${credentials}127.0.0.1:${port}`,
    received,
    async waitFor(count, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > until) expect.fail(`expected ${count} e-mails within ${timeoutMs} ms, received ${received.length}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return received;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Header name (lower case) → value, unfolded; a header given twice keeps the first. */
function headersOf(block: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of block.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0 && !headers.has(line.slice(0, colon).toLowerCase())) headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  return headers;
}

/** RFC 2047 encoded words (=?UTF-8?Q?…?= and =?UTF-8?B?…?=), as nodemailer writes a non-ASCII subject. */
function decodeWords(value: string): string {
  return value.replace(/\?=\s+=\?/g, '?==?').replace(/=\?utf-8\?([QB])\?([^?]*)\?=/gi, (_, enc: string, data: string) =>
    enc.toUpperCase() === 'B' ? Buffer.from(data, 'base64').toString('utf8') : decodeQuotedPrintable(data.replace(/_/g, ' ')),
  );
}

function decodeQuotedPrintable(value: string): string {
  const bytes: number[] = [];
  const soft = value.replace(/=\r?\n/g, '');
  for (let i = 0; i < soft.length; i++) {
    if (soft[i] === '=' && /^[0-9A-F]{2}$/i.test(soft.slice(i + 1, i + 3))) {
      bytes.push(parseInt(soft.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...Buffer.from(soft[i], 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

function decodeBody(headers: Map<string, string>, body: string): string {
  const encoding = (headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') return decodeQuotedPrintable(body);
  return body;
}

/** The message's subject and Message-ID, and its text/plain and text/html parts (one level of multipart). */
function parseMessage(raw: string): Omit<ReceivedEmail, 'from' | 'to'> {
  const split = raw.indexOf('\r\n\r\n');
  const headers = headersOf(raw.slice(0, split));
  const body = raw.slice(split + 4);
  const parts: { headers: Map<string, string>; body: string }[] = [];
  const boundary = /boundary="?([^";]+)"?/.exec(headers.get('content-type') ?? '')?.[1];
  if (boundary) {
    for (const part of body.split(`--${boundary}`).slice(1, -1)) {
      const at = part.indexOf('\r\n\r\n');
      parts.push({ headers: headersOf(part.slice(2, at)), body: part.slice(at + 4).replace(/\r\n$/, '') });
    }
  } else parts.push({ headers, body });
  const partOf = (type: string) => parts.find((p) => (p.headers.get('content-type') ?? '').startsWith(type));
  const decoded = (type: string) => {
    const part = partOf(type);
    return part ? decodeBody(part.headers, part.body).replace(/\r\n/g, '\n') : '';
  };
  return {
    subject: decodeWords(headers.get('subject') ?? ''),
    messageId: headers.get('message-id') ?? '',
    text: decoded('text/plain'),
    html: decoded('text/html'),
    raw,
  };
}

/** Intl writes a no-break space between amount and currency; the tests compare with plain spaces. */
export const plainSpaces = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');
