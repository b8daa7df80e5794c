/**
 * A problem the operator fixes in the environment (a setting's value, a folder's permissions): reported as its message
 * alone, one line per problem, without a stack trace.
 */
export class SetupError extends Error {}

/**
 * A listen that failed for a reason a setting fixes (the port is taken, the host is not an address of this machine,
 * a port below 1024 without the privilege) as a SetupError naming those settings; any other error unchanged.
 */
export function listenFailure(err: unknown, settings: { host: string; port: string }, at: { host: string; port: number }): unknown {
  const where = `Cannot listen on ${at.host}:${at.port}`;
  switch ((err as NodeJS.ErrnoException | null)?.code) {
    case 'EADDRINUSE':
      return new SetupError(`${where}: another process is listening there; stop it or set ${settings.port} to a free port.`);
    case 'EADDRNOTAVAIL':
      return new SetupError(`${where}: ${at.host} is not an address of this machine; set ${settings.host} to one of its addresses (0.0.0.0: all).`);
    case 'EACCES':
      return new SetupError(`${where}: ports below 1024 need privileges this process lacks; set ${settings.port} to 1024 or above.`);
    default:
      return err;
  }
}
