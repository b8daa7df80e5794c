import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import type { Config } from '../config.ts';
import type { Db, Tx } from '../db/client.ts';
import type { ProblemCode } from '../errors.ts';
import type { ReversibleEntity } from '../services/reversible.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import type { Scope } from './scopes.ts';

/** Who calls: an API key, or an OAuth grant acting for the operator key that approved it (`keyId`). */
export type Principal = { keyId: string; name: string; scopes: ReadonlySet<Scope>; grantId?: string };

/** One row of the audit diff a write produces; also what a dry run reports as `changes`. */
export type Change = {
  entityType: string;
  entityId: string;
  before: unknown;
  after: unknown;
  /** Facts about the call that are not entity state (e.g. an image's alt text). */
  meta?: unknown;
  /** Set on the entry audit.revert writes: the id of the entry it reverted. */
  revertOf?: string;
  /** A later write of the entity in the same transaction: its events take the next sequence number (AuditedChange). */
  step?: number;
};

/** What a read handler gets: no transaction and no audit log, because a read changes nothing. */
export type ReadContext = {
  db: Db | Tx;
  principal: Principal | null;
  requestId: string;
  log: FastifyBaseLogger;
  config: Config;
  /** Seals and opens the secrets kept in the database (webhook signing secrets). */
  secrets: SecretBox;
};

/** What a write handler gets: the transaction its changes and their audit entries are written in. */
export type WriteContext = Omit<ReadContext, 'db'> & {
  db: Tx;
  /** Records an audit entry, written in the same transaction as the change itself. */
  audit: (change: Change) => void;
  /**
   * Runs `effect` once the change has committed, without holding up the answer: for what lies outside the
   * database (telling a provider its photo is used). Never for a dry run, a replay or a failed call; a failing
   * effect is logged.
   */
  afterCommit: (effect: () => Promise<void>) => void;
  /**
   * Runs `effect` with the failure when the write fails for good: rolled back and not run again (a rerun after a
   * conflict is no failure, a dry run none). For what the handler did outside the database before the failure (a
   * payment taken), which the effect gives back. A failing effect is logged.
   */
  afterFailure: (effect: (err: unknown) => Promise<void>) => void;
  /** A dry run: its transaction is rolled back, so the handler must do nothing outside the database either. */
  dryRun: boolean;
};

/** What a write's after-commit step gets: no transaction any more, the service's database client itself. */
export type AfterCommitContext = Omit<ReadContext, 'db'> & { db: Db };

export type ToolContext = ReadContext | WriteContext;

/** MCP tool annotations, derived from the tool's kind and flags so agents can tell reads from destructive writes. */
export type ToolAnnotations = {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
};

export type Deprecation = { since: Date; sunset: Date; link: string };

/**
 * How a write's audit entries can be undone. `reversible`: audit.revert restores entries of these entities written
 * by this tool. `appendOnly`: entity types the tool records that are history, not undoable (orders, carts, creations
 * whose undo would be a delete). A write may list both when it records several entity types.
 */
export type AuditDeclaration = { reversible?: readonly ReversibleEntity[]; appendOnly?: readonly string[] };

/** A Sunset date is announced at least 90 days before the removal it names. */
export const MIN_SUNSET_NOTICE_DAYS = 90;

function checkDeprecation(name: string, d: Deprecation): void {
  const noticeDays = (d.sunset.getTime() - d.since.getTime()) / 86_400_000;
  if (!(noticeDays >= MIN_SUNSET_NOTICE_DAYS)) {
    throw new Error(`${name}: Sunset must be at least ${MIN_SUNSET_NOTICE_DAYS} days after Deprecation (got ${noticeDays.toFixed(1)})`);
  }
}

type AnyObject = z.ZodObject<z.ZodRawShape>;

/**
 * A per-key limit stricter than the key's own, for a tool that spends something scarce (an external provider's
 * quota). Counted per key on top of the key's limit, over REST and MCP together; its policy in the RateLimit
 * headers is named after the tool.
 */
export type ToolRateLimit = Readonly<{ max: number; windowSeconds: number }>;

