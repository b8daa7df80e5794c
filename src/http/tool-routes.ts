import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import type { Tool } from '../registry/define-tool.ts';
import { parseIdempotencyKey } from '../registry/idempotency.ts';
import { invokeTool, type InvokeDeps } from '../registry/invoke-tool.ts';
import type { Limiters } from './rate-limit.ts';
import { count, countHeader } from './request-guard.ts';
import { deprecationHeaders } from './deprecation.ts';
import { PATHS } from './paths.ts';

function idempotencyKeyOf(req: FastifyRequest): string | undefined {
  if (countHeader(req, 'idempotency-key') > 1) throw new AppError('invalid_idempotency_key', 'Send exactly one Idempotency-Key header.');
  return parseIdempotencyKey(req.headers['idempotency-key']);
}

/** One POST route per registry tool; the guard (auth + rate limits) runs before the body is parsed. */
export function registerToolRoutes(
  app: FastifyInstance,
  deps: InvokeDeps,
  tools: readonly Tool[],
  guard: (req: FastifyRequest) => Promise<void>,
  limiters: Limiters,
): void {
  for (const tool of tools) {
    const headers = tool.deprecated ? deprecationHeaders(tool.deprecated) : undefined;
    app.post(`${PATHS.toolPrefix}${tool.name}`, { onRequest: guard }, async (req, reply) => {
      const idempotencyKey = tool.write ? idempotencyKeyOf(req) : undefined;
      const { replayed, ...outcome } = await invokeTool(deps, {
        tool, body: req.body, principal: req.principal, requestId: req.id, clientAddress: req.ip, log: req.log, idempotencyKey,
        countToolCall: (name, limit) => count(req, limiters.tool(name, limit)),
      });
      if (headers) reply.headers(headers);
      if (replayed) reply.header('Idempotent-Replayed', 'true');
      return outcome;
    });
  }
  // The method is checked before the key: TRACE or GET on a tool is 405 whatever the Authorization header says.
  const methodFirst = async (req: FastifyRequest) => {
    const { name } = req.params as { name: string };
    if (req.method !== 'POST' && tools.some((t) => t.name === name)) {
      throw new AppError('method_not_allowed', `Tools are called with POST ${PATHS.toolPrefix}${name}.`, { Allow: 'POST' });
    }
  };
  app.all(`${PATHS.toolPrefix}:name`, { onRequest: [methodFirst, guard] }, async (req) => {
    const { name } = req.params as { name: string };
    throw new AppError('unknown_tool', `There is no tool named "${name}".`);
  });
}
