/**
 * @module auth/delegation
 *
 * Who may act for an account: delegates per (account, subaccountIndex) with scopes `trade`
 * (orders, cancels, margin updates) and `read` (orders, stats, positions, fills), and the
 * authorization rules of the spec built on them. Journaled state, pure and deterministic.
 *
 * May import: numeric/state-hash, types/address, ./codes.
 *
 * Rules:
 *  - A Delegation change (add / remove) is signed by the account itself, never by a delegate.
 *    `add` sets the delegate's scopes (replacing earlier ones); `remove` revokes it (its `scopes`
 *    field is signed but ignored; sign ""). The change's nonce is the account's own (nonces.ts).
 *  - Revoking keeps the delegate's nonce history (it lives in the NonceStore, which never
 *    forgets), so signatures it made before cannot be replayed.
 *  - Signed writes: orders and margin updates by the account or a `trade` delegate; transfers
 *    only by the debited account itself (`target` = `accountFrom` = signer), never a delegate.
 *  - Token calls (reads, and cancels authorised by the JWT): the token's address is the account
 *    or a delegate holding the needed scope.
 *  - Texts for signed writes, by who the recovered signer is:
 *      · unrelated to the account (neither it nor its delegate on any subaccount): `Invalid
 *        signature` — that is what a wrong field, a wrong domain or an action signed as another
 *        type looks like (they recover a random address), and a stranger's valid signature is
 *        not a valid signature for this account either;
 *      · a delegate of another subaccount: `Not delegated for account and subaccount`;
 *      · a delegate without `trade`, or any delegate where delegation is forbidden (transfers,
 *        delegation changes): `Delegation not allowed for request`; for a margin update,
 *        `Unauthorized to change margin for account <account>`.
 *  - Texts for token callers (the identity is certain): not a delegate of the subaccount →
 *    `Not delegated for account and subaccount`; delegate without the scope → `Delegation not
 *    allowed for request`.
 *
 * Invariants: addresses lowercase; a delegate is never its own account; scopes non-empty,
 * canonical order (trade before read).
 * Limits: re-granting a revoked delegate revives the requests it signed but never submitted
 * whose `expiresAt` has not passed: grant a fresh key instead (as Hyperliquid advises).
 */
import { stateHashOf } from '../numeric/state-hash.ts';
import { isAddress, toAddress, type Address } from '../types/address.ts';
import { accepted, AuthCode, refused, type AuthResult } from './codes.ts';

export type Scope = 'trade' | 'read';
const SCOPES: readonly Scope[] = ['trade', 'read'];

/** Largest subaccount index (int32). */
export const MAX_SUBACCOUNT_INDEX = 0x7fffffff;

function validSubaccountIndex(index: unknown): index is number {
  return typeof index === 'number' && Number.isInteger(index) && index >= 0 && index <= MAX_SUBACCOUNT_INDEX;
}

/** "trade,read" (any order, spaces allowed) → canonical scopes, or undefined. */
export function parseScopes(text: string): Scope[] | undefined {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.some((p) => !SCOPES.includes(p as Scope)) || new Set(parts).size !== parts.length) return undefined;
  return SCOPES.filter((s) => parts.includes(s));
}

export interface DelegationChange {
  account: string;
  subaccountIndex: number;
  delegate: string;
  scopes: string;
  action: string;
}

export interface DelegateGrant {
  subaccountIndex: number;
  delegate: Address;
  scopes: readonly Scope[];
}

export interface DelegationSnapshot {
  version: 1;
  /** Sorted by account, subaccountIndex, delegate. */
  grants: Array<[Address, number, Address, Scope[]]>;
}

/** A write that arrives with an EIP-712 signature, with its recovered signer. */
export type SignedWrite =
  | { action: 'order' | 'marginUpdate' | 'delegation'; account: Address; subaccountIndex: number; signer: Address }
  | { action: 'transfer'; accountFrom: Address; subaccountIndexFrom: number; subaccountIndexTo: number; target: Address; signer: Address };

function subaccountKey(account: Address, subaccountIndex: number): string {
  return `${account}|${subaccountIndex}`;
}

export class DelegationStore {
  private readonly grants = new Map<string, Map<Address, Scope[]>>();
  /** `account|delegate` → on how many subaccounts the delegate holds a grant (derived). */
  private readonly related = new Map<string, number>();

