import { compareKey, compareRecords, type SessionRecord } from './session-record.js';

/**
 * The sessions of one owner and resource, kept sorted by (created time,
 * service_id) so that a range and a keyset position are found by binary
 * search, never by scanning.
 */
export class SortedSessions {
  readonly #items: SessionRecord[];

  /** `items` must already be sorted by compareRecords. */
  constructor(items: SessionRecord[] = []) {
    this.#items = items;
  }

  get length(): number {
    return this.#items.length;
  }

  at(index: number): SessionRecord {
    const item = this.#items[index];
    if (item === undefined) throw new RangeError(`no session at ${index}`);
    return item;
  }

  /** First index whose key is >= (micros, id); use id '' for "first at or after micros". */
  lowerBound(micros: number, id: string): number {
    let lo = 0;
    let hi = this.#items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const item = this.#items[mid] as SessionRecord;
      if (compareKey(item.createdMicros, item.serviceId, micros, id) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** First index whose created time is > micros. */
  upperBoundMicros(micros: number): number {
    let lo = 0;
    let hi = this.#items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.#items[mid] as SessionRecord).createdMicros <= micros) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  insert(record: SessionRecord): void {
    const index = this.lowerBound(record.createdMicros, record.serviceId);
    this.#items.splice(index, 0, record);
  }

  remove(record: SessionRecord): boolean {
    const index = this.lowerBound(record.createdMicros, record.serviceId);
    if (this.#items[index] !== record) return false;
    this.#items.splice(index, 1);
    return true;
  }

  /** Newest first. */
  *newestFirst(): IterableIterator<SessionRecord> {
    for (let i = this.#items.length - 1; i >= 0; i--) yield this.#items[i] as SessionRecord;
  }

  static from(records: SessionRecord[]): SortedSessions {
    return new SortedSessions(records.sort(compareRecords));
  }
}
