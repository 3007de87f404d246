import { createHash } from 'node:crypto';
import { accountOf } from './account.js';
import { BRANDS, type Language } from './catalog.js';
import type { Random } from './prng.js';
import { errorReply, ok, route, type Reply, type Route, type RouteRequest } from './route.js';

const DETAIL_FIELDS = [
  { alias: 'style_code', en: 'Style code', ja: 'スタイルコード' },
  { alias: 'us_size', en: 'US size', ja: 'USサイズ' },
  { alias: 'identifier', en: 'Identifier', ja: '識別番号' },
] as const;

const CONFIG_LIFETIME_SECONDS = 3600;

function brandsFor(group: 'bags' | 'rings' | null, language: Language): Record<string, unknown>[] {
  return BRANDS.filter((b) => group === null || b.productGroup === group).map((b) => ({
    brand_id: b.id,
    display: { name: b.display[language] },
    materials: b.materials.map((m) => ({ material_id: m.id, display: { name: m.display[language] } })),
  }));
}

function authenticationConfig(request: RouteRequest): Reply {
  const iat = Math.floor(request.nowMs / 1000);
  const brands = brandsFor(null, request.language).map((b) => ({
    ...b,
    details: DETAIL_FIELDS.map((d) => ({ field_alias: d.alias, display: { name: d[request.language] } })),
  }));
  return ok({ config: { brands }, iat, exp: iat + CONFIG_LIFETIME_SECONDS });
}

function supportedCatalog(request: RouteRequest): Reply {
  const ja = request.language === 'ja';
  return ok({
    categories: [
      {
        product_category: 'luxury',
        customer_product_group: 'handbags',
        display: {
          product_category: ja ? 'ラグジュアリー' : 'Luxury',
          customer_product_group: ja ? 'バッグ' : 'Handbags',
        },
        brands: brandsFor('bags', request.language),
      },
      {
        product_category: 'luxury',
        customer_product_group: 'jewelry',
        display: {
          product_category: ja ? 'ラグジュアリー' : 'Luxury',
          customer_product_group: ja ? 'ジュエリー' : 'Jewelry',
        },
        brands: brandsFor('rings', request.language),
      },
    ],
  });
}

const isOptionalName = (v: unknown): boolean => v === undefined || v === null || typeof v === 'string';

/** v2 configuration, catalog and login vouchers. `random` decides the catalog's temporary 503s. */
export function v2CatalogRoutes(random: Random, catalogUnavailableShare: number, seed: number): Route[] {
  const vouchers = new Set<string>();
  return [
    route('GET', '/v2/authentication-config', 'v2', authenticationConfig),
    route('GET', '/v2/supported-catalog', 'v2', (r) =>
      random.chance(catalogUnavailableShare)
        ? errorReply(503, 'unavailable', 'catalog data is temporarily unavailable; try again')
        : supportedCatalog(r),
    ),
    route('POST', '/v2/login-vouchers', 'v2', (r) => {
      const body = r.body as Record<string, unknown> | null | undefined;
      if (typeof body !== 'object' || body === null || Array.isArray(body))
        return errorReply(400, 'invalid_request', 'the request body must be a JSON object');
      const { unique_user_id: userId, email, first_name: firstName, last_name: lastName } = body;
      if (typeof userId !== 'string' || userId === '')
        return errorReply(400, 'invalid_request', 'unique_user_id: a non-empty string is required');
      if (typeof email !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(email))
        return errorReply(400, 'invalid_request', 'email: an email address is required');
      if (!isOptionalName(firstName) || !isOptionalName(lastName))
        return errorReply(400, 'invalid_request', 'first_name and last_name: string or null');
      const account = accountOf(r.owner);
      const key = `${account.organizationId}\u0000${userId}`;
      if (vouchers.has(key)) return errorReply(409, 'conflict', 'this user already has a login voucher');
      vouchers.add(key);
      const voucher = createHash('sha256').update(`${seed}:${key}`).digest('base64url');
      return ok({ login_voucher: voucher, username: `${userId}@${account.organizationId}` });
    }),
  ];
}
