import { problemOfIssues } from '../schemas/domain-issue.ts';
import type { FastifyBaseLogger } from 'fastify';
import type { z } from 'zod';
import type { Config } from '../config.ts';
import { inTransaction, type Db, type Tx } from '../db/client.ts';
import { AppError, classifyUnknown, isRetryableConflict } from '../errors.ts';
import { eventsOf } from '../events/outbox.ts';
import {
  claimStatement, earlierOutcome, keyInUse, recordOutcome, recordWrite, replay, requestHash, type IdempotencyClaim,
} from './idempotency.ts';
import type { AfterCommitContext, Change, Principal, ReadContext, Tool, ToolRateLimit, WriteContext } from './define-tool.ts';
import { insufficientScope } from './scopes.ts';
import { problemCodesOf } from './tool-problems.ts';
import type { SecretBox } from '../secrets/secret-box.ts';

export type InvokeDeps = { db: Db; config: Config; secrets: SecretBox };

export type InvokeRequest = {
  tool: Tool;
  body: unknown;
  principal: Principal | null;
  requestId: string;
  /** The client's address (request.ip: after TRUST_PROXY), kept on the audit entries a write records. */
  clientAddress: string;
  log: FastifyBaseLogger;
  /** From the Idempotency-Key header (HTTP) or `_meta.idempotencyKey` (MCP); only write tools use it. */
  idempotencyKey?: string;
  /** Counts the call against the tool's own rate limit (for tools that declare one); throws rate_limited past it. */
  countToolCall: (tool: string, limit: ToolRateLimit) => Promise<void>;
};

export type InvokeResult =
  | { ok: true; result: unknown; replayed?: true }
  | { ok: true; result: unknown; dryRun: true; changes: Change[]; replayed?: undefined };

/** Thrown to roll a dry run's transaction back once the handler has produced its result. */
class DryRunRollback {
  constructor(readonly result: unknown) {}
}

/**
 * The one path every tool call takes, from HTTP and MCP alike:
 * scope → the tool's own rate limit → body shape → input schema → confirm → handler (writes: in one transaction
 * with their audit entries) → output schema. Authentication and the per-key rate limits happened before, at the
 * transport edge.
 */
export async function invokeTool(deps: InvokeDeps, req: InvokeRequest): Promise<InvokeResult> {
  try {
    return await run(deps, req);
  } catch (err) {
    // Classified as the client will see it: a unique-constraint race is a `conflict` like an explicit one.
    const { code } = classifyUnknown(err);
    if (!problemCodesOf(req.tool).has(code)) {
      throw contractBroken(deps, req, `${req.tool.name} raised the undeclared problem code ${code}: declare it in its errors`, err) ?? err;
    }
    throw err;
  }
}

/**
 * A tool doing what its declaration does not say. Logged always; under `toolContracts: strict` (tests, fuzzer) the
 * returned error fails the call with a 500 so the declaration gets fixed; otherwise (null) the call goes on as if
 * nothing were wrong.
 */
function contractBroken(deps: InvokeDeps, req: InvokeRequest, message: string, err?: unknown): Error | null {
  req.log.error({ tool: req.tool.name, err }, message);
  return deps.config.toolContracts === 'strict' ? new Error(message) : null;
}

async function run(deps: InvokeDeps, req: InvokeRequest): Promise<InvokeResult> {
  const { tool } = req;
  authorize(tool, req.principal);
  if (tool.rateLimit) await req.countToolCall(tool.name, tool.rateLimit);
  const { confirm, dryRun, ...args } = validateInput(tool, req.body);
  // A dry run needs no confirm, but a confirm that is sent must be exactly true (the published schema says so).
  if (tool.requiresConfirm && (confirm === undefined ? dryRun !== true : confirm !== true)) {
    throw new AppError('confirmation_required', `${tool.name} changes data and needs "confirm": true (preview it first with "dryRun": true).`);
  }

  const readContext = { principal: req.principal, requestId: req.requestId, log: req.log, config: deps.config, secrets: deps.secrets };
  if (tool.kind === 'read') {
    return { ok: true, result: shapeOutput(tool, await tool.handler(args, { ...readContext, db: deps.db })) };
  }

  // A dry run consumes nothing, not even the idempotency key.
  const idem: IdempotencyClaim | null =
    req.idempotencyKey && req.principal && dryRun !== true
      ? { apiKeyId: req.principal.keyId, key: req.idempotencyKey, tool: tool.name, requestHash: requestHash(tool.name, req.body) }
      : null;
  for (let attempt = 1; ; attempt++) {
    const outcome = await writeOnce(deps, req, { args, dryRun, idem, readContext, lookFirst: attempt > 1 });
    if (outcome !== RUN_AGAIN) return 'dryRun' in outcome ? outcome : complete(tool, outcome, { ...readContext, db: deps.db });
    if (attempt === WRITE_ATTEMPTS) {
      throw new AppError('service_unavailable', 'Concurrent changes to the same rows kept this write from completing; nothing was changed. Retry it.', { 'Retry-After': '1' });
    }
  }
}

/**
 * How often a write is run when its transaction asks to be run again. Each time means another write changed a row
 * this one depends on and committed, so a run that comes back this often is under contention no retry will end.
 */
const WRITE_ATTEMPTS = 5;

/** writeOnce's answer when the write was rolled back and should be run again from the start. */
const RUN_AGAIN = Symbol('run again');

/**
 * `lookFirst`: read the key's stored outcome before the transaction (earlierOutcome). Only when a run came back: a
 * first run leaves that to its claim, which raises 40001 when a live record of the key exists, so the run comes back
 * and looks then. A first call, nearly every call, saves a round trip; a replay costs one rolled-back claim more.
 */
