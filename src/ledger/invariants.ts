/**
 * @module ledger/invariants
 *
 * The ledger's laws, checked over its records (ledger.ts hands them, `LedgerRecords`):
 *  - `moneyReport`: where every unit of money is, summed — the conservation law
 *      Σcollateral + Σisolated margin − Σbasis + insuranceFund + feesCollected
 *        = deposits + faucet − withdrawals
 *    (realised PnL and funding have moved into collateral and margin; −Σbasis is the cash paid
 *    into open positions). O(owners + positions), no allocation beyond the result.
 *  - `checkConservation`: that law to the unit, no tolerance.
 *  - `validateLedger`: every invariant of the ledger's header (holds, open lots, positions net
 *    to zero per market, holders, collateral of owners without cross positions, waiting
 *    liquidations).
 * They only read: a check never changes what it checks.
 * May import: types/ids, ledger/.
 */
import type { AccountRegistry } from './accounts.ts';
import type { Funds } from './moves.ts';
import { countedReduceLots, type Hold, type MarketState, type OwnerState } from './state.ts';
import { asOwnerIndex, type OwnerIndex } from '../types/ids.ts';

/** Money that came in and went out, collateral units (the right side of the law). */
export interface MoneyFlows {
  deposited: bigint;
  fauceted: bigint;
  withdrawn: bigint;
}

/** What the checks read: the ledger's own records (owner 0 is the unused slot before the first owner). */
export interface LedgerRecords {
  readonly registry: AccountRegistry;
  readonly owners: readonly OwnerState[];
  readonly markets: readonly MarketState[];
  readonly holds: ReadonlyMap<number, Hold>;
  readonly funds: Readonly<Funds>;
  readonly flows: Readonly<MoneyFlows>;
  /** Owners with a liquidation waiting for their orders to leave the books (insolvency.ts). */
  readonly waiting: ReadonlySet<OwnerIndex>;
}

/** Where the money is (`moneyReport`): collateral units; `imbalance` is 0 when money is conserved. */
export interface MoneyReport {
  deposited: bigint;
  fauceted: bigint;
  withdrawn: bigint;
  collateral: bigint;
  isolatedMargin: bigint;
  /** Σ basis of open positions (the cash paid into them, signed). */
  openBasis: bigint;
  /** Negative = a deficit: shortfalls it covered beyond what it held (each one an `insurance` event with reason `shortfall`). */
  insuranceFund: bigint;
  feesCollected: bigint;
  /** held − (deposited + fauceted − withdrawn). */
  imbalance: bigint;
}

/** deposits + faucet − withdrawals. */
export function netDeposits(flows: Readonly<MoneyFlows>): bigint {
  return flows.deposited + flows.fauceted - flows.withdrawn;
}

/** Where every unit of money is, summed (see the module header). */
export function moneyReport(r: LedgerRecords): MoneyReport {
  let collateral = 0n;
  let isolatedMargin = 0n;
  let openBasis = 0n;
  for (let id = 1; id < r.owners.length; id++) {
    const o = r.owners[id];
    collateral += o.collateral;
    for (const p of o.positions.values()) {
      isolatedMargin += p.margin;
      openBasis += p.basis;
    }
  }
  const held = collateral + isolatedMargin - openBasis + r.funds.insurance + r.funds.feesCollected;
  return {
    deposited: r.flows.deposited,
    fauceted: r.flows.fauceted,
    withdrawn: r.flows.withdrawn,
    collateral,
    isolatedMargin,
    openBasis,
    insuranceFund: r.funds.insurance,
    feesCollected: r.funds.feesCollected,
    imbalance: held - netDeposits(r.flows),
  };
}

/**
 * Throws unless money is conserved to the unit (no tolerance): the check a simulator or a
 * test calls after every command or book event (between the two sides of one fill it does
 * not hold, so never from inside a listener).
 */
export function checkConservation(r: LedgerRecords): void {
  const m = moneyReport(r);
  if (m.imbalance !== 0n) {
    throw new Error(`ledger: money not conserved by ${m.imbalance}: collateral ${m.collateral} + isolated margin ${m.isolatedMargin} − basis ${m.openBasis} + insurance ${m.insuranceFund} + fees ${m.feesCollected} ≠ deposits ${m.deposited} + faucet ${m.fauceted} − withdrawals ${m.withdrawn}`);
  }
}

