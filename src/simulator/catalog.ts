/**
 * The fixed vocabulary of the simulated service: brands, materials, results
 * and their display strings in the two languages the service speaks.
 */
export type Language = 'en' | 'ja';

export interface Display {
  readonly en: string;
  readonly ja: string;
}

export interface Material {
  readonly id: string;
  readonly display: Display;
}

export interface Brand {
  readonly id: string;
  readonly display: Display;
  readonly productGroup: 'bags' | 'rings';
  readonly materials: readonly Material[];
}

const material = (id: string, en: string, ja: string): Material => ({ id, display: { en, ja } });

export const BRANDS: readonly Brand[] = [
  {
    id: 'louis_vuitton',
    display: { en: 'Louis Vuitton', ja: 'ルイ・ヴィトン' },
    productGroup: 'bags',
    materials: [material('monogram_canvas', 'Monogram Canvas', 'モノグラム・キャンバス'), material('damier_ebene', 'Damier Ebene', 'ダミエ・エベヌ')],
  },
  {
    id: 'chanel',
    display: { en: 'Chanel', ja: 'シャネル' },
    productGroup: 'bags',
    materials: [material('lambskin', 'Lambskin', 'ラムスキン'), material('caviar_leather', 'Caviar Leather', 'キャビアスキン')],
  },
  {
    id: 'gucci',
    display: { en: 'Gucci', ja: 'グッチ' },
    productGroup: 'bags',
    materials: [material('gg_supreme', 'GG Supreme', 'GGスプリーム'), material('calfskin', 'Calfskin', 'カーフスキン')],
  },
  {
    id: 'hermes',
    display: { en: 'Hermès', ja: 'エルメス' },
    productGroup: 'bags',
    materials: [material('togo_leather', 'Togo Leather', 'トゴ'), material('epsom_leather', 'Epsom Leather', 'エプソン')],
  },
  {
    id: 'cartier',
    display: { en: 'Cartier', ja: 'カルティエ' },
    productGroup: 'rings',
    materials: [material('yellow_gold', 'Yellow Gold', 'イエローゴールド'), material('white_gold', 'White Gold', 'ホワイトゴールド')],
  },
  {
    id: 'tiffany',
    display: { en: 'Tiffany & Co.', ja: 'ティファニー' },
    productGroup: 'rings',
    materials: [material('platinum', 'Platinum', 'プラチナ'), material('sterling_silver', 'Sterling Silver', 'スターリングシルバー')],
  },
];

const RESULT_DISPLAY: Readonly<Record<string, Display>> = {
  authentic: { en: 'Authentic', ja: '真正品' },
  unidentified: { en: 'Unidentified', ja: '判定不能' },
  match: { en: 'Match', ja: '一致' },
  registered: { en: 'Registered', ja: '登録済み' },
  verified: { en: 'Verified', ja: '照合済み' },
};

const PENDING_DISPLAY: Display = { en: 'In progress', ja: '判定中' };

export const AUTHENTICATION_RESULTS = ['authentic', 'unidentified'] as const;
export const FORM_FACTORS = ['microscopic', 'free_camera', 'lightbox'] as const;
export const FLAGS = ['review_requested', 'photo_quality', 'customer_hold'] as const;

export function findBrand(id: string): Brand | undefined {
  return BRANDS.find((b) => b.id === id);
}

export function findMaterial(brand: Brand, id: string): Material | undefined {
  return brand.materials.find((m) => m.id === id);
}

/** A non-final result is shown as in progress, whatever its provisional id. */
export function resultDisplay(resultId: string, final: boolean, language: Language): string {
  if (!final) return PENDING_DISPLAY[language];
  return RESULT_DISPLAY[resultId]?.[language] ?? resultId;
}

export function retakeDisplay(language: Language): string {
  return language === 'ja' ? '写真を撮り直してください' : 'Please retake the photos';
}

export function languageOf(acceptLanguage: string | undefined): Language {
  return acceptLanguage !== undefined && acceptLanguage.trim().toLowerCase().startsWith('ja') ? 'ja' : 'en';
}
