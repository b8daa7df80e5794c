import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type Provider from 'oidc-provider';
import type { KeyStore } from '../auth/key-store.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { baseUrlOf } from '../http/base-url.ts';
import { acceptFormBodies } from '../http/form-body.ts';
import type { Limiter } from '../http/rate-limit.ts';
import { count } from '../http/request-guard.ts';
import { isScope, type Scope } from '../registry/scopes.ts';
import type { AuthorizationServer } from './authorization-server.ts';
import { CONSENT_HEADERS, consentWords, describeClient, renderConsentPage, renderErrorPage, type ConsentView } from './consent-page.ts';
import { textLanguage } from '../i18n/catalogue.ts';
import { loadSettings } from '../services/settings.ts';
import { recordGrant } from './grant-admin.ts';
import { pinOrigin } from './request-origin.ts';
import { INTERACTION_PATH } from './provider.ts';

const CSRF_COOKIE = 'oauth_csrf';
/** Scopes with no shop permission behind them, passed through when a client asks for them. */
const PROTOCOL_SCOPES = new Set(['openid', 'offline_access']);

type Interaction = Awaited<ReturnType<Provider['interactionDetails']>>;
/** The form contract; a repeated field arrives as an array (a browser sends one `scope` per ticked box). */
const field = z.union([z.string(), z.array(z.string())]).optional();
const ConsentFormSchema = z.object({ operator_key: field, scope: field, decision: field, csrf_token: field });
type ConsentForm = z.infer<typeof ConsentFormSchema>;
type WithUid = { Params: { uid: string } };

/** The answer a failed form gets: the same page again, with what went wrong, and this status. */
class FormError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/**
 * The consent step of the built-in authorization server, at `/oauth/interaction/<uid>` (where `/oauth/authorize`
 * sends the browser). GET renders the page; POST takes the form contract: `operator_key`, `scope` (the approved
 * subset, space-separated or repeated), `decision` (`approve` | `deny`) and `csrf_token` (double-submit: the
 * hidden input must equal the page's HttpOnly cookie).
 */
