/*
 * Hand-written items shaped like the examples of the service's documentation
 * (api-spec "Authentication session item (v1.4)", "Fingerprint session item
 * (v1.4)", "v2.0.0 session item"). Each call returns a fresh object, so a test
 * may change it.
 */

export const OBSERVED_AT = '2026-11-22T04:00:00.000000Z';

export function v14Authentication(): Record<string, unknown> {
  return {
    service_id: 'A-1001',
    activity: { name: 'authentication', form_factor: 'microscopic', product_category: 'luxury', product_group: 'bags' },
    certificate: { preview: 'https://cert.example.com/p/A-1001.png', site: 'https://cert.example.com/A-1001' },
    owner: { organization: { name: 'Acme Resale' }, user: { username: 'kim' } },
    properties: {
      brand: { id: 'louis_vuitton', display: 'Louis Vuitton' },
      material: { id: 'monogram_canvas', display: 'Monogram Canvas' },
    },
    status: { flag: null, result: { id: 'authentic', display: 'Authentic', final: true } },
    text_fields: { customer_item_id: 'SKU-77', identifier: 'SD1234', style_code: 'M40995', us_size: '9.5' },
    timestamp: { display: '2026-11-22T03:06:17.123456Z', epoch: 1795316777.123456 },
    images: { photos: ['https://img.example.com/1.jpg', { url: 'https://img.example.com/2.jpg', angle: 'side' }] },
  };
}

export function v14Register(): Record<string, unknown> {
  return {
    service_id: 'F-2001',
    activity: { name: 'fingerprint', mode: 'register', form_factor: 'microscopic' },
    owner: { organization: { name: 'Acme Resale' }, user: { username: 'kim' } },
    status: { flag: null, result: { id: 'registered', display: 'Registered', final: true } },
    text_fields: { customer_item_id: 'BAG-9' },
    timestamp: { display: '2026-11-20T10:00:00.000001Z', epoch: 1795168800.000001 },
  };
}

export function v14Compare(): Record<string, unknown> {
  return {
    service_id: 'F-2002',
    activity: { name: 'fingerprint', mode: 'compare', form_factor: 'microscopic' },
    fingerprint_parent: {
      activity: { form_factor: 'microscopic', mode: 'register', name: 'fingerprint' },
      service_id: 'F-2001',
      text_fields: { customer_item_id: 'BAG-9' },
      url: 'https://api.example.com/v1/fingerprints/F-2001',
    },
    owner: { organization: { name: 'Acme Resale' }, user: { username: 'lee' } },
    status: { flag: 'review', result: { id: 'match', display: 'Match', final: false } },
    text_fields: { customer_item_id: 'BAG-9-CHECK' },
    timestamp: { display: '2026-11-21T08:30:00.500000Z', epoch: 1795249800.5 },
  };
}

export const PARENT_WARNING = {
  code: 'fingerprint_parent_not_authorized',
  message: 'The parent session is not accessible.',
};

export function v2Authentication(): Record<string, unknown> {
  return {
    service_id: 'V2-A-1',
    timestamp: { created_at: '2026-11-22T03:06:17.654321Z', last_updated_at: '2026-11-22T05:00:00.000007+02:00' },
    status: {
      result: { id: 'authentic', final: true, display: 'Authentic' },
      initial_result: { id: 'unidentified', final: false, display: null },
      flag: null,
      retake: { retake_required: false, display: 'No retake needed' },
    },
    activity: {
      form_factor: 'free_camera',
      name: 'authentication',
      product_category: 'luxury',
      product_group: null,
      mode: null,
    },
    properties: { customer_item_id: 'ORDER-5', brand: 'chanel', material: 'caviar_leather' },
    owner: { organization_id: 'org-1', user_id: 'user-9' },
    certificate: { certificate_id: 'cert-42', issued: true },
    text_fields: { serial: 'X9', us_size: '8' },
    images: {
      front: { url: 'https://img.example.com/f.jpg', metadata: { width: 1200 } },
      back: { metadata: { width: 800 } },
    },
    catalog: null,
    fingerprint_parent: null,
  };
}

export function v2Compare(): Record<string, unknown> {
  return {
    service_id: 'V2-F-2',
    timestamp: { created_at: '2026-11-22T03:06:17Z' },
    status: { result: { id: 'verified', final: true, display: null }, initial_result: null, flag: null },
    activity: {
      form_factor: 'microscopic',
      name: 'fingerprint',
      product_category: null,
      product_group: null,
      mode: 'compare',
    },
    properties: {
      customer_item_id: 'BAG-10',
      brand: { id: 'hermes', name: 'Hermès' },
      device_id: 'dev-1',
      app_version: '5.2.0',
    },
    owner: null,
    certificate: null,
    text_fields: null,
    images: null,
    catalog: null,
    fingerprint_parent: { service_id: 'V2-F-1', relationship_type: 'compared_to' },
  };
}
