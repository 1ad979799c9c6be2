import { parentPort } from 'node:worker_threads';
import { runModel, type RunModelInput } from '../engine/model.engine';
import { toModelErrorData } from '../errors/model.error';

/** Messages from the runner: one run at a time per worker. */
export interface WorkerRequest {
  id: number;
  input: RunModelInput;
}

export type WorkerReply =
  | { id: number; kind: 'started' }
  | { id: number; kind: 'done'; result: unknown }
  | { id: number; kind: 'failed'; error: ReturnType<typeof toModelErrorData> };

if (parentPort) {
  const port = parentPort;
  port.on('message', (msg: WorkerRequest) => {
    port.postMessage({ id: msg.id, kind: 'started' } satisfies WorkerReply);
    try {
      port.postMessage({ id: msg.id, kind: 'done', result: runModel(msg.input) } satisfies WorkerReply);
    } catch (error) {
      port.postMessage({ id: msg.id, kind: 'failed', error: toModelErrorData(error) } satisfies WorkerReply);
    }
  });
}
