const field = (value: unknown, key: string): unknown => (typeof value === 'object' && value !== null ? Reflect.get(value, key) : undefined);

/** `req-7 POST /api/v1/tools/products.update 200 request completed (3 ms)`: one line per request event. */
function requestLine(log: Record<string, unknown>, messageKey: string): string {
  const time = field(log, 'responseTime');
  return [
    field(log, 'reqId'),
    field(field(log, 'req'), 'method'),
    field(field(log, 'req'), 'url'),
    field(field(log, 'res'), 'statusCode'),
    log[messageKey],
    typeof time === 'number' ? `(${Math.round(time)} ms)` : undefined,
  ]
    .filter((part) => part !== undefined && part !== '')
    .join(' ');
}

/**
 * Where the server's logs go: human-readable lines when stdout is a terminal (someone is watching `npm start`),
 * else undefined, meaning pino's default of one JSON object per line for log collectors. pino-pretty is loaded only
 * in the terminal case; it writes synchronously so nothing is lost when the process stops.
 */
export async function logDestination(): Promise<NodeJS.WritableStream | undefined> {
  if (!process.stdout.isTTY) return undefined;
  const { default: pretty } = await import('pino-pretty');
  return pretty({
    sync: true,
    // hasColors() is false under NO_COLOR, NODE_DISABLE_COLORS or TERM=dumb.
    colorize: process.stdout.hasColors(),
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,reqId,req,res,responseTime',
    messageFormat: requestLine,
  });
}
