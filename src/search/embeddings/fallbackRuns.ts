/**
 * The model's runs on one runtime, falling back to another from the first run that fails: where
 * onnxruntime loads but cannot run (a desktop VS Code whose Electron refuses something no test here
 * saw), the model process goes on with tfjs, slower, instead of failing every search's meaning.
 */
import type { EmbedRuntime } from './messages.js';

/** Some texts' pieces in, their vectors out, and what computes them. */
export interface ModelRuns {
  readonly runtime: EmbedRuntime;
  run(encodings: readonly number[][]): Promise<Float32Array[]>;
}

/**
 * `primary`'s runs until one fails; from then on `fallback`'s (loaded once, on that failure; said
 * once through `say`). The failed request is answered by the fallback. A fallback that fails to load
 * fails that request, and the next one loads it again.
 */
export function withFallback(primary: ModelRuns, fallback: () => Promise<ModelRuns>, say: (message: string) => void): ModelRuns {
  let primaryFailed = false;
  let loading: Promise<ModelRuns> | undefined;
  let loaded: ModelRuns | undefined;
  return {
    get runtime() {
      return (loaded ?? primary).runtime;
    },
    async run(encodings) {
      if (!primaryFailed) {
        try {
          return await primary.run(encodings);
        } catch (err) {
          if (!primaryFailed) say(`${primary.runtime} failed a run (${(err as Error).message ?? String(err)}); the model runs on the fallback from now on`);
          primaryFailed = true;
        }
      }
      loading ??= fallback().then(
        (runs) => (loaded = runs),
        (err: unknown) => {
          loading = undefined;
          throw err;
        },
      );
      return (await loading).run(encodings);
    },
  };
}
