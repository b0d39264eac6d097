/**
 * @module sim/fund-payouts
 *
 * What the insurance fund may pay for an owner (docs/ledger.md, "Where every unit of a loss
 * comes from"), shared by the hostile simulator (sim/bounds.ts) and the in-flight generator
 * (test/app/attack-in-flight.property.test.ts). The fund going down without going below zero
 * is invisible to a check of its sign; three defects in one week made it pay an account's own
 * losses that way. And with the fund empty (the simulator's holds only liquidation fees) the
 * same loss is paid by the winners instead: socialised out of their profit, or by ADL closes
 * beyond the mark. The rule, per owner, from the last time it was seen healthy (not below
 * maintenance, no liquidation in flight; from its first event when nobody says):
 *
 *   what others paid of its losses      ≤  what the market took from it since
 *   (fund shortfalls, socialised loss,      + MMF / 20 of each liquidation's notional + 1
 *   ADL beyond the mark)
 *   − liquidation fees the fund took
 *
 * where "what the market took" is what nobody's order decides for it: index moves against
 * its positions and against its orders resting in a book (the mark stays within
 * index · (1 ± MMF/2), so a still index moves it only inside the band; an order's hold covers
 * its loss against the mark it was admitted at, and a rise of the index while an ask rests
 * makes its fill a sale below the mark), funding it paid, profit socialised away from it, and
 * ADL closes beyond the mark. Everything else that lowers its equity is its own act, and each
 * is covered before it happens: an order holds its initial margin, fees and open loss against
 * the mark, a transfer or withdrawal leaves initial margin. Healthy, its equity was at least its
 * maintenance margin, so only what the market took can carry it below zero. The band term is
 * the band's own width: a position left exactly at maintenance at one edge (an isolated rest
 * after its owner's close) is bankrupt at the other by the maintenance margins' difference,
 * MMF² / 2 of its notional, bounded by MMF / 20. Net of fees: a fee taken at the mark from a
 * partial liquidation fill comes back as the shortfall of the rest sold below it.
 *
 * A restart loses what the market took before it: an owner is checked again only from the
 * first time it is seen healthy after it (`restarting`, `healthy`).
 *
 * May import: src/ (config, ledger reads and units), nothing that mutates state.
 */
import { RATE_ONE, type MarketSpec } from '../src/config/market.ts';
import type { LedgerEvent } from '../src/ledger/events.ts';
import { notional, notionalScale, type NotionalScale } from '../src/ledger/units.ts';
import type { MarketIndex, OwnerIndex } from '../src/types/ids.ts';

/** What the rule reads of the running exchange. */
export interface LedgerReads {
  mark(market: MarketIndex): number;
  /** Signed lots. */
  position(owner: OwnerIndex, market: MarketIndex): number;
  /**
   * The market's parameters in force now (a markets record changes them; a market may be
   * appended), or undefined: the markets the rule was built with.
   */
  spec?(market: MarketIndex): MarketSpec | undefined;
}

/** An order resting in a book: `side` + buys, − sells. */
export interface RestingOrder {
  readonly market: MarketIndex;
  readonly side: number;
  readonly price: number;
  readonly remaining: number;
}

interface OwnerPayouts {
  /** What the market took from the owner since it was last healthy. */
  taken: bigint;
  /** Σ (MMF / 20 of the notional + 1) over its liquidations since. */
  band: bigint;
  /** Shortfalls the fund paid for it less the liquidation fees the fund took from it, since. */
  paid: bigint;
  /** False while the owner's history since the last restart is not known from a healthy start. */
  checked: boolean;
}

export class FundPayouts {
  private readonly owners = new Map<OwnerIndex, OwnerPayouts>();
  /** By market: tick and lot units never change (a markets record cannot rescale a market); appended markets get theirs when first met. */
  private readonly scales: NotionalScale[] = [];
  /** Owners with no entry are fresh (true until a restart: then nothing before it is known). */
  private fresh = true;
  /** The first payout beyond the rule, described. */
  broken: string | null = null;
  /** How many shortfalls were checked against the rule (so a reader can see the check is not vacuous). */
  shortfallsChecked = 0;

  /** `read` reads the running exchange (an ADL close is priced beyond the mark, against the bankrupt's position). */
  constructor(
    private readonly markets: readonly MarketSpec[],
    private readonly read: LedgerReads,
  ) {
  }

