import { parentPort } from 'node:worker_threads';

/** What a thread answers for one task. */
export type TaskReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; message: string };

/**
 * The thread's side: runs what the pool hands it, one task at a time (the pool hands the next
 * only when this one has answered, so an async task is one at a time too). The pool ends the
 * thread when a task outruns its budget, so nothing here watches time. Call once, after the
 * module's imports: the pool starts a task's budget clock only when the thread says it is ready.
 */
export const serveTasks = <Task>(run: (task: Task) => unknown): void => {
  const port = parentPort;
  if (!port) throw new Error('serveTasks runs on a worker thread');
  port.on('message', async (task: Task & { id: number }) => {
    let reply: TaskReply;
    try {
      reply = { id: task.id, ok: true, value: await run(task) };
    } catch (err) {
      reply = { id: task.id, ok: false, message: err instanceof Error ? err.message : String(err) };
    }
    port.postMessage(reply);
  });
  port.postMessage({ ready: true });
};
