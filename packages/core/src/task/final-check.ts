import type { Task } from '../model/types.js';
import type { Reconciler } from './reconciler.js';

/**
 * What `done()` resolves with once the task is terminal (G3). When the agent sent a terminal
 * snapshot — a GetTask answer (a poll, the final check after a gap, a refused subscription), a
 * subscription's first Task, a cancel's answer — that snapshot is the result: exactly the agent's
 * artifacts. Otherwise (a stream followed from its start to its end, with no gap) the result is the
 * view the events built, in the decoder's key order. The final check itself runs as the engine's
 * `final-check` phase, after any gap (or always, with `finalCheck: 'always'`); if the agent has
 * forgotten the finished task by then, or still shows it unfinished, the events' view is the result.
 */
export function finalResult(reconciler: Reconciler, terminalSnapshot: Task | undefined): Task {
  return terminalSnapshot ?? reconciler.toTask();
}