  /** The scopes `delegate` holds for the subaccount (undefined when it is not a delegate). */
  scopesOf(account: Address, subaccountIndex: number, delegate: Address): readonly Scope[] | undefined {
    return this.grants.get(subaccountKey(account, subaccountIndex))?.get(delegate);
  }

  /** Whether `change` (already signed by `signer`) would be applied; records nothing. */
  check(change: DelegationChange, signer: Address): AuthResult<{ account: Address; delegate: Address; scopes: Scope[] }> {
    const account = toAddress(change.account);
    if (account === undefined) return refused(AuthCode.InvalidAddress);
    const delegate = toAddress(change.delegate);
    if (delegate === undefined) return refused(AuthCode.InvalidField, { field: 'delegate' });
    if (!validSubaccountIndex(change.subaccountIndex)) return refused(AuthCode.InvalidSubaccountIndex);
    if (signer !== account) return refused(this.isRelated(account, signer) ? AuthCode.DelegationNotAllowed : AuthCode.InvalidSignature);
    if (delegate === account) return refused(AuthCode.SelfDelegation);
    if (change.action === 'remove') {
      if (this.scopesOf(account, change.subaccountIndex, delegate) === undefined) return refused(AuthCode.DelegateNotFound);
      return accepted({ account, delegate, scopes: [] });
    }
    if (change.action !== 'add') return refused(AuthCode.InvalidField, { field: 'action' });
    const scopes = typeof change.scopes === 'string' ? parseScopes(change.scopes) : undefined;
    if (scopes === undefined) return refused(AuthCode.InvalidScopes);
    return accepted({ account, delegate, scopes });
  }

  /** Applies a signed change: `add` grants or replaces scopes, `remove` revokes. */
  apply(change: DelegationChange, signer: Address): AuthResult<void> {
    const checked = this.check(change, signer);
    if (!checked.ok) return checked;
    const { account, delegate, scopes } = checked.value;
    if (change.action === 'remove') this.revoke(account, change.subaccountIndex, delegate);
    else this.grant(account, change.subaccountIndex, delegate, scopes);
    return accepted(undefined);
  }

  /** Whether `signer` is the account or its delegate on any subaccount. */
  isRelated(account: Address, signer: Address): boolean {
    return signer === account || this.related.has(`${account}|${signer}`);
  }

  /** Delegates of an account, of one subaccount or all, sorted (GET /account/delegates). */
  delegates(account: Address, subaccountIndex?: number): DelegateGrant[] {
    const out: DelegateGrant[] = [];
    for (const [key, delegates] of this.grants) {
      const [owner, index] = key.split('|');
      if (owner !== account || (subaccountIndex !== undefined && Number(index) !== subaccountIndex)) continue;
      for (const [delegate, scopes] of delegates) out.push({ subaccountIndex: Number(index), delegate, scopes });
    }
    return out.sort((a, b) => a.subaccountIndex - b.subaccountIndex || (a.delegate < b.delegate ? -1 : 1));
  }

  /** Addresses whose signature is accepted for the subaccount's orders: the account, then its trade delegates. */
  signers(account: Address, subaccountIndex: number): Address[] {
    return [account, ...this.delegates(account, subaccountIndex).filter((g) => g.scopes.includes('trade')).map((g) => g.delegate)];
  }

  /** Authorises a signed write for its recovered signer (rules in the module header). */
  authorizeWrite(write: SignedWrite): AuthResult<void> {
    if (write.action === 'transfer') {
      if (!validSubaccountIndex(write.subaccountIndexFrom) || !validSubaccountIndex(write.subaccountIndexTo)) return refused(AuthCode.InvalidSubaccountIndex);
      if (!this.isRelated(write.accountFrom, write.signer)) return refused(AuthCode.InvalidSignature);
      return write.signer === write.accountFrom && write.target === write.accountFrom ? accepted(undefined) : refused(AuthCode.DelegationNotAllowed);
    }
    if (!validSubaccountIndex(write.subaccountIndex)) return refused(AuthCode.InvalidSubaccountIndex);
    if (write.signer === write.account) return accepted(undefined);
    if (!this.isRelated(write.account, write.signer)) return refused(AuthCode.InvalidSignature);
    if (write.action === 'delegation') return refused(AuthCode.DelegationNotAllowed);
    const scopes = this.scopesOf(write.account, write.subaccountIndex, write.signer);
    if (scopes?.includes('trade')) return accepted(undefined);
    if (write.action === 'marginUpdate') return refused(AuthCode.UnauthorizedMargin, { account: write.account });
    return refused(scopes === undefined ? AuthCode.NotDelegated : AuthCode.DelegationNotAllowed);
  }

