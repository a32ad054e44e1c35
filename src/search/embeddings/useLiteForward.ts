/**
 * USE-lite's forward pass for one text, written as tfjs operations rather than run through the
 * graph. The graph's executor costs ~5 ms a run whatever the text (317 nodes, most of them shape
 * bookkeeping: the sparse input's padding, masks, gathers and scatters, each node's inputs looked
 * up by name): for a query of a few pieces that was half of its ~10 ms. A single text has no padding,
 * so the masks are all ones and the gathers and scatters are identities; what is left is ~70
 * operations. Only the model process uses it (useLiteWorker.ts), for runs of one text; a run of
 * several goes through the graph as before. Its vectors are the graph's, bit for bit on the texts
 * `test/integration/embed-forward.test.ts` holds them to (the same kernels in the same order; the
 * projections a product rather than the graph's 1×1 convolution, which XNNPACK computes alike).
 *
 * The model (the graph in model.json, read node by node):
 *   x   = 2·embedding[ids] + timing(position)                    [n, 256], timing = sin | cos of position × inv_timescales
 *   layer 0: h = x·D + d  +  attention(LN(x))                   [n, 512] (the residual projected 256 → 512)
 *            h = h + FFN(LN(h))
 *   layer 1: h = h + attention(LN(h));  h = h + FFN(LN(h))
 *   v   = tanh(mean(h)·T + t), then divided by its length          [512]
 * attention: qkv = a·Wqkv + b, split in three, four heads each; q scaled; softmax(q·kᵀ)·v; heads joined; ·Wo + bo.
 * FFN: relu(a·W1 + b1)·W2 + b2. LN: (a − mean) · rsqrt(mean((a − mean)²) + ε) · scale + bias.
 */

/** A tfjs tensor, as far as it is used here. */
export interface Tensor {
  readonly shape: number[];
  data(): Promise<Float32Array>;
  dispose(): void;
}

/** The tfjs operations the forward pass uses (@energetic-ai/core exports tfjs-core's). */
export interface ForwardOps {
  tidy<T extends Tensor>(fn: () => T): T;
  tensor1d(values: Int32Array | Float32Array, dtype?: 'int32' | 'float32'): Tensor;
  gather(x: Tensor, indices: Tensor): Tensor;
  add(a: Tensor, b: Tensor): Tensor;
  sub(a: Tensor, b: Tensor): Tensor;
  mul(a: Tensor, b: Tensor): Tensor;
  matMul(a: Tensor, b: Tensor, transposeA?: boolean, transposeB?: boolean): Tensor;
  reshape(x: Tensor, shape: number[]): Tensor;
  transpose(x: Tensor, perm: number[]): Tensor;
  slice(x: Tensor, begin: number[], size: number[]): Tensor;
  concat(xs: Tensor[], axis: number): Tensor;
  mean(x: Tensor, axis: number, keepDims: boolean): Tensor;
  sum(x: Tensor, axis: number, keepDims: boolean): Tensor;
  square(x: Tensor): Tensor;
  rsqrt(x: Tensor): Tensor;
  maximum(a: Tensor, b: Tensor): Tensor;
  softmax(x: Tensor): Tensor;
  relu(x: Tensor): Tensor;
  tanh(x: Tensor): Tensor;
  sin(x: Tensor): Tensor;
  cos(x: Tensor): Tensor;
}

const K = 'module_apply_default/Encoder_en/KonaTransformer/Encode/';
const STACK = `${K}TransformerStack/`;

/** One transformer layer's weights. */
interface LayerWeights<T extends Shaped> {
  lnScale: T;
  lnBias: T;
  qkv: T;
  qkvBias: T;
  out: T;
  outBias: T;
  querySplit: number;
  queryScale: T;
  ffnLnScale: T;
  ffnLnBias: T;
  ffn1: T;
  ffn1Bias: T;
  ffn2: T;
  ffn2Bias: T;
}

/** What a weight is, as far as picking the weights needs: tfjs tensors here, plain arrays for onnxruntime (useLiteOnnx.ts). */
export interface Shaped {
  readonly shape: number[];
}

/** The graph's weights the forward pass reads, found by their node names. */
export interface ForwardWeights<T extends Shaped = Tensor> {
  embeddings: T;
  invTimescales: T;
  residual: T;
  residualBias: T;
  epsilon: T;
  layers: [LayerWeights<T>, LayerWeights<T>];
  hidden: T;
  hiddenBias: T;
  l2Epsilon: T;
}

/** Four heads in both layers (the graph's split_heads reshapes to [.., 4, width / 4]). */
export const HEADS = 4;

/**
 * The weights, from the loaded graph's (`GraphModel.weights`: node name → tensors, or the same read
 * from the weight files), reshaped where the graph multiplies through a 1×1 convolution. Throws
 * naming the first node not found: a model of another shape than USE-lite's is refused here, and
 * the worker keeps the graph.
 */
