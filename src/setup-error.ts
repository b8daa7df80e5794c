/**
 * A problem the operator fixes in the environment (a setting's value, a folder's permissions): reported as its message
 * alone, one line per problem, without a stack trace.
 */
export class SetupError extends Error {}
