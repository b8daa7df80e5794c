import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import type { Config } from '../config.ts';
import type { Db, Tx } from '../db/client.ts';
import type { Scope } from './scopes.ts';

export type Principal = { keyId: string; name: string; scopes: ReadonlySet<Scope> };

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
};

export type ToolContext = {
  /** Inside a write tool this is the transaction the audit entries are written in. */
  db: Db | Tx;
  principal: Principal | null;
  requestId: string;
  log: FastifyBaseLogger;
  config: Config;
  /** Records an audit entry, written in the same transaction as the change itself. */
  audit: (change: Change) => void;
};

/** MCP tool annotations; declared by every tool so agents can tell reads from destructive writes. */
export type ToolAnnotations = {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
};

export type Deprecation = { since: Date; sunset: Date; link: string };

/** Spec §9.6: a Sunset date is announced at least 90 days before the removal it names. */
export const MIN_SUNSET_NOTICE_DAYS = 90;

function checkDeprecation(name: string, d: Deprecation): void {
  const noticeDays = (d.sunset.getTime() - d.since.getTime()) / 86_400_000;
  if (!(noticeDays >= MIN_SUNSET_NOTICE_DAYS)) {
    throw new Error(`${name}: Sunset must be at least ${MIN_SUNSET_NOTICE_DAYS} days after Deprecation (got ${noticeDays.toFixed(1)})`);
  }
}

type AnyObject = z.ZodObject<z.ZodRawShape>;

export type ToolSpec<I extends AnyObject, O extends z.ZodType> = {
  name: string;
  title: string;
  description: string;
  scope: Scope;
  /** Callable without a key (spec §5.1). */
  anonymous?: boolean;
  /** The call must carry `confirm: true` unless it is a dry run (spec §4, design.md §4). */
  requiresConfirm?: boolean;
  input: I;
  output: O;
  annotations: Omit<ToolAnnotations, 'openWorldHint'> & { openWorldHint?: boolean };
  deprecated?: Deprecation;
  handler: (input: z.infer<I>, ctx: ToolContext) => Promise<z.input<O>>;
};

export type Tool = {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly scope: Scope;
  readonly anonymous: boolean;
  readonly requiresConfirm: boolean;
  /** Writes run in a transaction with their audit entries, and accept dryRun and Idempotency-Key. */
  readonly write: boolean;
  /** The published input schema: the tool's fields plus `confirm`/`dryRun` where they apply. */
  readonly input: AnyObject;
  /** What requests are validated with: like `input`, but `confirm` is checked separately (422, not 400). */
  readonly validator: AnyObject;
  readonly output: z.ZodType;
  readonly annotations: ToolAnnotations;
  readonly deprecated: Deprecation | undefined;
  readonly handler: (input: Record<string, unknown>, ctx: ToolContext) => Promise<unknown>;
};

const DryRunField = z.boolean().optional().describe('Validate and run the tool in a transaction that is rolled back; returns the changes it would make.');
const ConfirmField = z.literal(true).describe('Must be exactly true to perform this change (not needed with dryRun: true).');

export function defineTool<I extends AnyObject, O extends z.ZodType>(spec: ToolSpec<I, O>): Tool {
  if (spec.deprecated) checkDeprecation(spec.name, spec.deprecated);
  const write = !spec.annotations.readOnlyHint;
  const requiresConfirm = spec.requiresConfirm ?? false;
  const extras: z.ZodRawShape = write ? { dryRun: DryRunField } : {};
  const input = spec.input.extend({ ...extras, ...(requiresConfirm ? { confirm: ConfirmField } : {}) }).strict();
  const validator = spec.input.extend({ ...extras, ...(requiresConfirm ? { confirm: z.unknown().optional() } : {}) }).strict();
  return Object.freeze({
    name: spec.name,
    title: spec.title,
    description: spec.description,
    scope: spec.scope,
    anonymous: spec.anonymous ?? false,
    requiresConfirm,
    write,
    input,
    validator,
    output: spec.output,
    annotations: Object.freeze({ openWorldHint: false, ...spec.annotations }),
    deprecated: spec.deprecated,
    handler: spec.handler as Tool['handler'],
  });
}