export function forwardWeights<T extends Shaped>(reshape: (t: T, shape: number[]) => T, weights: Record<string, T[]>): ForwardWeights<T> {
  const get = (name: string): T => {
    const found = weights[name]?.[0];
    if (!found) throw new Error(`USE-lite's graph has no ${name}`);
    return found;
  };
  const matrix = (name: string): T => {
    const t = get(name);
    return t.shape.length === 4 ? reshape(t, [t.shape[2]!, t.shape[3]!]) : t;
  };
  const layer = (i: 0 | 1): LayerWeights<T> => {
    const w = `${K}Layer_${i}/TransformerLayer/`;
    const s = `${STACK}Layer_${i}/TransformerLayer/`;
    const model = `module/Encoder_en/KonaTransformer/Encode/Layer_${i}/TransformerLayer/MultiheadAttention/`;
    const qkv = matrix(`${model}qkv_transform_single/kernel/part_0`);
    return {
      lnScale: get(`${w}layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat`),
      lnBias: get(`${w}layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat`),
      qkv,
      qkvBias: get(`${w}MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat`),
      out: matrix(`${model}output_transform_single/kernel/part_0`),
      outBias: get(`${w}MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat`),
      // The graph splits q, k and v equally (its SplitV sizes).
      querySplit: qkv.shape[1]! / 3,
      queryScale: get(`${s}MultiheadAttention/mul/y`),
      ffnLnScale: get(`${w}FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat`),
      ffnLnBias: get(`${w}FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat`),
      ffn1: matrix(`${s}FFN/conv1/Tensordot/Reshape_1`),
      ffn1Bias: get(`${w}FFN/conv1/bias/ConcatPartitions/concat`),
      ffn2: matrix(`${s}FFN/conv2/Tensordot/Reshape_1`),
      ffn2Bias: get(`${w}FFN/conv2/bias/ConcatPartitions/concat`),
    };
  };
  return {
    embeddings: get('module/Embeddings_en'),
    invTimescales: get(`${STACK}Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1`),
    residual: get(`${K}Layer_0/TransformerLayer/dense/kernel/ConcatPartitions/concat`),
    residualBias: get(`${K}Layer_0/TransformerLayer/dense/bias/ConcatPartitions/concat`),
    epsilon: get(`${STACK}Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/Cast/x`),
    layers: [layer(0), layer(1)],
    hidden: get('module/Encoder_en/hidden_layers/tanh_layer_0/weights'),
    hiddenBias: get('module/Encoder_en/hidden_layers/tanh_layer_0/bias'),
    l2Epsilon: get('module_apply_default/Encoder_en/hidden_layers/l2_normalize/Maximum/y'),
  };
}

/** The vector of one text's pieces (at most the 128 the model reads; the graph's padding, -1, is none of them): a [1, 512] tensor. */
export function forwardOne(ops: ForwardOps, w: ForwardWeights, ids: Int32Array): Tensor {
  return ops.tidy(() => {
    const n = ids.length;
    const { add, mul, matMul } = ops;
    const norm = (a: Tensor, scale: Tensor, bias: Tensor): Tensor => {
      const centred = ops.sub(a, ops.mean(a, -1, true));
      const r = ops.rsqrt(add(ops.mean(ops.square(centred), -1, true), w.epsilon));
      return add(mul(mul(scale, r), centred), bias);
    };
    const attention = (a: Tensor, l: LayerWeights<Tensor>): Tensor => {
      const qkv = add(matMul(a, l.qkv), l.qkvBias);
      const width = l.querySplit;
      const heads = (x: Tensor): Tensor => ops.transpose(ops.reshape(x, [n, HEADS, width / HEADS]), [1, 0, 2]);
      const q = mul(heads(ops.slice(qkv, [0, 0], [n, width])), l.queryScale);
      const k = heads(ops.slice(qkv, [0, width], [n, width]));
      const v = heads(ops.slice(qkv, [0, 2 * width], [n, width]));
      const weights = ops.softmax(matMul(q, k, false, true));
      const joined = ops.reshape(ops.transpose(matMul(weights, v), [1, 0, 2]), [n, width]);
      return add(matMul(joined, l.out), l.outBias);
    };
    const ffn = (a: Tensor, l: LayerWeights<Tensor>): Tensor => add(matMul(ops.relu(add(matMul(a, l.ffn1), l.ffn1Bias)), l.ffn2), l.ffn2Bias);

    const positions = new Float32Array(n);
    for (let i = 0; i < n; i++) positions[i] = i;
    const scaled = mul(ops.reshape(ops.tensor1d(positions, 'float32'), [n, 1]), w.invTimescales);
    // The graph adds the embeddings to their timing-shifted copy (its Layer_0/add): 2·e + timing.
    const e = ops.gather(w.embeddings, ops.tensor1d(ids, 'int32'));
    const x = add(e, add(e, ops.concat([ops.sin(scaled), ops.cos(scaled)], 1)));

    const [l0, l1] = w.layers;
    let h = add(attention(norm(x, l0.lnScale, l0.lnBias), l0), add(matMul(x, w.residual), w.residualBias));
    h = add(ffn(norm(h, l0.ffnLnScale, l0.ffnLnBias), l0), h);
    h = add(attention(norm(h, l1.lnScale, l1.lnBias), l1), h);
    h = add(ffn(norm(h, l1.ffnLnScale, l1.ffnLnBias), l1), h);

    const pooled = ops.mean(h, 0, true);
    const t = ops.tanh(add(matMul(pooled, w.hidden), w.hiddenBias));
    return mul(t, ops.rsqrt(ops.maximum(ops.sum(ops.square(t), 1, true), w.l2Epsilon)));
  });
}
