/**
 * fast-check arbitraries from the JSON schemas the OpenAPI document publishes, for the fuzz
 * test: valid-shaped values (types, patterns, enums, bounds, required fields), hostile values
 * (wrong types, exponent and NaN/Infinity strings, extra precision, huge numbers, unicode,
 * very long strings) and mutations of a valid value (a field missing, an unknown field, one
 * field hostile, a key given twice).
 *
 * A value tree may hold placeholders: `RawJson` (text written verbatim into the JSON, for
 * tokens JSON.stringify cannot produce: bare NaN, 1e400, 2^53 + 1), `Entries` (an object whose
 * keys repeat) and `Ref` (a value only the running test knows: a trader's address, an order id
 * seen earlier), resolved before rendering.
 */
import fc from 'fast-check';
import { anyUnicode } from '../fixtures/arbitrary-strings.ts';

/** Text put verbatim into the JSON body. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** An object whose key list may repeat a key (`{"a":1,"a":2}`). */
export class Entries {
  constructor(readonly entries: ReadonlyArray<readonly [string, unknown]>) {}
}

export type RefKind = 'self' | 'trader' | 'orderId' | 'clientId' | 'nonce' | 'future';

/** A value the test fills in when it sends the request (`self`: the caller's own address). */
export class Ref {
  constructor(
    readonly kind: RefKind,
    readonly pick: number,
  ) {}
}

export type Schema = Readonly<Record<string, any>>;

/** Generator of a property by its name, when the name says more than its schema. */
export type Hint = (name: string, schema: Schema) => fc.Arbitrary<unknown> | undefined;

const raw = (text: string) => new RawJson(text);

/** Numbers and strings that trip parsers: the heart of the hostile values. */
export const hostileScalar: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    null, true, false, 0, -1, 1.5, -0.5, 2 ** 53, -(2 ** 31), 1e21,
    '', ' ', '0', '-0', '00', '007', '+1', '--1', '.5', '5.', '1.', '1e5', '1E5', '1e-5', '-1e5', '0x10', '0b1', '0o7',
    '1_000', '1,5', '1 000', ' 1', '1 ', '\t1', '1\n', 'NaN', '-NaN', 'Infinity', '-Infinity', 'inf', 'null', 'undefined', 'true',
    '１２３', '١٢٣', '½', '1e400', '9'.repeat(41), '9'.repeat(400), '0.' + '0'.repeat(39) + '1', '1.' + '0'.repeat(60),
    '123456789012345678901234567890.123456789012345678901234567890', '9007199254740993', '-9007199254740993',
    '[]', '{}', '\u0000', '\u202e1', '😀', 'ß', 'ǅ', '${x}', '<script>', "'; DROP TABLE orders;--", '%00', '%ZZ', '../../etc/passwd',
    '__proto__', 'constructor', 'toString', 'hasOwnProperty',
  ),
  fc.constantFrom(raw('NaN'), raw('Infinity'), raw('-Infinity'), raw('1e400'), raw('-1e400'), raw('9007199254740993'),
    raw('123456789012345678901234567890'), raw('1e5'), raw('-0'), raw('0.1e1'), raw('1.0'), raw('5e-324'), raw('1E+2'), raw('undefined'), raw("'1'"), raw('0x10')),
  fc.integer({ min: 1, max: 120 }).map((n) => '0.' + '0'.repeat(n) + '1'),
  fc.integer({ min: 1, max: 120 }).map((n) => '9'.repeat(n)),
  fc.tuple(fc.integer({ min: 0, max: 9_999_999 }), fc.integer({ min: 1, max: 30 })).map(([n, k]) => `${n}.${'5'.repeat(k)}`),
  fc.tuple(fc.integer({ min: -99, max: 99 }), fc.integer({ min: -400, max: 400 })).map(([m, e]) => `${m}e${e}`),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  anyUnicode(20),
  fc.integer({ min: 1000, max: 20_000 }).map((n) => 'x'.repeat(n)),
  fc.double(),
  fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map((n) => raw(n.toString())),
);

/** Any hostile value: a scalar, or a structure where a scalar was expected. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: hostileScalar },
  { weight: 1, arbitrary: fc.array(hostileScalar, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), hostileScalar, { maxKeys: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom(raw('{"__proto__":{"polluted":1}}'), raw('{"constructor":{"prototype":{"x":1}}}'), raw('['.repeat(3000) + ']'.repeat(3000)), raw('{"a":'.repeat(500) + '1' + '}'.repeat(500))) },
);

function integerArbitrary(schema: Schema): fc.Arbitrary<number> {
  const min = typeof schema.minimum === 'number' ? schema.minimum : -(2 ** 31);
  const max = typeof schema.maximum === 'number' ? schema.maximum : 2 ** 31 - 1;
  const small = fc.integer({ min: Math.max(min, -1000), max: Math.max(Math.min(max, 1000), Math.max(min, -1000)) });
  return fc.oneof(
    { weight: 4, arbitrary: small },
    { weight: 1, arbitrary: fc.constantFrom(min, max) },
    // Anywhere in the range, however wide (fc.integer stops at 32 bits).
    { weight: 1, arbitrary: fc.double({ min: 0, max: 1, noNaN: true }).map((f) => Math.min(max, min + Math.floor(f * (max - min + 1)))) },
  );
}

function stringArbitrary(schema: Schema): fc.Arbitrary<string> {
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : undefined;
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  if (typeof schema.pattern === 'string') {
    const matching = fc.stringMatching(new RegExp(schema.pattern));
    return maxLength === undefined && minLength === 0 ? matching : matching.filter((s) => s.length >= minLength && s.length <= (maxLength ?? Infinity));
  }
  return fc.string({ minLength, maxLength: Math.min(maxLength ?? 40, 40) });
}

/**
 * A valid-shaped value of `schema`: every required property, some optional ones. `hint` may
 * replace any named property's generator; `resolve` follows `$ref`.
 */
