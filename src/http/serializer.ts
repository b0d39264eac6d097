/**
 * @module http/serializer
 *
 * A response schema's serializer (fast-json-stringify), compiled when it is first used rather
 * than when its route module loads: compiling every route's serializers and validators at
 * import was about a quarter of the main thread's start-up (a process that serves a few routes,
 * a restart under a process manager, each test's exchange paid for all of them). The first
 * answer of each schema pays its compile once (a few milliseconds) — once per schema object in
 * the process, however many routes declare it or gateways serve it; every later one calls the
 * compiled function through one closure. http/endpoint `route()` is its one user: a route
 * serializes with its declaration's response schema.
 *
 * May import: fast-json-stringify.
 */
import fastJson from 'fast-json-stringify';

export type Serializer = (value: unknown) => string;

const compiled = new WeakMap<object, Serializer>();

/** `schema`'s serializer, compiled on its first call. */
export function serializer(schema: object): Serializer {
  let serialize: Serializer | undefined;
  return (value) => {
    if (serialize === undefined) {
      serialize = compiled.get(schema) ?? fastJson(schema);
      compiled.set(schema, serialize);
    }
    return serialize(value);
  };
}
