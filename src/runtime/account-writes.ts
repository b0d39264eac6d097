/**
 * @module runtime/account-writes
 *
 * The gateway's signed account writes (transfer, margin, delegation) as sequenced commands:
 * the sequencer admits them (nonce window, delegation rules), journals them, applies them and
 * resolves once they are flushed.
 */
import type { AccountWritePort, WriteResult } from '../http/ports.ts';
import { GatewayCode } from '../http/errors.ts';
import { CommandKind, type Command } from './commands.ts';
import { OverloadedError, type Sequencer } from './sequencer.ts';

export function accountWrites(sequencer: Pick<Sequencer, 'submit'>, clock: () => number): AccountWritePort {
  const run = async (command: Command): Promise<WriteResult> => {
    try {
      const { result } = await sequencer.submit(command);
      return result.code === 0 ? { ok: true, value: null } : { ok: false, code: result.code, params: result.params };
    } catch (error) {
      if (error instanceof OverloadedError) return { ok: false, code: GatewayCode.Overloaded, params: { reason: error.reason } };
      throw error;
    }
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
