import { describe, expect, it } from 'vitest';
import { named } from '../../src/store/export/clustered-copies.js';

describe('the columns a clustered copy keeps', () => {
  const columns = ['service_id', 'account', 'flag', 'flags', 'raw', 'file_row_number'];

  it('are those the SQL names as whole words, and the column the pieces cut', () => {
    expect(named(columns, 'SELECT s.account, s.flags FROM authentications s', 'service_id')).toEqual([
      'service_id',
      'account',
      'flags',
    ]);
  });

  it('are all of them, but the file position, where the SQL selects *', () => {
    const all = ['service_id', 'account', 'flag', 'flags', 'raw'];
    expect(named(columns, 'SELECT * FROM authentications', 'service_id')).toEqual(all);
    expect(named(columns, 'SELECT s.* FROM authentications s', 'service_id')).toEqual(all);
    expect(named(columns, 'SELECT count(*) AS n, account FROM authentications', 'service_id')).toEqual([
      'service_id',
      'account',
    ]);
  });
});