export function valueOf(schema: Schema, resolve: (ref: string) => Schema, hint: Hint, name = '', depth = 0): fc.Arbitrary<unknown> {
  if (typeof schema.$ref === 'string') return valueOf(resolve(schema.$ref), resolve, hint, name, depth);
  const hinted = name === '' ? undefined : hint(name, schema);
  if (hinted !== undefined) return hinted;
  if (Array.isArray(schema.anyOf)) return fc.oneof(...schema.anyOf.map((s: Schema) => valueOf(s, resolve, hint, name, depth)));
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  if (Array.isArray(schema.type)) {
    // Nullable fields: mostly the value, sometimes null.
    const types = schema.type as string[];
    return fc.oneof(...types.map((type) => ({ weight: type === 'null' ? 1 : 3, arbitrary: valueOf({ ...schema, type }, resolve, hint, name, depth) })));
  }
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return integerArbitrary(schema);
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'string':
      return stringArbitrary(schema);
    case 'array': {
      const items = schema.items === undefined ? hostileScalar : valueOf(schema.items, resolve, hint, `${name}[]`, depth + 1);
      const minLength = typeof schema.minItems === 'number' ? schema.minItems : 0;
      const maxLength = Math.max(minLength, Math.min(typeof schema.maxItems === 'number' ? schema.maxItems : 4, 4));
      return fc.array(items, { minLength, maxLength });
    }
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const required = (schema.required ?? []) as string[];
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, s] of Object.entries(properties)) model[key] = valueOf(s, resolve, hint, key, depth + 1);
      return fc.record(model, { requiredKeys: required });
    }
    default:
      return hostileScalar;
  }
}

/**
 * `base`, or one mutation of it: a key dropped, an unknown key added, a key's value made
 * hostile (at the top level or one level down), a key repeated with another value, or the
 * whole value replaced by a hostile one.
 */
export function mutated(base: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof RawJson) && !(v instanceof Ref) && !(v instanceof Entries);
  return base.chain((value) => {
    if (!isObject(value) || Object.keys(value).length === 0) return fc.oneof(fc.constant(value), hostileValue);
    const keys = Object.keys(value);
    const key = fc.constantFrom(...keys);
    const nested = keys.filter((k) => isObject(value[k]) || (Array.isArray(value[k]) && (value[k] as unknown[]).some(isObject)));
    const options: fc.Arbitrary<unknown>[] = [
      key.map((k) => Object.fromEntries(Object.entries(value).filter(([x]) => x !== k))),
      fc.tuple(fc.constantFrom('extra', 'Price', 'price ', 'signature', '__proto__', 'constructor', '', 'subAccountIndex', '😀'), hostileScalar).map(([k, v]) => new Entries([...Object.entries(value), [k, v]])),
      fc.tuple(key, hostileValue).map(([k, v]) => ({ ...value, [k]: v })),
      fc.tuple(key, hostileValue).map(([k, v]) => new Entries([...Object.entries(value), [k, v]])),
      hostileValue,
    ];
    if (nested.length > 0) {
      options.push(
        fc.tuple(fc.constantFrom(...nested), fc.string({ maxLength: 12 }), hostileValue).map(([k, field, v]) => {
          const inner = value[k];
          const target = Array.isArray(inner) ? inner.map((x) => (isObject(x) ? { ...x, [field in x ? field : (Object.keys(x)[0] ?? field)]: v } : x)) : { ...(inner as object), [field]: v };
          return { ...value, [k]: target };
        }),
      );
    }
    return fc.oneof(...options);
  });
}

/** JSON text of a resolved value tree: `RawJson` verbatim, `Entries` with its keys as listed. */
export function renderJson(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (value instanceof Entries) return `{${value.entries.map(([k, v]) => `${JSON.stringify(k)}:${renderJson(v)}`).join(',')}}`;
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : renderJson(v))).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.entries(value).filter(([, v]) => v !== undefined).map(([k, v]) => `${JSON.stringify(k)}:${renderJson(v)}`).join(',')}}`;
  }
  if (typeof value === 'bigint') return value.toString();
  return JSON.stringify(value) ?? 'null';
}

/** The tree with every `Ref` replaced by `fill(ref)`. */
export function resolveRefs(value: unknown, fill: (ref: Ref) => unknown): unknown {
  if (value instanceof Ref) return fill(value);
  if (value instanceof RawJson) return value;
  if (value instanceof Entries) return new Entries(value.entries.map(([k, v]) => [k, resolveRefs(v, fill)] as const));
  if (Array.isArray(value)) return value.map((v) => resolveRefs(v, fill));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveRefs(v, fill)]));
  return value;
}
