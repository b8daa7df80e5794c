import { randomUUID } from 'node:crypto';
import {
  CLIENT_CAPABILITIES_META_KEY,
  createRequestStateCodec,
  inputRequired,
  inputResponse,
  ProtocolError,
  ProtocolErrorCode,
  type InputRequiredResult,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { AppError } from '../errors.ts';
import type { Change, Principal, Tool } from '../registry/define-tool.ts';
import type { Db } from '../db/client.ts';
import { earlierOutcome, replay, requestHash } from '../registry/idempotency.ts';
import type { InvokeResult } from '../registry/invoke-tool.ts';
import { claimApprovalNonce } from '../services/approval-uses.ts';
import { isObject } from './is-object.ts';

/**
 * Human approval of a destructive call through the protocol (2026-07-28 multi round-trip requests): instead of
 * requiring `"confirm": true` from the agent, the server shows the person at the client what the call would
 * change and asks them. docs/agent-safety.md describes both paths.
 */

/** What requestState carries between the question and the answer; sealed, so the client can read but not forge it. */
export type ApprovalState = {
  /** The key that was asked: the answer only counts for the same key. */
  keyId: string;
  /**
   * The OAuth grant that was asked, null for the key itself: the answer only counts for the same grant (another host
   * the same operator approved cannot use it).
   */
  grantId: string | null;
  tool: string;
  /** Hash of the exact arguments that were previewed: approving one call does not approve another. */
  argsHash: string;
  /**
   * Makes each question unique. The approved call claims it once in the database (approval-uses.ts), whatever
   * idempotency key it carries, and uses it as its idempotency key when it carries none.
   */
  nonce: string;
};

export type ApprovalCodec = RequestStateCodec<ApprovalState>;

/** A question older than this is refused (sealed into the state; checked on the answer). */
const APPROVAL_TTL_SECONDS = 300;
/** How long a used nonce is remembered: past the state's own expiry, with room for clocks that disagree. */
export const USED_NONCE_KEEP_SECONDS = 2 * APPROVAL_TTL_SECONDS;
const QUESTION = 'approval';

/**
 * The codec, created on first use: its secret may come from the database, and no call but an approval round (or
 * its answer) should wait for that. A failed read is retried by the next use.
 */
export function lazyApprovalCodec(secret: () => Promise<string>): ApprovalCodec {
  let codec: Promise<ApprovalCodec> | undefined;
  const ready = () =>
    (codec ??= secret()
      .then((key) => createRequestStateCodec<ApprovalState>({ key, ttlSeconds: APPROVAL_TTL_SECONDS }))
      .catch((err: unknown) => {
        codec = undefined;
        throw err;
      }));
  return {
    mint: async (payload, ctx) => (await ready()).mint(payload, ctx),
    verify: async (state, ctx) => (await ready()).verify(state, ctx),
  };
}

/** The part of the request's declared client capabilities that says whether it can show a form. */
const DeclaredCapabilities = z.looseObject({ elicitation: z.looseObject({}).optional() });

/**
 * Whether this call goes through approval: a confirm-requiring call without confirm, from a client that declared
 * it can show a form (in the request's `_meta` envelope). Others get `confirmation_required`, as over REST.
 */
export function needsApproval(tool: Tool, args: Record<string, unknown>, envelope: Record<string, unknown> | undefined): boolean {
  if (!tool.requiresConfirm || args.confirm === true || args.dryRun === true) return false;
  const declared = DeclaredCapabilities.safeParse(envelope?.[CLIENT_CAPABILITIES_META_KEY]);
  return declared.success && declared.data.elicitation !== undefined;
}

export type ApprovalDecision =
  | { kind: 'ask'; state: ApprovalState }
  | { kind: 'approved'; args: Record<string, unknown>; nonce: string; idempotencyKey: string };

/**
 * Reads the round: no state yet (or no answer) → ask; an approving answer to a question about exactly this call by
 * this key (and grant) → run it with `confirm: true`. A decline is the problem `confirmation_declined`; a state
 * minted for another key, grant, tool or arguments is refused like a forged one. (A forged or expired state never
 * gets here: the codec's verify hook refuses it first.)
 */
export function decideApproval(tool: Tool, args: Record<string, unknown>, principal: Principal | null, ctx: ServerContext): ApprovalDecision {
  const { confirm: _unconfirmed, ...call } = args;
  const asked: ApprovalState = {
    keyId: principal?.keyId ?? '', grantId: principal?.grantId ?? null, tool: tool.name, argsHash: requestHash(tool.name, call), nonce: randomUUID(),
  };
  const state = ctx.mcpReq.requestState<ApprovalState | string>();
  if (state === undefined) return { kind: 'ask', state: asked };
  if (typeof state === 'string' || state.keyId !== asked.keyId || (state.grantId ?? null) !== asked.grantId || state.tool !== asked.tool || state.argsHash !== asked.argsHash) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid or expired requestState', { reason: 'invalid_request_state' });
  }
  const answer = inputResponse(ctx.mcpReq.inputResponses, QUESTION);
  if (answer.kind !== 'elicit') return { kind: 'ask', state: asked };
  if (answer.action !== 'accept' || answer.content?.approve !== true) {
    throw new AppError('confirmation_declined', `The change by ${tool.name} was declined by the person asked to approve it; nothing was changed.`);
  }
  return { kind: 'approved', args: { ...call, confirm: true }, nonce: state.nonce, idempotencyKey: `mcp-approval-${state.nonce}` };
}