  /** The market's parameters in force: the running exchange's (a markets record may have changed them since the start). */
  private spec(market: MarketIndex): MarketSpec {
    return this.read.spec?.(market) ?? this.markets[market];
  }

  private scale(market: MarketIndex): NotionalScale {
    return (this.scales[market] ??= notionalScale(this.spec(market)));
  }

  private of(owner: OwnerIndex): OwnerPayouts {
    let o = this.owners.get(owner);
    if (o === undefined) this.owners.set(owner, (o = { taken: 0n, band: 0n, paid: 0n, checked: this.fresh }));
    return o;
  }

  /** A ledger event of the running exchange (or of its replay after a restart). */
  onLedgerEvent(e: LedgerEvent): void {
    switch (e.type) {
      case 'liquidation': {
        // The maintenance fraction in force when the liquidation happened.
        const spec = this.spec(e.order.market);
        const n = notional(this.scale(e.order.market), e.order.price, e.order.quantity);
        this.of(e.order.owner).band += (n * spec.maintenanceMarginFraction) / 20n / RATE_ONE + 1n;
        return;
      }
      case 'fundingPayment':
        if (e.amount < 0n) this.of(e.owner).taken -= e.amount;
        return;
      case 'socialisedLoss':
        this.of(e.counterparty).taken += e.amount;
        this.paidFor(e.owner, e.amount, 'a socialised loss');
        return;
      case 'adl': {
        // The bankrupt closes at its bankruptcy price: beyond the mark, the counterparty pays the difference.
        const mark = this.read.mark(e.market);
        const long = this.read.position(e.owner, e.market) > 0;
        if (long ? e.price <= mark : e.price >= mark) return;
        const amount = notional(this.scale(e.market), Math.abs(e.price - mark), e.quantity);
        this.of(e.counterparty).taken += amount;
        this.paidFor(e.owner, amount, 'an ADL close beyond the mark');
        return;
      }
      case 'insurance':
        if (e.reason === 'liquidationFee') this.of(e.owner).paid -= e.delta;
        else if (e.reason === 'shortfall') this.paidFor(e.owner, -e.delta, 'an insurance-fund shortfall');
        return;
      default:
    }
  }

  /** The index of `market` moved from `from` to `to` ticks: each entry (a position, or a resting order: + buys, − sells) loses the move against it. */
  indexMoved(market: MarketIndex, from: number, to: number, holders: Iterable<[OwnerIndex, number]>): void {
    if (from === 0 || from === to) return;
    for (const [owner, lots] of holders) {
      if (lots === 0 || (lots > 0) !== (to < from)) continue;
      this.of(owner).taken += notional(this.scale(market), Math.abs(to - from), Math.abs(lots));
    }
  }

  /**
   * `owner` is not below maintenance and has no liquidation in flight: nothing the fund pays
   * later may come from before, but for what its orders still resting would lose filled at the
   * mark now (the index may have moved since they were admitted, and their holds covered the
   * loss against the mark of then).
   */
  healthy(owner: OwnerIndex, resting: Iterable<RestingOrder> = []): void {
    let taken = 0n;
    for (const o of resting) {
      const mark = this.read.mark(o.market);
      if (o.side > 0 ? o.price > mark : o.price < mark) taken += notional(this.scale(o.market), Math.abs(o.price - mark), o.remaining);
    }
    if (this.fresh && taken === 0n) this.owners.delete(owner);
    else this.owners.set(owner, { taken, band: 0n, paid: 0n, checked: true });
  }

  /** Others paid `amount` of `owner`'s loss (the fund, a winner's profit). */
  private paidFor(owner: OwnerIndex, amount: bigint, how: string): void {
    const o = this.of(owner);
    o.paid += amount;
    if (!o.checked) return;
    this.shortfallsChecked++;
    if (o.paid > o.taken + o.band) {
      this.broken ??= `others paid ${amount} of owner ${owner}'s losses (${how}; ${o.paid} in all net of liquidation fees since it was last healthy), beyond what the market took from it (${o.taken}: index moves, funding, socialised loss, ADL) and the mark band's tolerance (${o.band}): its own orders lost money their holds did not cover`;
    }
  }

  /** Owners with an entry (the ones whose health is worth reading). */
  tracked(): IterableIterator<OwnerIndex> {
    return this.owners.keys();
  }

  /** A process is starting from a snapshot and journal: nobody's history before it is known. */
  restarting(): void {
    this.fresh = false;
    this.owners.clear();
  }
}
