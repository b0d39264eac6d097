/**
 * @module http/validation
 *
 * Request bodies are checked against JSON schemas (ajv, compiled once per schema, on its first body). A schema
 * field may carry `x-error`: the whole message a user reads when that field is wrong, so a
 * message is written once beside the field it describes; or `x-rule`: what the field must be
 * (`<field> must be <rule>`), for a shared field whose description a route replaces. Integers above 2^53 cannot survive
 * JSON.parse exactly, so integer fields carry `maximum: MAX_SAFE_INTEGER` and larger values
 * are refused rather than rounded.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { AuthCode } from '../auth/codes.ts';
import { documentedError, failure, GatewayCode, say, type DocumentedError } from './errors.ts';
import type { HttpReply } from './uws.ts';

const ajv = new Ajv({ allErrors: false, verbose: true, strict: true, allowUnionTypes: true });
ajv.addKeyword({ keyword: 'x-error', schemaType: 'string' });
ajv.addKeyword({ keyword: 'x-rule', schemaType: 'string' });
ajv.addKeyword({ keyword: 'example' });

const SAFE_INTEGER_MAX = Number.MAX_SAFE_INTEGER;

/** Field schemas shared by every route. */
export const Field = {
  address: { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$', description: '0x-prefixed 20-byte hex address', 'x-rule': 'a 0x-prefixed 20-byte hex address' },
  decimal: { type: 'string', pattern: '^-?[0-9]{1,40}(\\.[0-9]{1,40})?$', maxLength: 60, description: 'decimal string, no exponent', 'x-rule': 'a decimal string, no exponent' },
  uint64: { type: 'integer', minimum: 0, maximum: SAFE_INTEGER_MAX },
  subaccountIndex: { type: 'integer', minimum: 0, maximum: 2147483647, 'x-error': documentedError(AuthCode.InvalidSubaccountIndex)[1] },
  signatures: { type: 'array', minItems: 1, maxItems: 8, items: { type: 'string', maxLength: 200 } },
} as const;

/** What `describe` answers, in its three forms: a field missing, a field not in the schema, and a field's own rule. */
export const MISSING_FIELD: DocumentedError = [400, 'Missing field <name>'];
export const UNKNOWN_FIELD: DocumentedError = [400, 'Unknown field <name>'];
export const FIELD_RULE: DocumentedError = [400, '<field> must …'];

function fieldName(error: ErrorObject): string {
  const path = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
  return path.length > 0 ? path : 'body';
}

/** One clear sentence for the first problem ajv found. */
export function describe(error: ErrorObject): string {
  const custom = (error.parentSchema as Record<string, unknown> | undefined)?.['x-error'];
  if (error.keyword === 'required') return say(MISSING_FIELD[1], `${fieldName(error) === 'body' ? '' : fieldName(error) + '.'}${(error.params as { missingProperty: string }).missingProperty}`);
  if (error.keyword === 'additionalProperties') return say(UNKNOWN_FIELD[1], (error.params as { additionalProperty: string }).additionalProperty);
  if (typeof custom === 'string') return custom;
  const field = fieldName(error);
  // `x-rule`: what a shared field (Field.address, Field.decimal) must be, kept when a route's
  // schema spreads it with a description of its own — a description says what the field means
  // ("user credited"), not what to send, and read as a rule it made "isolated must be true
  // reserves margin for this market…".
  const rule = (error.parentSchema as Record<string, unknown> | undefined)?.['x-rule'] as string | undefined;
  switch (error.keyword) {
    case 'type':
      return `${field} must be ${rule ?? `of type ${(error.params as { type: string }).type}`}`;
    case 'pattern':
      return `${field} must be ${rule ?? 'a valid value'}`;
    case 'minLength':
    case 'maxLength': {
      if (rule !== undefined) return `${field} must be ${rule}`;
      const limit = (error.params as { limit: number }).limit;
      return `${field} must have ${error.keyword === 'minLength' ? 'at least' : 'at most'} ${limit} character${limit === 1 ? '' : 's'}`;
    }
    case 'minimum':
    case 'maximum':
      return `${field} must be an integer from ${(error.parentSchema as { minimum?: number }).minimum ?? 0} to ${(error.parentSchema as { maximum?: number }).maximum}`;
    case 'minItems':
    case 'maxItems': {
      const limit = (error.params as { limit: number }).limit;
      return `${field} must have ${error.keyword === 'minItems' ? 'at least' : 'at most'} ${limit} item${limit === 1 ? '' : 's'}`;
    }
    default:
      return `${field} ${error.message ?? 'is invalid'}`;
  }
}

export type BodyResult<T> = { ok: true; value: T } | { ok: false; reply: HttpReply };

/**
 * A body schema's parser: bytes → typed value, or the 400 reply. The schema is compiled on the
 * first body it parses, not when the route module loads (as serializers are: http/serializer),
 * and once per schema object (ajv keeps its compiles by schema). http/endpoint `route()` is its
 * one user: a route parses with its declaration's body schema.
 */
export function bodyParser<T>(schema: object): (body: string | null) => BodyResult<T> {
  let validate: ValidateFunction | undefined;
  return (body) => {
    validate ??= ajv.compile(schema);
    let value: unknown;
    try {
      value = JSON.parse(body === null || body.length === 0 ? 'null' : body);
    } catch {
      return { ok: false, reply: failure(GatewayCode.BodyNotJson) };
    }
    if (!validate(value)) return { ok: false, reply: failure(GatewayCode.InvalidField, describe(validate.errors![0])) };
    return { ok: true, value: value as T };
  };
}
