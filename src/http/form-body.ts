import type { FastifyInstance } from 'fastify';

/** A parsed HTML form: a repeated field (one `scope` per ticked box) arrives as an array. */
export type FormBody = Record<string, string | string[]>;

/** A field's value as a single-valued field reads it: the first when it was sent more than once. */
export const formField = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/** Lets the routes of an encapsulated scope take HTML form posts (application/x-www-form-urlencoded). */
export function acceptFormBodies(scope: FastifyInstance, bodyLimit?: number): void {
  scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit }, (_req, body, done) => {
    const form: FormBody = {};
    for (const [name, value] of new URLSearchParams(String(body))) {
      const prior = form[name];
      form[name] = prior === undefined ? value : [...(Array.isArray(prior) ? prior : [prior]), value];
    }
    done(null, form);
  });
}