type CommonSpec<I extends AnyObject, O extends z.ZodType> = {
  name: string;
  title: string;
  description: string;
  scope: Scope;
  /** Callable without a key. */
  anonymous?: boolean;
  /** Problem codes the handler can raise beyond the ones every call can meet (registry/tool-problems.ts). */
  errors: readonly ProblemCode[];
  /** Calling again with the same input has no further effect (reads are idempotent unless they say otherwise). */
  idempotent?: boolean;
  /** The tool reaches beyond this service's own data (an external provider). */
  openWorld?: boolean;
  rateLimit?: ToolRateLimit;
  input: I;
  output: O;
  deprecated?: Deprecation;
};

export type ReadToolSpec<I extends AnyObject, O extends z.ZodType> = CommonSpec<I, O> & {
  kind: 'read';
  handler: (input: z.infer<I>, ctx: ReadContext) => Promise<z.input<O>>;
};

export type WriteToolSpec<I extends AnyObject, O extends z.ZodType> = CommonSpec<I, O> & {
  kind: 'write';
  /** Removes or overwrites data an agent cannot simply re-create. */
  destructive?: boolean;
  /** The call must carry `confirm: true` unless it is a dry run (docs/agent-safety.md). */
  requiresConfirm?: boolean;
  audit: AuditDeclaration;
  /**
   * What the Idempotency-Key record keeps of a successful result, and so what a replay answers: for a result that
   * holds something shown once (a signing secret), which must not be stored or handed out again. The output schema
   * must allow what it returns. Left out, the result is kept as it is.
   */
  replayResult?: (result: z.output<O>) => z.input<O>;
  /**
   * Completes the result once the transaction has committed: for a call to an external service that must not run
   * while the write holds row locks (a Stripe Checkout Session for a placed order, docs/payments.md). Runs after the
   * first call and again on every replay of its Idempotency-Key (what is stored is the result before this step, so
   * the step must be idempotent itself); never for a dry run or a failed call. Its answer is checked against the
   * output schema; a failure it throws is the call's answer, though the write has committed, so a step that can
   * fail says in the result how to finish instead where the write must count as done.
   */
  completeAfterCommit?: (result: z.output<O>, ctx: AfterCommitContext) => Promise<z.input<O>>;
  handler: (input: z.infer<I>, ctx: WriteContext) => Promise<z.input<O>>;
};

export type ToolSpec<I extends AnyObject, O extends z.ZodType> = ReadToolSpec<I, O> | WriteToolSpec<I, O>;

type ToolBase = {
  readonly name: string;
  readonly title: string;
  /** The declared description, plus the reversibility sentence derived from `audit`. */
  readonly description: string;
  readonly scope: Scope;
  readonly anonymous: boolean;
  readonly requiresConfirm: boolean;
  /** Writes run in a transaction with their audit entries, and accept dryRun and Idempotency-Key. */
  readonly write: boolean;
  /** The tool-specific problem codes it declared. */
  readonly errors: readonly ProblemCode[];
  /** Entities whose entries of this tool audit.revert can undo; empty for reads and append-only writes. */
  readonly reversible: readonly ReversibleEntity[];
  /** Every audit entity type the tool may record (reversible or append-only). */
  readonly auditedTypes: ReadonlySet<string>;
  /** The published input schema: the tool's fields plus `confirm`/`dryRun` where they apply. */
  readonly input: AnyObject;
  /** What requests are validated with: like `input`, but `confirm` is checked separately (422, not 400). */
  readonly validator: AnyObject;
  readonly output: z.ZodType;
  readonly annotations: ToolAnnotations;
  readonly deprecated: Deprecation | undefined;
  readonly rateLimit: ToolRateLimit | undefined;
  /** The result an Idempotency-Key record keeps and a replay answers, from the result of the call (see WriteToolSpec). */
  readonly replayResult: (result: unknown) => unknown;
  /** The write's after-commit step (see WriteToolSpec); undefined for reads and most writes. */
  readonly completeAfterCommit: ((result: unknown, ctx: AfterCommitContext) => Promise<unknown>) | undefined;
};

export type Tool =
  | (ToolBase & { readonly kind: 'read'; readonly handler: (input: Record<string, unknown>, ctx: ReadContext) => Promise<unknown> })
  | (ToolBase & { readonly kind: 'write'; readonly handler: (input: Record<string, unknown>, ctx: WriteContext) => Promise<unknown> });

