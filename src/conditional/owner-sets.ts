/**
 * @module conditional/owner-sets
 *
 * The per-owner (or per-key) sets the conditional book indexes its records by: a key keeps
 * its set only while the set is non-empty, so an index's key count is its live owners.
 * May import: nothing.
 */

export function addTo<T>(map: Map<number, Set<T>>, key: number, value: T): void {
  const set = map.get(key);
  if (set === undefined) map.set(key, new Set([value]));
  else set.add(value);
}

export function removeFrom<T>(map: Map<number, Set<T>>, key: number, value: T): void {
  const set = map.get(key);
  if (set === undefined) return;
  set.delete(value);
  if (set.size === 0) map.delete(key);
}
