/**
 * USE-lite run by onnxruntime (onnxruntime-node, its CPU kernels) instead of tfjs's wasm backend.
 * The model is the same: its graph is written here as ONNX, operation for operation the forward
 * pass of useLiteForward.ts, from the same weights (read from the model's files, so tfjs is not
 * loaded at all). Measured on the 2-core machine (test/bench/embed.bench.ts): a 128-piece text
 * 57 ms with tfjs (its forward pass, one thread) against 16 ms here on one thread and 9 ms on two;
 * vectors within 1e-6 of the graph's (`test/integration/embed-forward.test.ts` holds them to 1e-5).
 *
 * onnxruntime ships as a native library per platform (dist/onnxruntime/, scripts/build.mjs). Where
 * it is missing or does not load, the model process says so on stderr and runs tfjs as before.
 */
import { forwardWeights, HEADS, type ForwardWeights, type Shaped } from './useLiteForward.js';
import type { ModelFiles, ModelJson } from './modelFiles.js';
import { onnxModelBytes, type OnnxAttribute, type OnnxInitializer, type OnnxNode } from './onnxModel.js';

/** A weight as read from the model's files. */
export interface HostTensor extends Shaped {
  readonly values: Float32Array | Int32Array;
}

/** The part of onnxruntime-node used here. */
export interface OnnxRuntime {
  Tensor: new (type: 'int32' | 'float32', data: Int32Array | Float32Array, dims: number[]) => unknown;
  InferenceSession: {
    create(model: Uint8Array, options: Record<string, unknown>): Promise<OnnxSession>;
  };
}

interface OnnxSession {
  run(feeds: Record<string, unknown>): Promise<Record<string, { data: unknown }>>;
  release(): Promise<void>;
}

/**
 * The weights of a model.json whose shards are `data` (in the manifest's order, as tfjs reads
 * them), each a view into it: node name → [tensor], as `GraphModel.weights` has them.
 */
export function hostWeights(json: ModelJson, data: Uint8Array): Record<string, HostTensor[]> {
  // Every weight is 4 bytes an element, so one copy aligns them all where the shards' view is not (typed arrays need it).
  const shards = data.byteOffset % 4 === 0 ? data : data.slice();
  const out: Record<string, HostTensor[]> = {};
  let at = shards.byteOffset;
  for (const w of json.weightsManifest.flatMap((group) => group.weights)) {
    if (w.quantization || (w.dtype !== 'float32' && w.dtype !== 'int32')) throw new Error(`the model's weight ${w.name} is ${w.dtype}${w.quantization ? ' (quantized)' : ''}: only float32 and int32 are read`);
    const count = w.shape.reduce((a, b) => a * b, 1);
    if (at + count * 4 > shards.byteOffset + shards.byteLength) throw new Error(`the model's weight files end before ${w.name}`);
    const values = w.dtype === 'float32' ? new Float32Array(shards.buffer, at, count) : new Int32Array(shards.buffer, at, count);
    (out[w.name] ??= []).push({ shape: w.shape, values });
    at += count * 4;
  }
  return out;
}

