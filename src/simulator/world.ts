import { accountOf, type Account } from './account.js';
import type { Language } from './catalog.js';
import { decodeCursor, pageCursor, queryHash, type CursorStyle, type SimCursor } from './cursor.js';
import { matchesAll } from './filter-match.js';
import { IdMint } from './id-mint.js';
import { initialSessions, type InitialSessionsPlan } from './initial-sessions.js';
import type { NewSession } from './new-session.js';
import { createRandom, type Random } from './prng.js';
import { renderV14, renderV2, type Rendered } from './render-item.js';
import type { SearchRequest } from './search-request.js';
import { newAuthentication, newFingerprint } from './session-factory.js';
import { compareRecords, type BadItemKind, type SessionRecord, type SimResource } from './session-record.js';
import { SortedSessions, type RangeSemantics } from './sorted-sessions.js';

export type { RangeSemantics };
import { WebhookRegistry } from './webhook-registry.js';

export interface WorldOptions extends InitialSessionsPlan {
  seed: number;
  rangeSemantics: RangeSemantics;
  /** Milliseconds; the time of every mutation. */
  clock: () => number;
}

export type SearchOutcome =
  { ok: true; records: SessionRecord[]; nextCursor: SimCursor | null } | { ok: false; message: string };

/** Which authentication a lookup picks among those with the customer item id. */
export type LookupRule = 'first-final' | 'latest';

export type ChangeListener = (session: SessionRecord) => void;

const listKey = (owner: string, resource: SimResource): string => `${owner}\u0000${resource}`;

/**
 * The data of the simulated service and the ways tests change it. No HTTP in
 * here: the server renders what the world holds, and the delivery engine
 * listens to its changes.
 */
export class World {
  /** Base URL the server listens on; fingerprint_parent.url points there. */
  baseUrl = 'http://127.0.0.1';
  rangeSemantics: RangeSemantics;
  /** The shape of the search cursors handed out, and the only one taken back. */
  cursorStyle: CursorStyle = 'string';
  readonly webhooks: WebhookRegistry;
  readonly otherOwner: string;
  readonly ids: IdMint;
  readonly #random: Random;
  readonly #clock: () => number;
  readonly #tokens: Readonly<Record<string, string>>;
  readonly #byId = new Map<string, SessionRecord>();
  readonly #lists = new Map<string, SortedSessions>();
  /** Built on the first lookup: most worlds (benchmarks of 200k sessions) never need it. */
  #byCustomerItem: Map<string, SessionRecord[]> | null = null;
  readonly #accounts = new Map<string, Account>();
  readonly #listeners = new Set<ChangeListener>();

  constructor(options: WorldOptions) {
    const random = createRandom(options.seed);
    this.ids = new IdMint(random.fork());
    this.#random = random.fork();
    this.#clock = options.clock;
    this.#tokens = { ...options.tokens };
    this.otherOwner = options.otherOwner;
    this.rangeSemantics = { ...options.rangeSemantics };
    this.webhooks = new WebhookRegistry(this.ids, (options.fromSec - 30 * 86_400) * 1e6);

    const all = initialSessions(random, this.ids, options);
    const grouped = new Map<string, SessionRecord[]>();
    for (const record of all) {
      this.#index(record);
      const key = listKey(record.owner, record.resource);
      let group = grouped.get(key);
      if (group === undefined) grouped.set(key, (group = []));
      group.push(record);
    }
    for (const [key, group] of grouped) this.#lists.set(key, SortedSessions.from(group));
  }

