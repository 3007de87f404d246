/**
 * Whether a process with `pid` runs on this host. Signal 0 checks that a process exists without touching it; EPERM
 * means it exists under another user.
 */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
