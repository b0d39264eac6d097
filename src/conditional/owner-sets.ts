/**
 * @module conditional/owner-sets
 *
 * The per-owner (or per-key) sets the conditional book indexes its records by: a key keeps
 * its set only while the set is non-empty, so an index's key count is its live owners.
 * May import: nothing.
 */

export function addTo<K, T>(map: Map<K, Set<T>>, key: K, value: T): void {
  const set = map.get(key);
  if (set === undefined) map.set(key, new Set([value]));
  else set.add(value);
}

export function removeFrom<K, T>(map: Map<K, Set<T>>, key: K, value: T): void {
  const set = map.get(key);
  if (set === undefined) return;
  set.delete(value);
  if (set.size === 0) map.delete(key);
}
