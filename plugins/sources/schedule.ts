import type { Logger } from 'pino';
import { inTransaction, type Db } from '../../core/db.ts';
import { AppError } from '../../core/errors.ts';
import type { SourceService } from './sources.service.ts';
import { STALE_MINUTES } from './runner.ts';
import { RUNS, SOURCES } from './store.ts';


/**
 * The minute's tick: starts the runs of sources whose schedule is due (a paused source is not), and sends again the
 * job of each run whose process stopped (a crash, `kill -9`), which then goes on from its last saved page.
 */
export async function tick(db: Db, sources: SourceService, resend: (runId: string) => Promise<unknown>, logger: Logger): Promise<void> {
  const due = (await db(SOURCES).where('next_run_at', '<=', db.fn.now()).whereIn('status', ['idle', 'error']).limit(100).pluck('id')) as string[];
  for (const id of due) {
    try {
      await inTransaction(db, (trx) => sources.enqueueRun(trx, id, false, 'schedule'));
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      logger.debug({ source: id, code: err.code }, 'scheduled run not started');
    }
  }
  const stale = (await db(RUNS)
    .where({ status: 'running' })
    .where('heartbeat_at', '<', db.raw(`now() - make_interval(mins => ?)`, [STALE_MINUTES]))
    .limit(100)
    .pluck('id')) as string[];
  // Sent again every minute until a process takes it: the run's claim lets one process only.
  for (const id of stale) await resend(id);
}
