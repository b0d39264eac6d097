/**
 * @module client/nonces
 *
 * Nonces for signed requests, per subaccount: strictly increasing within the process and taken
 * synchronously, so requests signed concurrently (a burst of orders, `Promise.all`) never share
 * one. They start from the clock in microseconds (`Date.now() × 1000`, a safe integer until the
 * year 2255), so a new process — each command of the CLI — starts above the nonces an earlier
 * one used, without asking the exchange; `raise` moves a subaccount past a floor the exchange
 * reported (GET /account/nonce, or a 409 `Nonce too low: must be greater than <min>`).
 *
 * The exchange keeps a window of 100 nonces per (account, subaccount, signer) (docs/auth.md), so
 * requests that overtake one another on the way are all accepted.
 *
 * May import: nothing.
 */
export class Nonces {
  private readonly last = new Map<number, number>();

  constructor(private readonly clock: () => number = Date.now) {}

  /** The next nonce of `subaccountIndex`: above every one given before and at least the clock's. */
  next(subaccountIndex: number): number {
    const nonce = Math.max((this.last.get(subaccountIndex) ?? 0) + 1, this.clock() * 1000);
    this.last.set(subaccountIndex, nonce);
    return nonce;
  }

  /** Nonces of `subaccountIndex` from now on are greater than `floor`. */
  raise(subaccountIndex: number, floor: number): void {
    if (floor > (this.last.get(subaccountIndex) ?? 0)) this.last.set(subaccountIndex, floor);
  }
}