type WriteInput = { args: Record<string, unknown>; dryRun: boolean | undefined; idem: IdempotencyClaim | null; readContext: Omit<ReadContext, 'db'>; lookFirst: boolean };

/** One run of a write: its transaction with the handler, the audit entries, events and stored outcome. */
async function writeOnce(deps: InvokeDeps, req: InvokeRequest, { args, dryRun, idem, readContext, lookFirst }: WriteInput): Promise<InvokeResult | typeof RUN_AGAIN> {
  const { tool } = req;
  const changes: Change[] = [];
  const effects: Array<() => Promise<void>> = [];
  const undo: Array<(err: unknown) => Promise<void>> = [];
  const writeContext = (tx: Tx): WriteContext => ({
    ...readContext,
    db: tx,
    audit: (change) => {
      if (!tool.auditedTypes.has(change.entityType)) {
        const broken = contractBroken(deps, req, `${tool.name} audited the undeclared entity type ${change.entityType}: declare it reversible or appendOnly`);
        if (broken) throw broken;
      }
      changes.push(change);
    },
    afterCommit: (effect) => effects.push(effect),
    afterFailure: (effect) => undo.push(effect),
    dryRun: dryRun === true,
  });

  if (idem && lookFirst) {
    const earlier = await earlierOutcome(deps.db, idem);
    if (earlier) return replay(earlier);
  }
  let executing = false;
  try {
    const result = await inTransaction(deps.db, async (tx) => {
      executing = true;
      const shaped = shapeOutput(tool, await tool.handler(args, writeContext(tx)));
      if (dryRun === true) throw new DryRunRollback(shaped);
      await recordWrite(tx, {
        apiKeyId: req.principal?.keyId ?? null,
        grantId: req.principal?.grantId ?? null,
        clientAddress: req.clientAddress,
        tool: tool.name,
        entries: changes,
        events: eventsOf(changes, { validate: deps.config.toolContracts === 'strict' }),
        idempotency: idem,
        outcome: { status: 200, body: { ok: true, result: tool.replayResult(shaped) } },
      });
      return shaped;
    }, idem ? claimStatement(idem) : undefined);
    for (const effect of effects) {
      effect().catch((err: unknown) => req.log.warn({ err, tool: tool.name }, 'effect after commit failed'));
    }
    return { ok: true, result };
  } catch (err) {
    // The key is held by a call still running: this one never ran (inTransaction reports the claim's failure first).
    const inUse = idem && keyInUse(err);
    if (inUse) throw inUse;
    if (err instanceof DryRunRollback) return { ok: true, result: err.result, dryRun: true, changes };
    // Another call with this key committed between this one's claim and its end: run again, it then replays. Or
    // rows the write read changed before it locked them (agent_api_expect): run again on the rows as they are now.
    if (isRetryableConflict(err)) return RUN_AGAIN;
    // A domain failure after execution began is remembered too, so a retry gets the same answer (Stripe's rule);
    // the write itself was rolled back. Infrastructure failures (5xx) stay retryable.
    if (idem && executing && err instanceof AppError && err.status < 500) {
      await recordOutcome(deps.db, idem, { status: err.status, body: { code: err.code, detail: err.message } }).catch((e) =>
        req.log.warn({ err: e }, 'could not record idempotent error outcome'),
      );
    }
    for (const effect of undo) await effect(err).catch((e: unknown) => req.log.warn({ err: e, tool: tool.name }, 'effect after failure failed'));
    throw err;
  }
}

/**
 * A committed write's (or a replay's) result, completed by the tool's after-commit step when it declares one: the
 * transaction and its row locks are gone by now, so the step may call an external service (docs/payments.md).
 */
async function complete(tool: Tool, outcome: Exclude<InvokeResult, { dryRun: true }>, ctx: AfterCommitContext): Promise<InvokeResult> {
  if (!tool.completeAfterCommit) return outcome;
  return { ...outcome, result: shapeOutput(tool, await tool.completeAfterCommit(outcome.result, ctx)) };
}

function authorize(tool: Tool, principal: Principal | null): void {
  if (tool.anonymous) return;
  if (!principal) {
    throw new AppError('unauthorized', `${tool.name} requires an API key with scope ${tool.scope}.`, {
      'WWW-Authenticate': `Bearer realm="agent-api", scope="${tool.scope}"`,
    });
  }
  if (!principal.scopes.has(tool.scope)) {
    const viaOAuth = principal.grantId !== undefined;
    throw insufficientScope([tool.scope], `This ${viaOAuth ? 'grant' : 'key'} lacks the scope ${tool.scope} required by ${tool.name}.`, viaOAuth);
  }
}

type ValidatedInput = Record<string, unknown> & { confirm?: unknown; dryRun?: boolean };

function validateInput(tool: Tool, body: unknown): ValidatedInput {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new AppError('invalid_body', 'The request body must be a JSON object; send {} when the tool takes no fields.');
  }
  const parsed = tool.validator.safeParse(body);
  if (!parsed.success) throw new AppError(problemOfIssues(parsed.error.issues), describeIssues(parsed.error.issues));
  return parsed.data as ValidatedInput;
}

export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 10)
    .map((issue) => {
      const path = issue.path.length ? issue.path.map(String).join('.') : '(body)';
      if (issue.code === 'unrecognized_keys') return `${path}: unknown field(s) ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
      return `${path}: ${issue.message}`;
    })
    .join('; ');
}

function shapeOutput(tool: Tool, value: unknown): unknown {
  // Parsing (not just checking) strips any field the output schema does not declare, so nothing leaks.
  const parsed = tool.output.safeParse(value);
  if (!parsed.success) {
    throw new Error(`Output of ${tool.name} does not match its schema: ${describeIssues(parsed.error.issues)}`);
  }
  return parsed.data;
}
