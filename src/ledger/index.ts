/**
 * @module ledger
 *
 * The perpetuals ledger: the second pure, deterministic state machine beside the matching
 * core. It owns the account registry (address/subaccount ⇄ integer owner and account ids),
 * cross collateral, positions (signed lots, entry basis, fees, funding, isolated margin),
 * margin settings (cross/isolated, fraction = 1/leverage, tiers), pre-trade holds (R1),
 * fill settlement (R2), fees, prices (index, last, mark), funding, liquidation with the
 * insurance fund and ADL, account statistics, and its own invariant checks.
 *
 * Units: prices ticks and quantities lots (numbers, from the engine); collateral and notional
 * bigint base units (COLLATERAL_SCALE = 6); fractions bigint at RATE_SCALE = 8. Every
 * formula and its rounding is in docs/ledger.md.
 * Purity: no node: imports, no clock, no randomness, no I/O; time comes with each command.
 * May import: types/ids, types/address (types), config/market, engine/types, numeric/state-hash.
 * Nothing imports adapters from here.
 * Files: accounts (registry), units (notional arithmetic), position (trade → PnL), margin
 * (tiers), fees, mark-price, funding (the rate), funding-payments (paying it), liquidation
 * (bankruptcy prices, ADL ranking), open-loss, holds (R1), settlement (R2), insolvency
 * (liquidation, insurance fund, ADL, socialised loss), moves (balance/position/insurance
 * events), stats, state (records), invariants (the money report and the invariant checks over
 * the records), events, snapshot, codes, ledger (the facade).
 */
export {};
