// A plain-HTTP server on 127.0.0.1 that records every request it gets; stands in for the internet in outbound tests.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import net, { type AddressInfo } from 'node:net';

export type RecordedRequest = { method: string; path: string; query: URLSearchParams; headers: IncomingHttpHeaders; body: string };

export type LocalServer = {
  port: number;
  /** http://127.0.0.1:<port> */
  origin: string;
  requests: RecordedRequest[];
  close: () => Promise<void>;
};

export async function startLocalServer(handle: (req: RecordedRequest, res: ServerResponse, raw: IncomingMessage) => void): Promise<LocalServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer(async (raw, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of raw) chunks.push(chunk);
    const url = new URL(raw.url ?? '/', 'http://local');
    const recorded = { method: raw.method ?? '', path: url.pathname, query: url.searchParams, headers: raw.headers, body: Buffer.concat(chunks).toString('utf8') };
    requests.push(recorded);
    handle(recorded, res, raw);
  });
  return listen(server, requests);
}

/** A TCP server that accepts connections and never says anything (a TLS handshake or an answer that never comes). */
export async function startSilentServer(): Promise<LocalServer & { connections: () => number }> {
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const local = await listen(server, [], () => sockets.forEach((s) => s.destroy()));
  return { ...local, connections: () => connections };
}

async function listen(server: net.Server & { closeAllConnections?: () => void }, requests: RecordedRequest[], dropAll?: () => void): Promise<LocalServer> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        dropAll?.();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}
