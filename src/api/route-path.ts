/**
 * Fills `{name}` placeholders of a route template such as
 * `/v1/lookup/authentications/{lookup_value}`. Values are percent-encoded as
 * one path segment: a customer item id may hold `/`, `?` or spaces, and must
 * not be able to reach another route.
 */
export function fillRoute(template: string, params: Readonly<Record<string, string>> = {}): string {
  return template.replace(/\{([a-z_]+)\}/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`route ${template} needs a value for {${name}}`);
    return encodeURIComponent(value);
  });
}
