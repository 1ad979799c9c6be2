import { parentPort } from 'node:worker_threads';
import { runModel, type RunModelInput } from '../engine/model.engine';
import { ModelErrorCode, ModelRunError, toModelErrorData } from '../errors/model.error';

/** Messages from the runner: one run at a time per worker. */
export interface WorkerRequest {
  id: number;
  input: RunModelInput;
  /** Largest serialised result (UTF-16 code units of its JSON) the runner accepts. */
  maxResultChars: number;
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
      if (json.length > msg.maxResultChars) {
        throw new ModelRunError(
          ModelErrorCode.ResultTooLarge,
          `the run's result is ${json.length} characters of JSON, more than the limit of ${msg.maxResultChars}; ask for fewer probes or points`,
          { resultChars: json.length, maxResultChars: msg.maxResultChars },
        );
      }
      port.postMessage({ id: msg.id, kind: 'done', json } satisfies WorkerReply);
    } catch (error) {
      port.postMessage({ id: msg.id, kind: 'failed', error: toModelErrorData(error) } satisfies WorkerReply);
    }
  });
}
