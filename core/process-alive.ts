/** Whether a process with this id exists (one owned by another user counts): what a lock or a name left by a killed process is checked against. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