/** USE-lite's forward pass (useLiteForward.ts's forwardOne) as an ONNX graph: inputs `ids` [n] and `positions` [n, 1], output `vector` [1, 512]. */
export function useLiteOnnxBytes(w: ForwardWeights<HostTensor>): Uint8Array {
  const nodes: OnnxNode[] = [];
  const initializers: OnnxInitializer[] = [];
  let next = 0;
  const weight = (t: HostTensor): string => {
    if (!(t.values instanceof Float32Array)) throw new Error('a weight the forward pass multiplies by is not float32');
    const name = `w${next++}`;
    initializers.push({ name, dims: t.shape, type: 'float32', data: t.values });
    return name;
  };
  const int64s = (values: number[]): string => {
    const name = `c${next++}`;
    initializers.push({ name, dims: [values.length], type: 'int64', data: BigInt64Array.from(values.map(BigInt)) });
    return name;
  };
  const op = (type: string, inputs: string[], attributes?: Record<string, OnnxAttribute>, outputs = 1): string[] => {
    const names = Array.from({ length: outputs }, () => `t${next++}`);
    nodes.push({ op: type, inputs, outputs: names, attributes });
    return names;
  };
  const one = (type: string, inputs: string[], attributes?: Record<string, OnnxAttribute>): string => op(type, inputs, attributes)[0]!;
  const add = (a: string, b: string) => one('Add', [a, b]);
  const mul = (a: string, b: string) => one('Mul', [a, b]);
  const matMul = (a: string, b: string) => one('MatMul', [a, b]);
  const lastMean = (a: string) => one('ReduceMean', [a], { axes: [-1], keepdims: 1 });

  const epsilon = weight(w.epsilon);
  const norm = (a: string, scale: string, bias: string): string => {
    const centred = one('Sub', [a, lastMean(a)]);
    const r = one('Reciprocal', [one('Sqrt', [add(lastMean(mul(centred, centred)), epsilon)])]);
    return add(mul(mul(scale, r), centred), bias);
  };
  const layers = w.layers.map((l) => ({
    ln: [weight(l.lnScale), weight(l.lnBias)] as const,
    qkv: [weight(l.qkv), weight(l.qkvBias)] as const,
    out: [weight(l.out), weight(l.outBias)] as const,
    queryScale: weight(l.queryScale),
    ffnLn: [weight(l.ffnLnScale), weight(l.ffnLnBias)] as const,
    ffn1: [weight(l.ffn1), weight(l.ffn1Bias)] as const,
    ffn2: [weight(l.ffn2), weight(l.ffn2Bias)] as const,
    headShape: int64s([-1, HEADS, l.querySplit / HEADS]),
    joinedShape: int64s([-1, l.querySplit]),
  }));
  type Layer = (typeof layers)[number];
  const attention = (a: string, l: Layer): string => {
    const [q, k, v] = op('Split', [add(matMul(a, l.qkv[0]), l.qkv[1])], { axis: 1 }, 3) as [string, string, string];
    // [n, width] → [heads, n, width / heads]; k straight to [heads, width / heads, n] for q·kᵀ.
    const heads = (x: string, perm: number[]) => one('Transpose', [one('Reshape', [x, l.headShape])], { perm });
    const weights = one('Softmax', [matMul(mul(heads(q, [1, 0, 2]), l.queryScale), heads(k, [1, 2, 0]))], { axis: -1 });
    const joined = one('Reshape', [one('Transpose', [matMul(weights, heads(v, [1, 0, 2]))], { perm: [1, 0, 2] }), l.joinedShape]);
    return add(matMul(joined, l.out[0]), l.out[1]);
  };
  const ffn = (a: string, l: Layer): string => add(matMul(one('Relu', [add(matMul(a, l.ffn1[0]), l.ffn1[1])]), l.ffn2[0]), l.ffn2[1]);

  // 2·embedding + timing signal (useLiteForward.ts says why).
  const e = one('Gather', [weight(w.embeddings), 'ids'], { axis: 0 });
  const scaled = mul('positions', weight(w.invTimescales));
  const x = add(e, add(e, one('Concat', [one('Sin', [scaled]), one('Cos', [scaled])], { axis: 1 })));
  const [l0, l1] = layers as [Layer, Layer];
  let h = add(attention(norm(x, ...l0.ln), l0), add(matMul(x, weight(w.residual)), weight(w.residualBias)));
  h = add(ffn(norm(h, ...l0.ffnLn), l0), h);
  h = add(attention(norm(h, ...l1.ln), l1), h);
  h = add(ffn(norm(h, ...l1.ffnLn), l1), h);
  const t = one('Tanh', [add(matMul(one('ReduceMean', [h], { axes: [0], keepdims: 1 }), weight(w.hidden)), weight(w.hiddenBias))]);
  const length = one('Sqrt', [one('Max', [one('ReduceSum', [mul(t, t), int64s([1])], { keepdims: 1 }), weight(w.l2Epsilon)])]);
  nodes.push({ op: 'Div', inputs: [t, length], outputs: ['vector'] });
  return onnxModelBytes({
    nodes,
    initializers,
    inputs: [
      { name: 'ids', type: 'int32', dims: ['n'] },
      { name: 'positions', type: 'float32', dims: ['n', 1] },
    ],
    outputs: [{ name: 'vector', type: 'float32', dims: [1, w.hidden.shape[1]!] }],
  });
}

/** USE-lite in an onnxruntime session: one text's vector a run (no padding, so no masks). */
export class OnnxUseLite {
  private constructor(
    private readonly ort: OnnxRuntime,
    private readonly session: OnnxSession,
  ) {}

  /**
   * The session for the model of these files; `threads`: onnxruntime's
   * threads for one run (a run's products split across cores).
   */
  static async create(ort: OnnxRuntime, files: ModelFiles, threads: number): Promise<OnnxUseLite> {
    const weights = forwardWeights((t: HostTensor, shape) => ({ shape, values: t.values }), hostWeights(files.json, files.shards));
    const session = await ort.InferenceSession.create(useLiteOnnxBytes(weights), {
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
    });
    return new OnnxUseLite(ort, session);
  }

  /** The vector of one text's pieces (at most the 128 the model reads; at least one). */
  async embed(ids: Int32Array): Promise<Float32Array> {
    const positions = new Float32Array(ids.length);
    for (let i = 0; i < ids.length; i++) positions[i] = i;
    const out = await this.session.run({
      ids: new this.ort.Tensor('int32', ids, [ids.length]),
      positions: new this.ort.Tensor('float32', positions, [ids.length, 1]),
    });
    return out.vector!.data as Float32Array;
  }

  async dispose(): Promise<void> {
    await this.session.release();
  }
}
