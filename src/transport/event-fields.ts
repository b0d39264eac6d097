/**
 * @module transport/event-fields
 *
 * A book event record as named fields (`describeEvent`), and the one definition of when two
 * event records say the same thing (`sameEvent`): replay compares each journaled event with the
 * one its book reproduces, and a divergence report shows both. Cold path: the byte comparison
 * decides almost every call, fields are decoded only when bytes differ.
 *
 * May import: types/ids, transport/codec, transport/layout, engine/types (types only).
 */
import type { Side } from '../engine/types.ts';
import { decodeEvent, recordKind, recordLength, recordMarket } from './codec.ts';
import { RecordKind } from './layout.ts';
import type { MarketIndex, OrderId, OwnerIndex } from '../types/ids.ts';

/** An event record as named fields: what a divergence report shows and compares. */
export interface EventFields {
  kind: string;
  market: MarketIndex;
  [field: string]: string | number;
}

const kindNames = new Map<number, string>(Object.entries(RecordKind).map(([name, kind]) => [kind, name]));

/** The name of a record kind (`Fill`), or `kind N` for one this code does not know. */
function recordKindName(kind: number): string {
  return kindNames.get(kind) ?? `kind ${kind}`;
}

/** Collects one decoded event as fields, named as `BookListener` names its parameters. */
const fieldCollector = {
  out: null as EventFields | null,
  put(fields: Record<string, number>) {
    Object.assign(this.out!, fields);
  },
  onAccepted(seq: number, orderId: OrderId, owner: OwnerIndex, side: Side, price: number, quantity: number, time: number) {
    this.put({ seq, orderId, owner, side, price, quantity, time });
  },
  onRested(seq: number, orderId: OrderId, owner: OwnerIndex, side: Side, price: number, remaining: number, time: number) {
    this.put({ seq, orderId, owner, side, price, remaining, time });
  },
  onFill(seq: number, makerOrderId: OrderId, takerOrderId: OrderId, makerOwner: OwnerIndex, takerOwner: OwnerIndex, takerSide: Side, price: number, quantity: number, makerRemaining: number, takerRemaining: number, time: number) {
    this.put({ seq, makerOrderId, takerOrderId, makerOwner, takerOwner, takerSide, price, quantity, makerRemaining, takerRemaining, time });
  },
  onCancelled(seq: number, orderId: OrderId, owner: OwnerIndex, remaining: number, reason: number, time: number) {
    this.put({ seq, orderId, owner, remaining, reason, time });
  },
  onExpired(seq: number, orderId: OrderId, owner: OwnerIndex, remaining: number, reason: number, time: number) {
    this.put({ seq, orderId, owner, remaining, reason, time });
  },
  onRejected(seq: number, orderId: OrderId, owner: OwnerIndex, code: number, time: number) {
    this.put({ seq, orderId, owner, code, time });
  },
  onLevel(seq: number, side: Side, price: number, quantity: number, time: number) {
    this.put({ seq, side, price, quantity, time });
  },
};

/** The event record at `offset` as named fields (cold path: divergence reports and tests). */
export function describeEvent(view: DataView, offset: number): EventFields {
  const out: EventFields = { kind: recordKindName(recordKind(view, offset)), market: recordMarket(view, offset) };
  fieldCollector.out = out;
  try {
    decodeEvent(view, offset, fieldCollector);
  } finally {
    fieldCollector.out = null;
  }
  return out;
}

/** The names of the fields in which two described events differ (`kind` first when it does). */
export function differingFields(a: EventFields, b: EventFields): string[] {
  const names = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...names].filter((name) => a[name] !== b[name]);
}

/**
 * Whether two event records say the same thing: the same bytes (every writer writes all of a
 * record's bytes, `startRecord`), or else the same decoded fields — records journaled before
 * writers cleared their padding carry stale bytes there, which carry no meaning.
 */
export function sameEvent(a: DataView, aOffset: number, b: DataView, bOffset: number): boolean {
  const length = recordLength(a, aOffset);
  if (length === recordLength(b, bOffset)) {
    let i = 0;
    while (i < length && a.getUint8(aOffset + i) === b.getUint8(bOffset + i)) i++;
    if (i === length) return true;
  }
  return differingFields(describeEvent(a, aOffset), describeEvent(b, bOffset)).length === 0;
}