/**
 * Runs an approved call at most once. The first use of its state claims the nonce and runs the call; a later use
 * (any instance, any idempotency key) runs nothing: it gets the recorded answer of that call when it carries the
 * same idempotency key (a retry after a lost answer), and otherwise the protocol error `request_state_used`.
 */
export async function runApproved(
  db: Db,
  call: { tool: Tool; principal: Principal | null; decision: Extract<ApprovalDecision, { kind: 'approved' }>; idempotencyKey: string },
  invoke: (args: Record<string, unknown>, idempotencyKey: string) => Promise<InvokeResult>,
): Promise<InvokeResult> {
  const { tool, principal, decision, idempotencyKey } = call;
  if (await claimApprovalNonce(db, decision.nonce, USED_NONCE_KEEP_SECONDS)) return invoke(decision.args, idempotencyKey);
  const earlier =
    principal && (await earlierOutcome(db, { apiKeyId: principal.keyId, key: idempotencyKey, tool: tool.name, requestHash: requestHash(tool.name, decision.args) }));
  if (earlier) return replay(earlier);
  throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'This requestState was already used: its approved call ran once. Call the tool again to ask for a new approval.', {
    reason: 'request_state_used',
  });
}

/** The question: one form with one yes/no field, its message the dry run's changes in words. */
export async function askApproval(codec: ApprovalCodec, state: ApprovalState, changes: readonly Change[]): Promise<InputRequiredResult> {
  const message = `${changes.length > 0 ? changes.map(describeChange).join('\n') : 'This call changes nothing.'}\n\nApprove this change?`;
  return inputRequired({
    inputRequests: {
      [QUESTION]: inputRequired.elicit({
        mode: 'form',
        message,
        requestedSchema: {
          type: 'object',
          properties: { approve: { type: 'boolean', title: 'Approve', description: 'Yes to make the change, no to cancel it.' } },
          required: ['approve'],
        },
      }),
    },
    requestState: await codec.mint(state),
  });
}

const asEntity = (value: unknown): Record<string, unknown> | null => (isObject(value) ? value : null);

/** Facts a shop owner recognises an entity by, shown when it is deleted. */
const KEY_FACTS = ['stock', 'status', 'productCount'] as const;
const NAME_FIELDS = ['name', 'title', 'slug', 'code', 'email'] as const;

/**
 * One change in a shop owner's words: "Delete product Aviator Black (stock 12)", "Create page about",
 * "Update page home: layout". A soft delete (deletedAt set) reads as a delete.
 */
export function describeChange(change: Change): string {
  const before = asEntity(change.before);
  const after = asEntity(change.after);
  const entity = after ?? before;
  const name = NAME_FIELDS.map((f) => entity?.[f]).find((v) => typeof v === 'string' && v !== '') ?? change.entityId;
  const label = `${change.entityType.replace(/_/g, ' ')} ${String(name)}`;
  if (!before) return `Create ${label}`;
  if (!after || (after.deletedAt != null && before.deletedAt == null)) {
    const facts = KEY_FACTS.filter((f) => typeof before[f] === 'number' || typeof before[f] === 'string').map((f) => `${f} ${String(before[f])}`);
    return `Delete ${label}${facts.length > 0 ? ` (${facts.join(', ')})` : ''}`;
  }
  const changed = Object.keys({ ...before, ...after }).filter((k) => k !== 'updatedAt' && JSON.stringify(before[k]) !== JSON.stringify(after[k]));
  return `Update ${label}${changed.length > 0 ? `: ${changed.join(', ')}` : ''}`;
}