/** Throws when an invariant of the ledger is broken (ledger/ledger's header lists them). */
export function validateLedger(r: LedgerRecords): void {
  r.registry.validate();
  if (r.owners.length !== r.registry.ownerCount + 1) throw new Error('ledger: owners and registry differ in size');
  checkConservation(r);
  const net = new Array<number>(r.markets.length).fill(0);
  const holdTotals = new Map<OwnerIndex, bigint>();
  const lots = new Map<string, { buy: number; sell: number }>();
  for (const h of r.holds.values()) {
    if (h.amount < 0n || h.remaining <= 0) throw new Error(`ledger: hold of order ${h.orderId} is ${h.amount} for ${h.remaining} lots`);
    holdTotals.set(h.owner, (holdTotals.get(h.owner) ?? 0n) + h.amount);
    if (!h.liquidation) {
      // Open orders' lots under the key, reduce-only orders' (as counted) under `ro:` + the key.
      const key = `${h.reduceOnly ? 'ro:' : ''}${h.owner}/${h.market}`;
      const counted = h.reduceOnly ? countedReduceLots(h.remaining) : h.remaining;
      const l = lots.get(key) ?? { buy: 0, sell: 0 };
      if (h.side > 0) l.buy += counted;
      else l.sell += counted;
      lots.set(key, l);
    }
  }
  for (let i = 1; i < r.owners.length; i++) {
    const id = asOwnerIndex(i);
    const o = r.owners[id];
    let sideHeld = 0n;
    for (const [market, sh] of o.sideHolds) {
      const open = o.openLots.get(market);
      if (sh.buy < 0n || sh.sell < 0n || (sh.buy === 0n && sh.sell === 0n)) throw new Error(`ledger: owner ${id} side holds in market ${market} are ${sh.buy}/${sh.sell}`);
      if ((sh.buy > 0n && (open?.buy ?? 0) === 0) || (sh.sell > 0n && (open?.sell ?? 0) === 0)) throw new Error(`ledger: owner ${id} holds margin in market ${market} for a side with no open orders`);
      sideHeld += sh.buy + sh.sell;
    }
    if (o.holdTotal !== (holdTotals.get(id) ?? 0n) + sideHeld) throw new Error(`ledger: owner ${id} holdTotal ${o.holdTotal} ≠ Σ holds ${holdTotals.get(id) ?? 0n} + side holds ${sideHeld}`);
    for (const [prefix, counts] of [['', o.openLots], ['ro:', o.reduceLots]] as const) {
      for (const [market, l] of counts) {
        const want = lots.get(`${prefix}${id}/${market}`);
        if (want === undefined || want.buy !== l.buy || want.sell !== l.sell) throw new Error(`ledger: owner ${id} ${prefix === '' ? 'open' : 'reduce-only'} lots in market ${market} inconsistent`);
        lots.delete(`${prefix}${id}/${market}`);
      }
    }
    let crossPositions = 0;
    for (const [market, p] of o.positions) {
      if (p.market !== market || p.quantity === 0 || !Number.isSafeInteger(p.quantity)) throw new Error(`ledger: owner ${id} has an empty or misfiled position in ${market}`);
      if ((p.quantity > 0 && p.basis < 0n) || (p.quantity < 0 && p.basis > 0n)) throw new Error(`ledger: owner ${id} position ${market} basis sign`);
      if (!r.markets[market].holders.has(id)) throw new Error(`ledger: owner ${id} missing from holders of ${market}`);
      if (!p.isolated && p.margin !== 0n) throw new Error(`ledger: cross position of ${id} in ${market} has margin`);
      net[market] += p.quantity;
      if (!p.isolated) crossPositions++;
    }
    if (crossPositions === 0 && o.liquidating.size === 0 && o.collateral < 0n) throw new Error(`ledger: owner ${id} has collateral ${o.collateral} and no cross position`);
    for (const market of o.cancelling) if (!o.liquidating.has(market)) throw new Error(`ledger: owner ${id} waits to liquidate market ${market}, not in liquidation`);
    if (r.waiting.has(id) !== o.cancelling.size > 0) throw new Error(`ledger: owner ${id} is ${r.waiting.has(id) ? '' : 'not '}listed as waiting, with ${o.cancelling.size} liquidations waiting`);
  }
  if (lots.size > 0) throw new Error('ledger: open lots without an owner record');
  r.markets.forEach((m, i) => {
    if (net[i] !== 0) throw new Error(`ledger: positions in market ${i} net to ${net[i]}`);
    for (const id of m.holders) if (!r.owners[id].positions.has(m.spec.index)) throw new Error(`ledger: holder ${id} of ${i} has no position`);
  });
}
