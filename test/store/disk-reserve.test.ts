import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DISK_RESERVE_BYTES, DiskReserve } from '../../src/store/target/disk-reserve.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();

describe('the disk reserve beside a target file', () => {
  it('is made while the target is open, freed once for a last write, made again by a run, removed on close', () => {
    const db = join(tempDir(), 'ivsync.sqlite');
    const file = `${db}.reserve`;
    const reserve = DiskReserve.hold(db);
    expect(statSync(file).size).toBe(DISK_RESERVE_BYTES);
    expect(reserve.release()).toBe(true);
    expect(existsSync(file)).toBe(false);
    // Spent: nothing more to free until a run starts again.
    expect(reserve.release()).toBe(false);
    reserve.renew();
    expect(statSync(file).size).toBe(DISK_RESERVE_BYTES);
    reserve.close();
    expect(existsSync(file)).toBe(false);
  });

  it("uses a reserve left by a killed run, and leaves another process's file in place on close", () => {
    const db = join(tempDir(), 'ivsync.duckdb');
    const file = `${db}.reserve`;
    writeFileSync(file, Buffer.alloc(DISK_RESERVE_BYTES));
    const reserve = DiskReserve.hold(db);
    reserve.close();
    expect(existsSync(file)).toBe(true);
    // Freed all the same when the disk is full.
    expect(DiskReserve.hold(db).release()).toBe(true);
    expect(existsSync(file)).toBe(false);
  });

  it('holds nothing where the directory refuses the file', () => {
    const reserve = DiskReserve.hold(join(tempDir(), 'missing-dir', 'ivsync.sqlite'));
    expect(reserve.release()).toBe(false);
  });
});
