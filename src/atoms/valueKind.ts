/**
 * The kind of value an expression visibly is (a literal, an array, an object, a template string, a
 * string concatenation with a literal, arithmetic, a comparison), or undefined when the code does not
 * show it. The parse (calls.ts) keeps this for each of the top function's returns rather than the
 * returned expression's tree, and returns.ts holds it to the declared outputs.
 */
export type ValueKind = 'number' | 'string' | 'boolean' | 'array' | 'object' | 'nothing';

interface Node {
  type: string;
  [key: string]: unknown;
}

/** The kind of value `node` visibly is; a missing node (a bare `return`) is 'nothing'. */
export function kindOf(node: Node | null | undefined): ValueKind | undefined {
  if (!node) return 'nothing';
  switch (node.type) {
    case 'Literal': {
      const v = node.value;
      if (v === null) return 'nothing';
      return typeof v === 'number' ? 'number' : typeof v === 'string' ? 'string' : typeof v === 'boolean' ? 'boolean' : undefined;
    }
    case 'TemplateLiteral':
      return 'string';
    case 'ArrayExpression':
      return 'array';
    case 'ObjectExpression':
      return 'object';
    case 'BinaryExpression':
      // "Score: " + x is a string whatever x is.
      if (node.operator === '+' && (isString(node.left as Node) || isString(node.right as Node))) return 'string';
      if (['-', '*', '/', '%', '**'].includes(node.operator as string)) return 'number';
      if (['<', '>', '<=', '>=', '===', '!==', '==', '!='].includes(node.operator as string)) return 'boolean';
      return undefined;
    case 'UnaryExpression':
      return node.operator === '!' ? 'boolean' : node.operator === '-' || node.operator === '+' ? 'number' : undefined;
    default:
      return undefined;
  }
}

function isString(node: Node): boolean {
  return (node.type === 'Literal' && typeof node.value === 'string') || node.type === 'TemplateLiteral';
}
