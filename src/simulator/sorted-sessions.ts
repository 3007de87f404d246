import { compareKey, compareRecords, type SessionRecord } from './session-record.js';

/**
 * The sessions of one owner and resource, kept sorted by (created time,
 * service_id) so that a range and a keyset position are found by binary
 * search, never by scanning.
 */
/** Whether each end of a search's created-time range includes its bound. */
export interface RangeSemantics {
  start: 'inclusive' | 'exclusive';
  end: 'inclusive' | 'exclusive';
}

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

  /** The [lo, hi) indexes of the sessions inside a search's range (epoch seconds; null ends are open). */
  indexRange(range: { start: number | null; end: number | null } | null, semantics: RangeSemantics): [number, number] {
    let lo = 0;
    let hi = this.#items.length;
    if (range !== null && range.start !== null) {
      const micros = range.start * 1e6;
      lo = semantics.start === 'inclusive' ? this.lowerBound(micros, '') : this.upperBoundMicros(micros);
    }
    if (range !== null && range.end !== null) {
      const micros = range.end * 1e6;
      hi = semantics.end === 'exclusive' ? this.lowerBound(micros, '') : this.upperBoundMicros(micros);
    }
    return [lo, hi];
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
