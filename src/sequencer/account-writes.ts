/**
 * @module sequencer/account-writes
 *
 * The gateway's signed account writes (transfer, margin, delegation) as sequenced commands:
 * the sequencer admits them (nonce window, delegation rules), journals them, applies them and
 * resolves once they are flushed. The port is declared here, by the sequencer's side, so the
 * gateway depends on it and never the reverse.
 * May import: types/ids, types/address (types), app/commands, sequencer/sequencer (types).
 */
import { CommandKind, type Command, type Transfer as TransferCommand, type Delegation as DelegationCommand } from '../app/commands.ts';
import type { Sequencer } from './sequencer.ts';
import type { MarketIndex } from '../types/ids.ts';
import type { Address } from '../types/address.ts';

/** The outcome of a write: accepted, or a code from the auth (1000s), ledger (2000s), engine (3000s) or gateway (9000s) table. */
export type WriteResult<T = null> = { ok: true; value: T } | { ok: false; code: number; params?: Readonly<Record<string, string>> };

/** A signed transfer as the gateway validated it: the journaled command without its kind and time. */
export type TransferWrite = Omit<TransferCommand, 'kind' | 'time'>;

export interface MarginWrite {
  account: Address;
  subaccountIndex: number;
  marketIndex: MarketIndex;
  isolated: boolean;
  /** Fraction at RATE_SCALE. */
  margin: bigint;
  nonce: number;
  expiresAt: number;
  signer: Address;
  signature: string;
}

/** A signed delegation change: the journaled command without its kind and time. */
export type DelegationWrite = Omit<DelegationCommand, 'kind' | 'time'>;

/**
 * Signed account writes. The gateway has validated the body and recovered the signer; the
 * sequencer admits (nonce window, delegation rules), journals, applies, and resolves once the
 * write is durable.
 */
export interface AccountWritePort {
  transfer(write: TransferWrite): Promise<WriteResult>;
  setMargin(write: MarginWrite): Promise<WriteResult>;
  changeDelegation(write: DelegationWrite): Promise<WriteResult>;
}

/** The writes as sequenced commands; a write the sequencer cannot take rejects with its `OverloadedError`. */
export function accountWrites(sequencer: Pick<Sequencer, 'submit'>, clock: () => number): AccountWritePort {
  const run = async (command: Command): Promise<WriteResult> => {
    const { result } = await sequencer.submit(command);
    return result.code === 0 ? { ok: true, value: null } : { ok: false, code: result.code, params: result.params };
  };
  return {
    transfer: (w) => run({ kind: CommandKind.Transfer, time: clock(), ...w }),
    setMargin: (w) =>
      run({
        kind: CommandKind.SetMargin,
        time: clock(),
        account: w.account,
        subaccountIndex: w.subaccountIndex,
        market: w.marketIndex,
        isolated: w.isolated,
        margin: w.margin,
        nonce: w.nonce,
        expiresAt: w.expiresAt,
        signer: w.signer,
        signature: w.signature,
      }),
    changeDelegation: (w) => run({ kind: CommandKind.Delegation, time: clock(), ...w }),
  };
}
