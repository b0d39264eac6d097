/**
 * The strategy table: every kind of simulated user and how often it acts (relative weights).
 * A new strategy is a file in this directory and a row here; hostile ones (issue 13) go in
 * `HOSTILE`, which runs only with `--hostile`.
 */
import type { Strategy } from '../clients.ts';
import { badInput } from './bad-input.ts';
import { conditional } from './conditional.ts';
import { delegation } from './delegation.ts';
import { funds } from './funds.ts';
import { marketMaker } from './market-maker.ts';
import { oracle } from './oracle.ts';
import { trader } from './trader.ts';
import { cascade, dustFlood, feeSiphon, reduceOnlyLadder, relayedOrder, throughTheMark } from './hostile.ts';

export interface WeightedStrategy {
  strategy: Strategy;
  weight: number;
}

export const HONEST: readonly WeightedStrategy[] = [
  { strategy: trader, weight: 45 },
  { strategy: marketMaker, weight: 25 },
  { strategy: oracle, weight: 6 },
  { strategy: conditional, weight: 8 },
  { strategy: funds, weight: 8 },
  { strategy: delegation, weight: 1 },
  { strategy: badInput, weight: 7 },
];

export const HOSTILE: readonly WeightedStrategy[] = [
  { strategy: feeSiphon, weight: 3 },
  { strategy: reduceOnlyLadder, weight: 3 },
  { strategy: dustFlood, weight: 2 },
  { strategy: relayedOrder, weight: 2 },
  { strategy: cascade, weight: 2 },
  { strategy: throughTheMark, weight: 3 },
];

/** Picks strategies by weight with one draw each. */
export class StrategyTable {
  private readonly cumulative: number[] = [];
  private readonly strategies: Strategy[] = [];
  private readonly total: number;

  constructor(rows: readonly WeightedStrategy[]) {
    let sum = 0;
    for (const row of rows) {
      sum += row.weight;
      this.cumulative.push(sum);
      this.strategies.push(row.strategy);
    }
    this.total = sum;
  }

  pick(draw: number): Strategy {
    const x = draw % this.total;
    let i = 0;
    while (this.cumulative[i] <= x) i++;
    return this.strategies[i];
  }
}