  /** The owner username behind a token, or undefined for an unknown token. */
  ownerOfToken(token: string): string | undefined {
    return Object.hasOwn(this.#tokens, token) ? this.#tokens[token] : undefined;
  }

  get defaultOwner(): string {
    const owner = this.ownerOfToken('test-token') ?? Object.values(this.#tokens)[0];
    if (owner === undefined) throw new Error('the world has no token owners');
    return owner;
  }

  /** Called after every mutation with the changed session (its update_counter already bumped). */
  onChange(listener: ChangeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** A copy of the session as the world holds it, whoever owns it. */
  get(serviceId: string): Readonly<SessionRecord> | undefined {
    const record = this.#byId.get(serviceId);
    return record === undefined ? undefined : { ...record };
  }

  /** The live record, for rendering (read-only by convention). */
  resolve = (serviceId: string): SessionRecord | undefined => this.#byId.get(serviceId);

  /** Service ids of the owner's sessions, newest first. */
  serviceIds(owner: string = this.defaultOwner, resource: SimResource = 'authentications'): string[] {
    return [...this.#list(owner, resource).newestFirst()].map((r) => r.serviceId);
  }

  count(owner: string = this.defaultOwner, resource?: SimResource): number {
    if (resource !== undefined) return this.#list(owner, resource).length;
    return this.#list(owner, 'authentications').length + this.#list(owner, 'fingerprints').length;
  }

  /**
   * What a perfect v1.4 crawl of the token's account would store now: every
   * session its owner can see, newest first, as search returns them (items
   * the service returns malformed are left out: they cannot be stored; a
   * session served twice on its page is in, as its newer copy).
   */
  truth(
    token = 'test-token',
    resource: SimResource = 'authentications',
    apiVersion: '1.4' | '2' = '1.4',
  ): Record<string, unknown>[] {
    const owner = this.ownerOfToken(token);
    if (owner === undefined) throw new Error('unknown token');
    const out: Record<string, unknown>[] = [];
    for (const record of this.#list(owner, resource).newestFirst()) {
      if (record.bad !== null && record.bad !== 'duplicate_on_page') continue;
      out.push(this.render(record, { viewer: owner, apiVersion, language: 'en' }).item);
    }
    return out;
  }

  truthV2(token = 'test-token', resource: SimResource = 'authentications'): Record<string, unknown>[] {
    return this.truth(token, resource, '2');
  }

  render(
    record: SessionRecord,
    how: {
      viewer: string | null;
      apiVersion: '1.4' | '2';
      language?: Language;
      photosAtMs?: number;
      images?: boolean;
      webhook?: boolean;
    },
  ): Rendered {
    const ctx = {
      language: how.language ?? 'en',
      viewer: how.viewer,
      resolve: this.resolve,
      baseUrl: this.baseUrl,
      account: this.#account,
      ...(how.photosAtMs !== undefined ? { photosAtMs: how.photosAtMs } : {}),
      ...(how.webhook === true ? { webhook: true } : {}),
    };
    return how.apiVersion === '1.4'
      ? renderV14(record, ctx)
      : renderV2(record, { ...ctx, images: how.images === true });
  }

  /** The session if `owner` may read it as `resource`; undefined for missing and not-owned alike. */
  visible(owner: string, resource: SimResource, serviceId: string): SessionRecord | undefined {
    const record = this.#byId.get(serviceId);
    return record !== undefined && record.owner === owner && record.resource === resource ? record : undefined;
  }

  /**
   * One page of a search, newest first (created time, then service_id). The
   * cursor is a keyset position, so sessions added while paging never shift
   * later pages, and it carries a hash of the query so it cannot be replayed
   * against another one.
   */
  search(owner: string, resource: SimResource, request: SearchRequest, apiVersion: '1.4' | '2'): SearchOutcome {
    const hash = queryHash([owner, resource, apiVersion, request.filters, request.range, request.returnIds]);
    const list = this.#list(owner, resource);
    const [lo, end] = list.indexRange(request.range, this.rangeSemantics);
    let hi = end;
    if (request.cursor !== null) {
      const position = decodeCursor(request.cursor, hash, this.cursorStyle);
      if (position === null) return { ok: false, message: 'cursor: not a cursor of this query' };
      hi = Math.min(hi, list.lowerBound(position.micros, position.serviceId));
    }
    const records: SessionRecord[] = [];
    let more = false;
    for (let i = hi - 1; i >= lo; i--) {
      const record = list.at(i);
      if (!matchesAll(record, request.filters, this.resolve)) continue;
      if (records.length === request.limit) {
        more = true;
        break;
      }
      records.push(record);
    }
    const last = records[records.length - 1];
    const after = more && last !== undefined ? { micros: last.createdMicros, serviceId: last.serviceId } : null;
    return { ok: true, records, nextCursor: pageCursor(after, hash, this.cursorStyle) };
  }

  /**
   * v1.4 picks the first (oldest) final authentication with the customer item
   * id, else the latest non-final one; v2 picks the latest.
   */
  lookup(owner: string, customerItemId: string, rule: LookupRule): SessionRecord | undefined {
    if (this.#byCustomerItem === null) {
      this.#byCustomerItem = new Map();
      for (const record of this.#byId.values()) this.#indexCustomerItem(record);
    }
    const candidates = (this.#byCustomerItem.get(customerItemId) ?? [])
      .filter((r) => r.owner === owner && r.resource === 'authentications')
      .sort(compareRecords);
    if (rule === 'first-final') {
      const final = candidates.find((r) => r.final);
      if (final !== undefined) return final;
    }
    return candidates[candidates.length - 1];
  }

  // ---- mutations ----

  /** Makes the result final; `resultId` defaults to authentic / registered / match. */
  finalize(serviceId: string, resultId?: string): Readonly<SessionRecord> {
    const record = this.#require(serviceId);
    const fallback =
      record.resource === 'authentications' ? 'authentic' : record.mode === 'register' ? 'registered' : 'match';
    return this.setResult(serviceId, resultId ?? fallback, true);
  }

  setResult(serviceId: string, resultId: string, final: boolean): Readonly<SessionRecord> {
    const record = this.#require(serviceId);
    record.resultId = resultId;
    record.final = final;
    return this.#changed(record);
  }

  /** Sets or clears (null) the session's flag, as an operator of the service would, at any age. */
  setFlag(serviceId: string, flag: string | null): Readonly<SessionRecord> {
    const record = this.#require(serviceId);
    record.flag = flag;
    return this.#changed(record);
  }

  /** A session created now (or at `epoch`), which matching webhooks hear about. */
  addSession(spec: NewSession = {}): Readonly<SessionRecord> {
    const owner = spec.owner ?? this.defaultOwner;
    const createdMicros = spec.epoch !== undefined ? Math.round(spec.epoch * 1e6) : this.#nowMicros();
    const seed = {
      owner,
      createdMicros,
      final: spec.final ?? true,
      ...(spec.customerItemId !== undefined ? { customerItemId: spec.customerItemId } : {}),
      ...(spec.resultId !== undefined ? { resultId: spec.resultId } : {}),
      ...(spec.formFactor !== undefined ? { formFactor: spec.formFactor } : {}),
      ...(spec.flag !== undefined ? { flag: spec.flag } : {}),
    };
    let record: SessionRecord;
    if ((spec.resource ?? 'authentications') === 'authentications') {
      record = newAuthentication(this.#random, this.ids, seed);
    } else {
      const mode = spec.mode ?? 'register';
      let parentId: string | null = spec.parentId ?? null;
      if (mode === 'compare' && parentId === null) {
        for (const candidate of this.#list(owner, 'fingerprints').newestFirst()) {
          if (candidate.mode === 'register') {
            parentId = candidate.serviceId;
            break;
          }
        }
      }
      const parent = parentId === null ? undefined : this.#byId.get(parentId);
      record = newFingerprint(this.#random, this.ids, {
        ...seed,
        mode,
        parentId,
        ...(spec.customerItemId === undefined && parent !== undefined ? { customerItemId: parent.customerItemId } : {}),
      });
    }
    record.updatedMicros = null;
    record.poison = spec.poison === true;
    this.#index(record);
    this.#list(owner, record.resource).insert(record);
    this.#emit(record);
    return { ...record };
  }

  /**
   * A session uploaded now by an offline device: its created time is `ageSeconds` in the past, behind a crawler's
   * high-water mark.
   */
  addLateUpload(spec: { ageSeconds: number } & Omit<NewSession, 'epoch'>): Readonly<SessionRecord> {
    const { ageSeconds, ...rest } = spec;
    const nowMicros = this.#nowMicros();
    const record = this.#require(this.addSession({ ...rest, epoch: (nowMicros - ageSeconds * 1e6) / 1e6 }).serviceId);
    record.updatedMicros = nowMicros;
    return { ...record };
  }

  /**
   * Ownership moves to `toOwner`: the session is no longer returned to its old owner (403 by id, absent from searches).
   */
  removeAccess(serviceId: string, toOwner: string = this.otherOwner): Readonly<SessionRecord> {
    const record = this.#require(serviceId);
    if (record.owner === toOwner) return { ...record };
    this.#list(record.owner, record.resource).remove(record);
    record.owner = toOwner;
    this.#list(toOwner, record.resource).insert(record);
    return this.#changed(record);
  }

  /** A stored session that the service returns malformed (see BadItemKind). */
  injectBadItem(
    resource: SimResource,
    kind: BadItemKind,
    spec: Omit<NewSession, 'resource'> = {},
  ): Readonly<SessionRecord> {
    const record = this.#require(this.addSession({ ...spec, resource }).serviceId);
    record.bad = kind;
    if (kind === 'duplicate_on_page') {
      // The copy served after the older one is newer by every rule: final, updated a second later, counted once more.
      record.final = true;
      record.updatedMicros = record.createdMicros + 1_000_000;
      record.updateCounter += 1;
    }
    return { ...record };
  }

  #nowMicros(): number {
    return Math.round(this.#clock() * 1000);
  }

  #require(serviceId: string): SessionRecord {
    const record = this.#byId.get(serviceId);
    if (record === undefined) throw new Error(`no session ${serviceId} in the world`);
    return record;
  }

  #list(owner: string, resource: SimResource): SortedSessions {
    const key = listKey(owner, resource);
    let list = this.#lists.get(key);
    if (list === undefined) this.#lists.set(key, (list = new SortedSessions()));
    return list;
  }

  #index(record: SessionRecord): void {
    this.#byId.set(record.serviceId, record);
    if (this.#byCustomerItem !== null) this.#indexCustomerItem(record);
  }

  #indexCustomerItem(record: SessionRecord): void {
    const index = this.#byCustomerItem as Map<string, SessionRecord[]>;
    let same = index.get(record.customerItemId);
    if (same === undefined) index.set(record.customerItemId, (same = []));
    same.push(record);
  }

  #account = (username: string): Account => {
    let account = this.#accounts.get(username);
    if (account === undefined) this.#accounts.set(username, (account = accountOf(username)));
    return account;
  };

  #changed(record: SessionRecord): Readonly<SessionRecord> {
    record.updateCounter += 1;
    record.updatedMicros = this.#nowMicros();
    this.#emit(record);
    return { ...record };
  }

  #emit(record: SessionRecord): void {
    for (const listener of this.#listeners) listener(record);
  }
}
