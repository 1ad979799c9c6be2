import { parentPort } from 'node:worker_threads';
import { runModel, type RunModelInput } from '../engine/model.engine';
import { ModelErrorCode, ModelRunError, toModelErrorData } from '../errors/model.error';

/** Messages from the runner: one run at a time per worker. */
export interface WorkerRequest {
  id: number;
  input: RunModelInput;
  /** Largest serialised result (bytes of its JSON) the runner accepts. */
  maxResultBytes: number;
}

export type WorkerReply =
  | { id: number; kind: 'started' }
  /** The result as JSON: serialised here, so the calling thread only moves a string. */
  | { id: number; kind: 'done'; json: string }
  | { id: number; kind: 'failed'; error: ReturnType<typeof toModelErrorData> };

if (parentPort) {
  const port = parentPort;
  port.on('message', (msg: WorkerRequest) => {
    port.postMessage({ id: msg.id, kind: 'started' } satisfies WorkerReply);
    try {
      const json = JSON.stringify(runModel(msg.input));
      const bytes = Buffer.byteLength(json);
      if (bytes > msg.maxResultBytes) {
        throw new ModelRunError(
          ModelErrorCode.ResultTooLarge,
          `the run's result is ${bytes} bytes of JSON, more than the limit of ${msg.maxResultBytes}; ask for fewer probes or points`,
          { resultBytes: bytes, maxResultBytes: msg.maxResultBytes },
        );
      }
      port.postMessage({ id: msg.id, kind: 'done', json } satisfies WorkerReply);
    } catch (error) {
      port.postMessage({ id: msg.id, kind: 'failed', error: toModelErrorData(error) } satisfies WorkerReply);
    }
  });
}
