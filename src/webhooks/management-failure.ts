import { isApiFailure } from '../api/errors.js';
import { UserError } from '../errors.js';

/** The management operation a failure came from. */
export type ManagementOperation = 'create' | 'show' | 'deactivate';

/**
 * A sentence the user can act on for a refused management request, or null
 * when the failure is not one of the documented refusals. 403 on creation
 * has two documented causes (a username outside the organization, an
 * unregistered endpoint domain); the service's own message tells them apart
 * when it can, the request's filters otherwise.
 */
export function explainManagementFailure(
  operation: ManagementOperation,
  status: number | null,
  serviceText: string,
  context: { uuid?: string; hasUsernameFilter?: boolean } = {},
): string | null {
  if (operation === 'create') {
    if (status === 409) return '10 webhooks are already active: deactivate one first (ivsync webhooks list)';
    if (status === 403) {
      const domain = "the endpoint's domain is not registered to your organization (ivsync domains list)";
      const user = 'a username in --filter owner.user.username is not in your organization';
      if (/domain/i.test(serviceText)) return domain;
      if (/user/i.test(serviceText)) return user;
      return context.hasUsernameFilter === true ? `${domain}, or ${user}` : domain;
    }
    return null;
  }
  // v1.4 answers 403, v2 404, for unknown and other owners' webhooks alike.
  if (status === 403 || status === 404) {
    const id = context.uuid ?? 'the webhook';
    return operation === 'show'
      ? `webhook ${id} does not exist or is not yours (ivsync webhooks list)`
      : `webhook ${id} is not active, does not exist, or is not yours (ivsync webhooks list)`;
  }
  return null;
}

/** Rethrows an API failure of a management request as a UserError with an actionable sentence, when there is one. */
export function rethrowManagementFailure(
  error: unknown,
  operation: ManagementOperation,
  context: { uuid?: string; hasUsernameFilter?: boolean } = {},
): never {
  if (isApiFailure(error)) {
    const sentence = explainManagementFailure(operation, error.status, error.message, context);
    if (sentence !== null)
      throw new UserError(`WEBHOOK_${operation.toUpperCase()}_REFUSED`, sentence, { cause: error });
  }
  throw error;
}
