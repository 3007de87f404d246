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

const brand = (
  id: string,
  en: string,
  ja: string,
  productGroup: Brand['productGroup'],
  materials: readonly Material[],
): Brand => ({ id, display: { en, ja }, productGroup, materials });

export const BRANDS: readonly Brand[] = [
  brand('louis_vuitton', 'Louis Vuitton', 'ルイ・ヴィトン', 'bags', [
    material('monogram_canvas', 'Monogram Canvas', 'モノグラム・キャンバス'),
    material('damier_ebene', 'Damier Ebene', 'ダミエ・エベヌ'),
  ]),
  brand('chanel', 'Chanel', 'シャネル', 'bags', [
    material('lambskin', 'Lambskin', 'ラムスキン'),
    material('caviar_leather', 'Caviar Leather', 'キャビアスキン'),
  ]),
  brand('gucci', 'Gucci', 'グッチ', 'bags', [
    material('gg_supreme', 'GG Supreme', 'GGスプリーム'),
    material('calfskin', 'Calfskin', 'カーフスキン'),
  ]),
  brand('hermes', 'Hermès', 'エルメス', 'bags', [
    material('togo_leather', 'Togo Leather', 'トゴ'),
    material('epsom_leather', 'Epsom Leather', 'エプソン'),
  ]),
  brand('cartier', 'Cartier', 'カルティエ', 'rings', [
    material('yellow_gold', 'Yellow Gold', 'イエローゴールド'),
    material('white_gold', 'White Gold', 'ホワイトゴールド'),
  ]),
  brand('tiffany', 'Tiffany & Co.', 'ティファニー', 'rings', [
    material('platinum', 'Platinum', 'プラチナ'),
    material('sterling_silver', 'Sterling Silver', 'スターリングシルバー'),
  ]),
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