export const REVERSIBLE_SENTENCE = 'Reversible with audit.revert.';
const rateLimitSentence = ({ max, windowSeconds }: ToolRateLimit) => `Limited to ${max} calls per ${windowSeconds} s per key.`;

const DryRunField = z.boolean().optional().describe('Validate and run the tool in a transaction that is rolled back; returns the changes it would make.');
// Optional in the schema because a dry run needs none; the rule between the two fields is stated here and answered
// with 422 confirmation_required.
const ConfirmField = z
  .literal(true)
  .optional()
  .describe('Must be exactly true to perform this change; may be left out only with dryRun: true (422 confirmation_required otherwise).');

/** The declared replayResult, typed by parsing with the output schema (the result passed in already fits it). */
function replayResultOf<I extends AnyObject, O extends z.ZodType>(spec: ToolSpec<I, O>): (result: unknown) => unknown {
  const redact = spec.kind === 'write' ? spec.replayResult : undefined;
  if (!redact) return (result) => result;
  return (result) => spec.output.parse(redact(spec.output.parse(result)));
}

/** The declared after-commit step, typed by parsing the committed result with the output schema. */
function completionOf<I extends AnyObject, O extends z.ZodType>(spec: ToolSpec<I, O>): ToolBase['completeAfterCommit'] {
  const step = spec.kind === 'write' ? spec.completeAfterCommit : undefined;
  if (!step) return undefined;
  return (result, ctx) => step(spec.output.parse(result), ctx);
}

export function defineTool<I extends AnyObject, O extends z.ZodType>(spec: ToolSpec<I, O>): Tool {
  if (spec.deprecated) checkDeprecation(spec.name, spec.deprecated);
  const write = spec.kind === 'write';
  const requiresConfirm = write ? (spec.requiresConfirm ?? false) : false;
  const reversible = write ? (spec.audit.reversible ?? []) : [];
  const auditedTypes = write ? new Set([...reversible.map((e) => e.entityType), ...(spec.audit.appendOnly ?? [])]) : new Set<string>();
  const extras: z.ZodRawShape = write ? { dryRun: DryRunField } : {};
  // extend() starts a new schema: the declared one's JSON Schema metadata (e.g. atLeastOneOf) is carried over.
  const published = spec.input.meta() ?? {};
  const input = spec.input.extend({ ...extras, ...(requiresConfirm ? { confirm: ConfirmField } : {}) }).strict().meta(published);
  const validator = spec.input.extend({ ...extras, ...(requiresConfirm ? { confirm: z.unknown().optional() } : {}) }).strict();
  const base: ToolBase = {
    name: spec.name,
    title: spec.title,
    description: [spec.description, reversible.length > 0 ? REVERSIBLE_SENTENCE : '', spec.rateLimit ? rateLimitSentence(spec.rateLimit) : ''].filter(Boolean).join(' '),
    scope: spec.scope,
    anonymous: spec.anonymous ?? false,
    requiresConfirm,
    write,
    errors: Object.freeze([...spec.errors]),
    reversible: Object.freeze([...reversible]),
    auditedTypes,
    input,
    validator,
    output: spec.output,
    annotations: Object.freeze({
      openWorldHint: spec.openWorld ?? false,
      readOnlyHint: !write,
      destructiveHint: write ? (spec.destructive ?? false) : false,
      idempotentHint: spec.idempotent ?? !write,
    }),
    deprecated: spec.deprecated,
    rateLimit: spec.rateLimit ? Object.freeze({ ...spec.rateLimit }) : undefined,
    replayResult: replayResultOf(spec),
    completeAfterCommit: completionOf(spec),
  };
  // The handlers' input types are the validators' outputs, which invokeTool passes them; the registry holds them
  // untyped so tools of every shape fit one list.
  return Object.freeze(
    spec.kind === 'read'
      ? { ...base, kind: 'read' as const, handler: spec.handler as (input: Record<string, unknown>, ctx: ReadContext) => Promise<unknown> }
      : { ...base, kind: 'write' as const, handler: spec.handler as (input: Record<string, unknown>, ctx: WriteContext) => Promise<unknown> },
  );
}
