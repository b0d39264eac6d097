/**
 * @module ledger/accounts
 *
 * The account registry: addresses and subaccounts ⇄ the integer ids the engine carries.
 * `account` = id of a lowercase hex address; `owner` = id of (address, subaccountIndex). Both
 * are interned in first-use order starting at 1 (0 means "none"), so replaying the same
 * commands gives the same ids.
 * Invariants: ids are dense, never reused; the maps and arrays agree.
 * May import: types/ids, types/address (types).
 */
import { asAccountIndex, asOwnerIndex, type AccountIndex, type OwnerIndex } from '../types/ids.ts';
import type { Address } from '../types/address.ts';

const ADDRESS = /^0x[0-9a-f]{40}$/;
const MAX_SUBACCOUNT = 2 ** 31 - 1;

export interface OwnerIdentity {
  owner: OwnerIndex;
  account: AccountIndex;
  address: Address;
  subaccountIndex: number;
}

/** Lowercases and checks an address: `0x` + 40 hex digits. */
export function normalizeAddress(address: string): Address | undefined {
  const lower = address.toLowerCase();
  return ADDRESS.test(lower) ? (lower as Address) : undefined;
}

export function isSubaccountIndex(n: number): boolean {
  return Number.isInteger(n) && n >= 0 && n <= MAX_SUBACCOUNT;
}

export class AccountRegistry {
  private readonly accountIds = new Map<string, AccountIndex>();
  private readonly ownerIds = new Map<string, OwnerIndex>();
  /** Index = account id; slot 0 is no account (ids start at 1), so it holds none. */
  private readonly addresses: (Address | undefined)[] = [undefined];
  /** Index = owner id; slot 0 is no owner, so it holds none. */
  private readonly owners: (OwnerIdentity | undefined)[] = [undefined];
  /** Index = account id: how many owners (subaccounts) the address has; slot 0 unused. */
  private readonly subaccounts: number[] = [0];
  /** Index = account id: its owner ids in creation order; slot 0 unused. */
  private readonly accountOwners: OwnerIndex[][] = [[]];

  /** The owner id of (address, subaccountIndex), creating it on first use. Inputs must be valid. */
  intern(address: Address, subaccountIndex: number): OwnerIdentity {
    const key = `${address}/${subaccountIndex}`;
    const known = this.ownerIds.get(key);
    if (known !== undefined) return this.owners[known]!;
    let account = this.accountIds.get(address);
    if (account === undefined) {
      account = asAccountIndex(this.addresses.length);
      this.addresses.push(address);
      this.subaccounts.push(0);
      this.accountOwners.push([]);
      this.accountIds.set(address, account);
    }
    this.subaccounts[account]++;
    const identity = { owner: asOwnerIndex(this.owners.length), account, address, subaccountIndex };
    this.owners.push(identity);
    this.accountOwners[account].push(identity.owner);
    this.ownerIds.set(key, identity.owner);
    return identity;
  }

  findOwner(address: string, subaccountIndex: number): OwnerIndex | undefined {
    return this.ownerIds.get(`${address.toLowerCase()}/${subaccountIndex}`);
  }

  findAccount(address: string): AccountIndex | undefined {
    return this.accountIds.get(address.toLowerCase());
  }

  identity(owner: OwnerIndex): OwnerIdentity | undefined {
    return owner > 0 ? this.owners[owner] : undefined;
  }

  /** How many subaccounts `address` holds. */
  subaccountCount(address: string): number {
    const account = this.accountIds.get(address.toLowerCase());
    return account === undefined ? 0 : this.subaccounts[account];
  }

  addressOf(account: AccountIndex): Address | undefined {
    return account > 0 ? this.addresses[account] : undefined;
  }

  /** Every owner id of an account, in creation order. */
  ownersOf(account: AccountIndex): OwnerIndex[] {
    return account > 0 ? [...(this.accountOwners[account] ?? [])] : [];
  }

  get ownerCount(): number {
    return this.owners.length - 1;
  }

  /** Owners in id order, as (address, subaccountIndex) pairs: enough to rebuild the registry. */
  entries(): Array<[Address, number]> {
    return this.owners.slice(1).map((o) => [o!.address, o!.subaccountIndex]);
  }

  validate(): void {
    const counted = this.addresses.map(() => 0);
    for (let i = 1; i < this.owners.length; i++) counted[this.owners[i]!.account]++;
    for (let a = 1; a < counted.length; a++) if (counted[a] !== this.subaccounts[a]) throw new Error(`registry: subaccount count of account ${a} inconsistent`);
    for (let i = 1; i < this.owners.length; i++) {
      const o = this.owners[i]!;
      if (o.owner !== i || this.ownerIds.get(`${o.address}/${o.subaccountIndex}`) !== i) throw new Error(`registry: owner ${i} inconsistent`);
      if (this.addresses[o.account] !== o.address || this.accountIds.get(o.address) !== o.account) throw new Error(`registry: account of owner ${i} inconsistent`);
    }
  }
}