export function registerConsentRoutes(
  app: FastifyInstance,
  opts: { server: AuthorizationServer; keys: KeyStore; db: Db; config: Config; limiter: Limiter },
): void {
  const { server, keys, db, config } = opts;

  app.register(async (scope) => {
    // Counted with /oauth/authorize, per IP, before the form is read: the form takes an operator key.
    scope.addHook('onRequest', async (req) => count(req, opts.limiter));
    acceptFormBodies(scope);

    scope.get<WithUid>(`${INTERACTION_PATH}/:uid`, async (req, reply) => {
      const found = await interactionOf(req, reply);
      if ('page' in found) return found.page;
      return renderPage(req, reply, found.provider, found.interaction, 200);
    });

    scope.post<WithUid>(`${INTERACTION_PATH}/:uid`, async (req, reply) => {
      const parsed = ConsentFormSchema.safeParse(req.body ?? {});
      const form: ConsentForm = parsed.success ? parsed.data : {};
      const found = await interactionOf(req, reply);
      if ('page' in found) return found.page;
      const { provider, interaction } = found;
      const m = consentWords((await loadSettings(db)).language);
      if (!csrfMatches(req, first(form.csrf_token))) {
        return renderPage(req, reply, provider, interaction, 403, m.formExpired);
      }
      try {
        const result = await decide(provider, interaction, form, m);
        const returnTo = await provider.interactionResult(req.raw, reply.raw, result, { mergeWithLastSubmission: false });
        clearCsrfCookie(req, reply);
        return reply.redirect(returnTo, 303);
      } catch (err) {
        if (!(err instanceof FormError)) throw err;
        return renderPage(req, reply, provider, interaction, err.status, err.message);
      }
    });
  });

  async function interactionOf(req: FastifyRequest<WithUid>, reply: FastifyReply): Promise<{ provider: Provider; interaction: Interaction } | { page: FastifyReply }> {
    const baseUrl = baseUrlOf(req, config);
    const provider = await server.providerFor(baseUrl);
    pinOrigin(req, baseUrl);
    try {
      const interaction = await provider.interactionDetails(req.raw, reply.raw);
      if (interaction.uid === req.params.uid) return { provider, interaction };
    } catch {
      // Unknown, expired, or opened in another browser (the interaction cookie is missing): one answer for all.
    }
    const { language } = await loadSettings(db);
    return {
      page: reply
        .code(400)
        .headers({ ...CONSENT_HEADERS, 'Content-Language': textLanguage(language) })
        .send(renderErrorPage('invalid_request', consentWords(language).requestExpired, language)),
    };
  }

  /** The operator's answer; a refusal of the form is a FormError in the page's language (`m`). */
  async function decide(provider: Provider, interaction: Interaction, form: ConsentForm, m: ReturnType<typeof consentWords>) {
    const decision = first(form.decision);
    // The client reads this one: OAuth's error descriptions are English.
    if (decision === 'deny') return { error: 'access_denied', error_description: 'The shop operator denied the request.' };
    if (decision !== 'approve') throw new FormError(400, m.chooseDecision);

    const operatorKey = first(form.operator_key)?.trim() ?? '';
    const operator = operatorKey ? await keys.authenticate(operatorKey) : null;
    if (!operator) throw new FormError(401, m.invalidKey);

    const requested = requestedScopes(interaction);
    const approved = [...new Set((Array.isArray(form.scope) ? form.scope : [form.scope ?? '']).join(' ').split(' ').filter(Boolean))];
    if (approved.length === 0) throw new FormError(400, m.tickOne);
    const notRequested = approved.filter((s) => !isScope(s) || !requested.includes(s));
    if (notRequested.length > 0) throw new FormError(400, m.notRequested(notRequested.join(', ')));
    const notHeld = approved.filter((s) => isScope(s) && !operator.scopes.has(s));
    if (notHeld.length > 0) throw new FormError(403, m.notHeld(notHeld.join(', ')));

    const clientId = String(interaction.params.client_id);
    const resources = requestedResources(interaction);
    const client = await provider.Client.find(clientId);
    const grant = new provider.Grant({ accountId: operator.keyId, clientId });
    for (const resource of resources) grant.addResourceScope(resource, approved.join(' '));
    const protocolScopes = String(interaction.params.scope ?? '').split(' ').filter((s) => PROTOCOL_SCOPES.has(s));
    if (protocolScopes.length > 0) grant.addOIDCScope(protocolScopes.join(' '));
    const grantId = await grant.save();
    await recordGrant(db, {
      id: grantId,
      clientId,
      clientName: client?.clientName ?? null,
      apiKeyId: operator.keyId,
      scopes: approved,
      resource: resources.join(' '),
      createdAt: new Date(),
    });
    return { login: { accountId: operator.keyId }, consent: { grantId } };
  }

  async function renderPage(req: FastifyRequest, reply: FastifyReply, provider: Provider, interaction: Interaction, status: number, error?: string) {
    const csrfToken = randomBytes(32).toString('base64url');
    const secure = baseUrlOf(req, config).startsWith('https:') ? '; Secure' : '';
    reply.header('Set-Cookie', `${CSRF_COOKIE}=${csrfToken}; Path=${INTERACTION_PATH}/${interaction.uid}; HttpOnly; SameSite=Strict${secure}`);
    const [view, settings] = await Promise.all([consentView(provider, interaction, `${INTERACTION_PATH}/${interaction.uid}`, csrfToken), loadSettings(db)]);
    return reply
      .code(status)
      .headers({ ...CONSENT_HEADERS, 'Content-Language': textLanguage(settings.language) })
      .send(renderConsentPage({ ...view, shopName: settings.shopName, language: settings.language, error }));
  }
}

async function consentView(provider: Provider, interaction: Interaction, action: string, csrfToken: string): Promise<Omit<ConsentView, 'shopName' | 'language'>> {
  const clientId = String(interaction.params.client_id);
  const client = await provider.Client.find(clientId);
  const redirectUri = String(interaction.params.redirect_uri ?? '') || (client?.redirectUris?.[0] ?? '');
  const clientName = client?.clientName ?? null;
  return {
    action,
    csrfToken,
    ...describeClient({ clientId, clientName, clientUri: client?.clientUri ?? null, redirectUri, redirectUris: client?.redirectUris ?? [] }),
    clientName,
    redirectUri,
    resource: requestedResources(interaction).join(', '),
    scopes: requestedScopes(interaction),
  };
}

function requestedScopes(interaction: Interaction): Scope[] {
  return String(interaction.params.scope ?? '').split(' ').filter(isScope);
}

function requestedResources(interaction: Interaction): string[] {
  const resource = interaction.params.resource;
  return (Array.isArray(resource) ? resource : [resource]).filter((r): r is string => typeof r === 'string');
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function csrfMatches(req: FastifyRequest, submitted: string | undefined): boolean {
  const cookie = (req.headers.cookie ?? '').split(';').map((c) => c.trim().split('=')).find(([name]) => name === CSRF_COOKIE)?.[1];
  if (!cookie || !submitted) return false;
  const a = Buffer.from(cookie);
  const b = Buffer.from(submitted);
  return a.length === b.length && timingSafeEqual(a, b);
}

function clearCsrfCookie(req: FastifyRequest, reply: FastifyReply): void {
  reply.header('Set-Cookie', `${CSRF_COOKIE}=; Path=${req.url.split('?')[0]}; HttpOnly; SameSite=Strict; Max-Age=0`);
}
