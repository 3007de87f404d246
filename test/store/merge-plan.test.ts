import { describe, expect, it } from 'vitest';
import type { NormalizedSession } from '../../src/normalize/rows.js';
import { planMerge, replacedChildren, type StoredSession } from '../../src/store/pages/merge-plan.js';
import { auth, fp, t } from './fixtures.js';

const stored = (id: string, s: Partial<StoredSession> = {}): [string, StoredSession] => [
  id,
  {
    account: 'default',
    update_counter: null,
    last_updated_at: null,
    last_synced_at: t(5),
    first_seen_at: t(1),
    missing_since: null,
    result_id: 'authentic',
    result_final: true,
    flag: null,
    raw: '{}',
    api_version: '1.4',
    created_at: t(0),
    source: 'search',
    preserved: {},
    ...s,
  },
];

const none = { authentications: new Map<string, StoredSession>(), fingerprints: new Map<string, StoredSession>() };

describe('planMerge', () => {
  it('inserts what is not stored, as given', () => {
    const plan = planMerge([auth('a', { last_synced_at: t(9), first_seen_at: t(9) })], none);
    expect(plan).toMatchObject({ outcomes: ['inserted'], seen: [] });
    expect(plan.rows.authentications).toEqual([expect.objectContaining({ service_id: 'a', first_seen_at: t(9) })]);
  });

  it('a winner keeps first_seen_at, the highest counter, the later sync time and its preserved columns', () => {
    const plan = planMerge(
      [
        fp(
          'f',
          { update_counter: 9, source: 'webhook', last_synced_at: t(3), parent_service_id: null },
          { preserve: ['parent_service_id', 'not_a_column'] },
        ),
      ],
      {
        ...none,
        fingerprints: new Map([
          stored('f', { update_counter: 4, last_synced_at: t(5), preserved: { parent_service_id: 'p' } }),
        ]),
      },
    );
    expect(plan.rows.fingerprints[0]).toMatchObject({
      update_counter: 9,
      first_seen_at: t(1),
      last_synced_at: t(5),
      parent_service_id: 'p',
    });
    expect(plan.rows.fingerprints[0]).not.toHaveProperty('not_a_column');
  });

  const staleCases: Array<{
    name: string;
    incoming: NormalizedSession;
    stored: StoredSession;
    seen: Array<{ lastSyncedAt: string }>;
  }> = [
    {
      name: 'stale poll seen later',
      incoming: auth('s', { last_updated_at: t(1), last_synced_at: t(8) }),
      stored: stored('s', { last_updated_at: t(2) })[1],
      seen: [{ lastSyncedAt: t(8) }],
    },
    {
      name: 'stale poll of a missing session',
      incoming: auth('s', { last_updated_at: t(1), last_synced_at: t(4) }),
      stored: stored('s', { last_updated_at: t(2), missing_since: t(3) })[1],
      seen: [{ lastSyncedAt: t(5) }],
    },
    {
      name: 'stale poll seen earlier changes nothing',
      incoming: auth('s', { last_updated_at: t(1), last_synced_at: t(4) }),
      stored: stored('s', { last_updated_at: t(2) })[1],
      seen: [],
    },
    {
      name: 'stale webhook is not a sighting',
      incoming: auth('s', { update_counter: 1, source: 'webhook', last_synced_at: t(8) }),
      stored: stored('s', { update_counter: 2, missing_since: t(3) })[1],
      seen: [],
    },
  ];
  for (const c of staleCases) {
    it(c.name, () => {
      const plan = planMerge([c.incoming], { ...none, authentications: new Map([['s', c.stored]]) });
      expect(plan.outcomes).toEqual(['stale']);
      expect(plan.rows.authentications).toEqual([]);
      expect(plan.seen.map((s) => ({ lastSyncedAt: s.lastSyncedAt }))).toEqual(c.seen);
    });
  }

  it('replaces children only of winners, deleting stored ones only where stored', () => {
    const plan = planMerge(
      [
        auth('new', {}, { textFields: [{ service_id: 'new', key: 'k', value: '1' }] }),
        auth('old', { last_synced_at: t(9) }, { textFields: [{ service_id: 'old', key: 'k', value: '2' }] }),
        auth('lost', { last_synced_at: t(0) }, { textFields: [{ service_id: 'lost', key: 'k', value: '3' }] }),
      ],
      { ...none, authentications: new Map([stored('old'), stored('lost')]) },
    );
    expect(plan.children.session_text_fields).toEqual({
      replaceStored: ['old'],
      rows: [
        { service_id: 'new', key: 'k', value: '1' },
        { service_id: 'old', key: 'k', value: '2' },
      ],
    });
    expect(plan.children.session_images).toEqual({ replaceStored: [], rows: [] });
    // Polls replace warnings even when they carry none.
    expect(plan.children.session_warnings.replaceStored).toEqual(['old']);
  });

  it("writes a new session's row as it came, and leaves every incoming session as it came", () => {
    const deepFreeze = <T>(value: T): T => {
      if (typeof value === 'object' && value !== null) for (const v of Object.values(value)) deepFreeze(v);
      return Object.freeze(value);
    };
    // The same new session, then a later poll of it with the same text: that marks it seen later.
    const first = deepFreeze(auth('a', { last_synced_at: t(1) }));
    const again = deepFreeze(auth('a', { last_synced_at: t(7) }));
    const plan = planMerge([first, again], none);
    expect(plan.outcomes).toEqual(['inserted', 'unchanged']);
    expect(plan.rows.authentications).toEqual([{ ...first.row, last_synced_at: t(7), missing_since: null }]);
    expect(first.row.last_synced_at).toBe(t(1));
    const once = planMerge([deepFreeze(auth('b'))], none);
    expect(once.rows.authentications).toHaveLength(1);
  });
});