  /**
   * Authorises a call made with a JWT for `caller` (the token's subject) on a subaccount:
   * `read` for reads, `trade` for cancels authorised by the token. `trade` includes `read`: a
   * delegate trusted to place and cancel must see the orders, positions and balance it trades
   * (docs/auth.md "Who may do what"). A caller without any grant on the subaccount is
   * `NotDelegated`; a delegate of it without the scope `DelegationNotAllowed`.
   */
  authorizeCaller(caller: Address, account: Address, subaccountIndex: unknown, need: Scope): AuthResult<void> {
    if (!validSubaccountIndex(subaccountIndex)) return refused(AuthCode.InvalidSubaccountIndex);
    if (caller === account) return accepted(undefined);
    const scopes = this.scopesOf(account, subaccountIndex, caller);
    if (scopes === undefined) return refused(AuthCode.NotDelegated);
    return scopes.includes(need) || (need === 'read' && scopes.includes('trade')) ? accepted(undefined) : refused(AuthCode.DelegationNotAllowed);
  }

  snapshot(): DelegationSnapshot {
    const grants: DelegationSnapshot['grants'] = [];
    for (const [key, delegates] of this.grants) {
      const [account, index] = key.split('|');
      for (const [delegate, scopes] of delegates) grants.push([account as Address, Number(index), delegate, [...scopes]]);
    }
    grants.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1] || (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0)));
    return { version: 1, grants };
  }

  static restore(snapshot: DelegationSnapshot): DelegationStore {
    if (snapshot.version !== 1) throw new Error(`unknown delegation snapshot version ${String(snapshot.version)}`);
    const store = new DelegationStore();
    for (const [account, subaccountIndex, delegate, scopes] of snapshot.grants) store.grant(account, subaccountIndex, delegate, [...scopes]);
    store.validateInternalState();
    return store;
  }

  stateHash(): string {
    return stateHashOf(this.snapshot());
  }

  validateInternalState(): void {
    const related = new Map<string, number>();
    for (const [key, delegates] of this.grants) {
      const [account, index] = key.split('|');
      if (!isAddress(account) || !validSubaccountIndex(Number(index))) throw new Error(`bad delegation key ${key}`);
      if (delegates.size === 0) throw new Error(`empty delegation entry ${key}`);
      for (const [delegate, scopes] of delegates) {
        if (!isAddress(delegate) || delegate === account) throw new Error(`bad delegate ${delegate} for ${key}`);
        if (scopes.length === 0 || parseScopes(scopes.join(','))?.join(',') !== scopes.join(',')) throw new Error(`bad scopes ${scopes.join(',')} for ${key}`);
        related.set(`${account}|${delegate}`, (related.get(`${account}|${delegate}`) ?? 0) + 1);
      }
    }
    if (related.size !== this.related.size || [...related].some(([k, n]) => this.related.get(k) !== n)) throw new Error('delegate index out of step with grants');
  }

  private grant(account: Address, subaccountIndex: number, delegate: Address, scopes: Scope[]): void {
    const key = subaccountKey(account, subaccountIndex);
    let delegates = this.grants.get(key);
    if (delegates === undefined) {
      delegates = new Map();
      this.grants.set(key, delegates);
    }
    if (!delegates.has(delegate)) this.related.set(`${account}|${delegate}`, (this.related.get(`${account}|${delegate}`) ?? 0) + 1);
    delegates.set(delegate, scopes);
  }

  private revoke(account: Address, subaccountIndex: number, delegate: Address): void {
    const key = subaccountKey(account, subaccountIndex);
    const delegates = this.grants.get(key)!;
    delegates.delete(delegate);
    if (delegates.size === 0) this.grants.delete(key);
    const relation = `${account}|${delegate}`;
    const count = this.related.get(relation)! - 1;
    if (count === 0) this.related.delete(relation);
    else this.related.set(relation, count);
  }
}
