/**
 * @module sequencer/account-writes
 *
 * The gateway's signed account writes (transfer, margin, delegation) as sequenced commands:
 * the sequencer admits them (nonce window, delegation rules), journals them, applies them and
 * resolves once they are flushed. The gateway owns the port (`AccountWritePort`, http/ports):
 * what `accountWrites` returns has its shape, so neither side imports the other.
 * May import: app/commands, sequencer/sequencer (types).
 */
import { CommandKind, type Command, type Delegation, type SetMargin, type Transfer } from '../app/commands.ts';
import type { Sequencer } from './sequencer.ts';

/** A signed write as the gateway validated it: its command without the kind and time stamped here. */
type Write<C extends Command> = Omit<C, 'kind' | 'time'>;

/** The writes as sequenced commands; a write the sequencer cannot take rejects with its `OverloadedError`. */
export function accountWrites(sequencer: Pick<Sequencer, 'submit'>, clock: () => number) {
  const run = async (command: Command) => {
    const { result } = await sequencer.submit(command);
    return result.code === 0 ? { ok: true as const, value: null } : { ok: false as const, code: result.code, params: result.params };
  };
  return {
    transfer: (w: Write<Transfer>) => run({ kind: CommandKind.Transfer, time: clock(), ...w }),
    setMargin: (w: Write<SetMargin>) => run({ kind: CommandKind.SetMargin, time: clock(), ...w }),
    changeDelegation: (w: Write<Delegation>) => run({ kind: CommandKind.Delegation, time: clock(), ...w }),
  };
}