describe('replacedChildren', () => {
  const w = [{ service_id: 'x', code: 'c', message: null, seen_at: t(0) }];
  const cases: Array<[string, NormalizedSession, Record<string, boolean>]> = [
    ['poll without children', auth('x'), { session_text_fields: false, session_images: false, session_warnings: true }],
    [
      'poll with all children',
      auth(
        'x',
        {},
        {
          textFields: [{ service_id: 'x', key: 'k', value: null }],
          images: [{ service_id: 'x', name: 'n', url: null, metadata: null }],
          warnings: w,
        },
      ),
      { session_text_fields: true, session_images: true, session_warnings: true },
    ],
    [
      'webhook without warnings',
      fp('x', { source: 'webhook' }),
      { session_text_fields: false, session_images: false, session_warnings: false },
    ],
    [
      'webhook with warnings',
      fp('x', { source: 'webhook' }, { warnings: w }),
      { session_text_fields: false, session_images: false, session_warnings: true },
    ],
    [
      'preserve names a child table',
      auth('x', {}, { preserve: ['session_warnings'], warnings: w }),
      { session_text_fields: false, session_images: false, session_warnings: false },
    ],
  ];
  for (const [name, session, expected] of cases) it(name, () => expect(replacedChildren(session)).toEqual(expected));
});

describe('planMerge versions for session_history', () => {
  // What each batch makes: [valid_from, flag, result_final, missing_since, source] per new version.
  type Case = { name: string; stored?: Partial<StoredSession>; incoming: NormalizedSession[]; expected: unknown[][] };
  const cases: Case[] = [
    {
      name: 'first seen: one version from created_at',
      incoming: [auth('s', { last_synced_at: t(9) })],
      expected: [[auth('s').row.created_at, null, true, null, 'search']],
    },
    {
      name: 'a re-check with the same values: none',
      stored: {},
      incoming: [auth('s', { last_synced_at: t(9) })],
      expected: [],
    },
    {
      name: 'a stale observation: none',
      stored: { last_updated_at: t(8) },
      incoming: [auth('s', { flag: 'x', last_updated_at: t(7) })],
      expected: [],
    },
    {
      name: 'a changed flag, dated by the observation (v1.4)',
      stored: {},
      incoming: [auth('s', { flag: 'x', last_synced_at: t(9) })],
      expected: [[t(9), 'x', true, null, 'search']],
    },
    {
      name: 'a missing session seen again by a poll that changed nothing else',
      stored: { missing_since: t(6), raw: auth('s').row.raw },
      incoming: [auth('s', { last_synced_at: t(9) })],
      expected: [[t(9), null, true, null, 'search']],
    },
    {
      name: 'a stale webhook does not mark a missing session seen',
      stored: { missing_since: t(6), update_counter: 5 },
      incoming: [auth('s', { update_counter: 4, source: 'webhook' })],
      expected: [],
    },
    {
      name: 'two changes in one batch: two versions, in order',
      stored: {},
      incoming: [auth('s', { flag: 'x', last_synced_at: t(8) }), auth('s', { flag: 'y', last_synced_at: t(9) })],
      expected: [
        [t(8), 'x', true, null, 'search'],
        [t(9), 'y', true, null, 'search'],
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const storedSessions =
        c.stored === undefined ? none : { ...none, authentications: new Map([stored('s', c.stored)]) };
      const plan = planMerge(c.incoming, storedSessions);
      const versions = plan.versions.flatMap((s) => s.versions);
      const made = versions.map((v) => [v.valid_from, v.flag, v.result_final, v.missing_since, v.source]);
      expect(made).toEqual(c.expected);
    });
  }

  it('verify --repair names its versions verify', () => {
    const storedSessions = { ...none, authentications: new Map([stored('s')]) };
    const plan = planMerge([auth('s', { flag: 'x', last_synced_at: t(9) })], storedSessions, { source: 'verify' });
    expect(plan.versions.flatMap((s) => s.versions.map((v) => v.source))).toEqual(['verify']);
  });
});
