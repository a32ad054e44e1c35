/**
 * An ONNX model written out as the protobuf bytes onnxruntime reads (onnx.proto's ModelProto), for
 * a graph built in code (useLiteOnnx.ts builds USE-lite's from its own weights). Only what such a
 * graph needs: nodes with integer, integer-list and float attributes, float and integer
 * initializers, inputs and outputs with named or fixed dimensions. Field numbers are onnx.proto's.
 */

/** A node's attribute: an integer, a list of integers, or a float ({ f }). */
export type OnnxAttribute = number | readonly number[] | { readonly f: number };

export interface OnnxNode {
  readonly op: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly attributes?: Readonly<Record<string, OnnxAttribute>>;
}

export type OnnxType = 'float32' | 'int32' | 'int64';

/** A constant of the graph (a weight). */
export interface OnnxInitializer {
  readonly name: string;
  readonly dims: readonly number[];
  readonly type: OnnxType;
  readonly data: Float32Array | Int32Array | BigInt64Array;
}

/** A graph input or output; a string dimension is a named, free one. */
export interface OnnxValue {
  readonly name: string;
  readonly type: OnnxType;
  readonly dims: ReadonlyArray<number | string>;
}

export interface OnnxGraph {
  readonly nodes: readonly OnnxNode[];
  readonly initializers: readonly OnnxInitializer[];
  readonly inputs: readonly OnnxValue[];
  readonly outputs: readonly OnnxValue[];
}

/** onnx.proto's TensorProto.DataType. */
const DATA_TYPE: Record<OnnxType, number> = { float32: 1, int32: 6, int64: 7 };
/** onnx.proto's AttributeProto.AttributeType. */
const ATTRIBUTE_TYPE = { float: 1, int: 2, ints: 7 } as const;
/** IR version 8 with the default domain's opset 17: what every operation used here has had since 2022. */
const IR_VERSION = 8;
const OPSET = 17;

/** A protobuf message being written: its fields in order, each already encoded (the weights' bytes not copied). */
class Message {
  private readonly parts: Uint8Array[] = [];
  private length = 0;

  varintField(field: number, value: number): this {
    return this.key(field, 0).varint(value);
  }

  bytesField(field: number, bytes: Uint8Array): this {
    return this.key(field, 2).varint(bytes.length).push(bytes);
  }

  stringField(field: number, text: string): this {
    return this.bytesField(field, new TextEncoder().encode(text));
  }

  /** A nested message, its parts taken as they are: the weights are copied once, into the model's bytes. */
  messageField(field: number, message: Message): this {
    this.key(field, 2).varint(message.length);
    for (const part of message.parts) this.push(part);
    return this;
  }

  floatField(field: number, value: number): this {
    const bytes = new Uint8Array(4);
    new DataView(bytes.buffer).setFloat32(0, value, true);
    return this.key(field, 5).push(bytes);
  }

  bytes(): Uint8Array {
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const part of this.parts) {
      out.set(part, at);
      at += part.length;
    }
    return out;
  }

  private key(field: number, wireType: number): this {
    return this.varint(field * 8 + wireType);
  }

  /** A varint; negative numbers as their 64-bit two's complement (protobuf's int64). */
  private varint(value: number): this {
    let x = BigInt.asUintN(64, BigInt(value));
    const out: number[] = [];
    while (x >= 0x80n) {
      out.push(Number(x & 0x7fn) | 0x80);
      x >>= 7n;
    }
    out.push(Number(x));
    return this.push(Uint8Array.from(out));
  }

  private push(bytes: Uint8Array): this {
    this.parts.push(bytes);
    this.length += bytes.length;
    return this;
  }
}

function valueInfo(value: OnnxValue): Message {
  const shape = new Message();
  for (const d of value.dims) shape.messageField(1, typeof d === 'number' ? new Message().varintField(1, d) : new Message().stringField(2, d));
  const tensorType = new Message().varintField(1, DATA_TYPE[value.type]).messageField(2, shape);
  return new Message().stringField(1, value.name).messageField(2, new Message().messageField(1, tensorType));
}

function attribute(name: string, value: OnnxAttribute): Message {
  const a = new Message().stringField(1, name);
  if (typeof value === 'number') return a.varintField(3, value).varintField(20, ATTRIBUTE_TYPE.int);
  if ('f' in value) return a.floatField(2, value.f).varintField(20, ATTRIBUTE_TYPE.float);
  for (const x of value) a.varintField(8, x);
  return a.varintField(20, ATTRIBUTE_TYPE.ints);
}

/** The model's bytes: what `InferenceSession.create` takes. Initializers are copied in as raw little-endian data. */
export function onnxModelBytes(graph: OnnxGraph): Uint8Array {
  const g = new Message();
  graph.nodes.forEach((node, i) => {
    const n = new Message();
    for (const input of node.inputs) n.stringField(1, input);
    for (const output of node.outputs) n.stringField(2, output);
    n.stringField(3, `${node.op}_${i}`).stringField(4, node.op);
    for (const [name, value] of Object.entries(node.attributes ?? {})) n.messageField(5, attribute(name, value));
    g.messageField(1, n);
  });
  g.stringField(2, 'main');
  for (const t of graph.initializers) {
    const m = new Message();
    for (const d of t.dims) m.varintField(1, d);
    m.varintField(2, DATA_TYPE[t.type]).stringField(8, t.name);
    m.bytesField(9, new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
    g.messageField(5, m);
  }
  for (const input of graph.inputs) g.messageField(11, valueInfo(input));
  for (const output of graph.outputs) g.messageField(12, valueInfo(output));
  const opset = new Message().stringField(1, '').varintField(2, OPSET);
  return new Message().varintField(1, IR_VERSION).stringField(2, 'atomic-coding').messageField(8, opset).messageField(7, g).bytes();
}
