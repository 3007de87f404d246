import { Secret } from '../config/secret.js';
import { organizationNameOf } from './account.js';
import type { Language } from './catalog.js';
import { fieldValue } from './filter-match.js';
import type { IdMint } from './id-mint.js';
import type { SessionRecord } from './session-record.js';
import type { WebhookCreateInput, WebhookFilter } from './webhook-request.js';

export interface WebhookRecord {
  readonly uuid: string;
  readonly owner: string;
  readonly channel: string;
  readonly endpoint: string;
  readonly secret: Secret;
  readonly rawFilters: readonly Record<string, unknown>[];
  readonly filters: readonly WebhookFilter[];
  readonly createdMicros: number;
  /** The interface it was created with decides the item shape of its deliveries. */
  readonly apiVersion: '1.4' | '2';
  /** Display strings of deliveries follow the Accept-Language of the creation request. */
  readonly language: Language;
  active: boolean;
}

export interface DomainRecord {
  readonly uuid: string;
  readonly owner: string;
  readonly name: string;
  readonly createdMicros: number;
}

/** Domains every organization has registered (verification is outside the API). */
export const PREREGISTERED_DOMAINS = ['hooks.example.com', '127.0.0.1', 'localhost'] as const;

/** Webhooks and registered domains of every organization. Pure data: delivering is someone else's job. */
export class WebhookRegistry {
  readonly #ids: IdMint;
  readonly #webhooks: WebhookRecord[] = [];
  readonly #domains = new Map<string, DomainRecord[]>();
  readonly #domainsCreatedMicros: number;

  constructor(ids: IdMint, domainsCreatedMicros: number) {
    this.#ids = ids;
    this.#domainsCreatedMicros = domainsCreatedMicros;
  }

  domainsOf(owner: string): readonly DomainRecord[] {
    const organization = organizationNameOf(owner);
    let list = this.#domains.get(organization);
    if (list === undefined) {
      list = PREREGISTERED_DOMAINS.map((name, i) => ({
        uuid: this.#ids.uuid(),
        owner,
        name,
        createdMicros: this.#domainsCreatedMicros + i * 1_000_000,
      }));
      this.#domains.set(organization, list);
    }
    return list;
  }

  create(
    owner: string,
    input: WebhookCreateInput,
    apiVersion: '1.4' | '2',
    language: Language,
    nowMicros: number,
  ): WebhookRecord {
    const record: WebhookRecord = {
      uuid: this.#ids.uuid(),
      owner,
      channel: input.channel,
      endpoint: input.endpoint,
      secret: new Secret(input.secret),
      rawFilters: input.rawFilters,
      filters: input.filters,
      createdMicros: nowMicros,
      apiVersion,
      language,
      active: true,
    };
    this.#webhooks.push(record);
    return record;
  }

  /** Active webhooks of the owner's organization, oldest first. */
  activeOf(owner: string): WebhookRecord[] {
    const organization = organizationNameOf(owner);
    return this.#webhooks.filter((w) => w.active && organizationNameOf(w.owner) === organization);
  }

  get(uuid: string): WebhookRecord | undefined {
    return this.#webhooks.find((w) => w.uuid === uuid);
  }

  /**
   * Active webhooks that must hear about a change of this session: same organization as its owner, every filter
   * matching.
   */
  matching(session: SessionRecord): WebhookRecord[] {
    return this.activeOf(session.owner).filter((w) =>
      w.filters.every((f) => {
        const actual = fieldValue(session, f.key, () => undefined);
        return actual !== null && f.values.includes(actual);
      }),
    );
  }
}
