/**
 * @module ws/account-feed
 *
 * The private channels (`account.<address>.<subaccountIndex>`): every event numbered per
 * subaccount (history/account-events), and the account's stats after each batch.
 *
 * A subscription with `since` first catches up: it waits until everything up to now is flushed
 * and in history, sends the events after `since` from history, then what was published
 * meanwhile, each number once (`sent` only grows), then `live`. Too far behind (`maxResume`)
 * or ahead of the newest event → `resync`. Private messages are sent to each subscriber
 * directly (one string, few subscribers), so a catching-up subscriber buffers instead of
 * missing any; they are not held for a publish window.
 *
 * A catch-up reads and sends up to `maxResume` events, so it is charged to the connection's
 * message budget (ws/feeds) by its size: one message per `EVENTS_PER_MESSAGE` events, on top of
 * the one its channel paid (the largest, 10,000 events, costs a whole second of the budget). A
 * catch-up the budget cannot pay is refused with the budget's error and the channel left: a
 * client re-subscribing with `since: 0` used to have thousands of events read and written for it
 * per message, and held every other client's answers for seconds.
 *
 * A delegate's subscription lasts as long as its grant: its `read` is checked again before each
 * live event is sent, and once revoked the subscription ends with REST's refusal (`Not delegated
 * for account and subaccount`, naming the channel). Checked only when the account has events to
 * send (a map lookup per delegate follower): a revoked delegate is sent nothing more either way.
 * May import: types/ids (types), auth/delegation (types), config/market (types), history/account-events (types), http/
 * (errors, ports types, routes/account-stats), ws/.
 */
import type { MarketSpec } from '../config/market.ts';
import type { OwnerIndex } from '../types/ids.ts';
import type { DelegationStore } from '../auth/delegation.ts';
import type { AccountEventReader, AccountEventRecord } from '../history/account-events.ts';
import { codeFailure, failure, GatewayCode } from '../http/errors.ts';
import { statsView } from '../http/routes/account-stats.ts';
import type { AccountReadPort } from '../http/ports.ts';
import type { AccountChannel } from './channels.ts';
import type { AccountFollower, FeedConnection, FeedConnections } from './feed-connections.ts';
import { accountEventMessage } from './messages.ts';

/** What the private channels read. */
export interface AccountFeedPorts {
  markets: readonly MarketSpec[];
  accounts: Pick<AccountReadPort['ledger'], 'findOwner' | 'identity' | 'stats'>;
  accountEvents: AccountEventReader;
  /** Who may read a subaccount now: a delegate's subscription ends when its grant does. */
  delegations: Pick<DelegationStore, 'authorizeCaller'>;
  /** Resolves once every journal record so far is flushed and its history written. */
  durableAndWritten(): Promise<void>;
}

/** A catch-up costs one message of the budget per this many events it sends. */
export const EVENTS_PER_MESSAGE = 50;

export class AccountFeed {
  /** Private channel → its subscribers. */
  private readonly followers = new Map<string, Set<AccountFollower>>();
  /** Channel names by owner index (`channelOf`). */
  private readonly channels: string[] = [];

  constructor(
    private readonly ports: AccountFeedPorts,
    private readonly out: Pick<FeedConnections, 'send' | 'error'>,
    private readonly maxResume: number,
    /** Ends a subscription whose catch-up failed (the connection's channel set and this feed). */
    private readonly leave: (conn: FeedConnection, name: string) => void,
    /** Spends `cost` of the connection's message budget: null when paid, else the refusal's text. */
    private readonly pay: (conn: FeedConnection, cost: number) => string | null = () => null,
  ) {}

  /** Catches a private subscription up from `since` (or from now), then makes it live. */
  async follow(conn: FeedConnection, c: AccountChannel): Promise<void> {
    // The channel was authorized for the connection's caller as it is now (ws/channels).
    const follower: AccountFollower = { conn, sent: 0, buffer: [], reader: conn.state.caller!, account: c.account, subaccountIndex: c.subaccountIndex };
    conn.state.followers.set(c.name, follower);
    let set = this.followers.get(c.name);
    if (set === undefined) this.followers.set(c.name, (set = new Set()));
    set.add(follower);
    try {
      await this.ports.durableAndWritten();
    } catch {
      this.out.error(conn, undefined, failure(GatewayCode.DatabaseFailure).body, c.name);
      this.leave(conn, c.name);
      return;
    }
    // Unsubscribed, subscribed afresh or gone meanwhile.
    if (conn.state.followers.get(c.name) !== follower) return;
    const owner = this.ports.accounts.findOwner(c.account, c.subaccountIndex);
    // Everything numbered before the wait is in history now; what was published since is in `buffer`.
    const newest = owner === undefined ? 0 : this.ports.accountEvents.lastSeq(owner);
    const since = c.since ?? newest;
    const buffered = follower.buffer!;
    follower.buffer = null;
    if (since > newest) {
      this.out.send(conn, JSON.stringify({ channel: c.name, type: 'resync', sequence: newest, message: `Sequence ${since} is ahead of the account's newest event ${newest}: take a fresh snapshot (REST)` }));
      follower.sent = newest;
    } else if (newest - since > this.maxResume) {
      this.out.send(conn, JSON.stringify({ channel: c.name, type: 'resync', sequence: newest, message: `Sequence ${since} is more than ${this.maxResume} events behind the account's newest ${newest}: take a fresh snapshot (REST)` }));
      follower.sent = newest;
    } else {
      const refused = since < newest ? this.pay(conn, Math.ceil((newest - since) / EVENTS_PER_MESSAGE)) : null;
      if (refused !== null) {
        this.out.error(conn, undefined, refused, c.name);
        this.leave(conn, c.name);
        return;
      }
      follower.sent = since;
      if (owner !== undefined && since < newest) for (const e of this.ports.accountEvents.after(owner, since, this.maxResume)) this.deliver(follower, e, accountEventMessage(c.name, this.ports.markets, e));
    }
    for (const e of buffered) if (e.seq > follower.sent) this.deliver(follower, e, accountEventMessage(c.name, this.ports.markets, e));
    this.out.send(conn, JSON.stringify({ channel: c.name, type: 'live', sequence: follower.sent }));
    const found = owner ?? this.ports.accounts.findOwner(c.account, c.subaccountIndex);
    if (found !== undefined) this.sendStats(c.name, found, [follower]);
  }

  unfollow(name: string, follower: AccountFollower): void {
    follower.conn.state.followers.delete(name);
    const set = this.followers.get(name);
    set?.delete(follower);
    if (set?.size === 0) this.followers.delete(name);
  }

  /** Sends each event to its account channel's followers, then each touched account's stats. */
  publish(events: readonly AccountEventRecord[]): void {
    // Every order's events come here: with no private subscriber, nothing is named or looked up.
    if (this.followers.size === 0) return;
    const touched = new Map<OwnerIndex, string>();
    for (const e of events) {
      const channel = this.channelOf(e.owner);
      if (channel === undefined) continue;
      const set = this.followers.get(channel);
      if (set === undefined) continue;
      const text = accountEventMessage(channel, this.ports.markets, e);
      for (const follower of set) if (this.mayStillRead(follower, channel)) this.deliver(follower, e, text);
      touched.set(e.owner, channel);
    }
    for (const [owner, channel] of touched) this.sendStats(channel, owner, this.followers.get(channel) ?? []);
  }

  /** Whether a follower may still read its channel; a delegate whose grant was revoked is told so, and its subscription ends. */
  private mayStillRead(follower: AccountFollower, channel: string): boolean {
    if (follower.reader === follower.account) return true;
    const allowed = this.ports.delegations.authorizeCaller(follower.reader, follower.account, follower.subaccountIndex, 'read');
    if (allowed.ok) return true;
    this.out.error(follower.conn, undefined, codeFailure(allowed).body, channel);
    this.leave(follower.conn, channel);
    return false;
  }

  /** An owner's channel name, made once: an owner index names one (address, subaccount) for good. */
  private channelOf(owner: OwnerIndex): string | undefined {
    let channel = this.channels[owner];
    if (channel === undefined) {
      const identity = this.ports.accounts.identity(owner);
      if (identity === undefined) return undefined;
      this.channels[owner] = channel = `account.${identity.address}.${identity.subaccountIndex}`;
    }
    return channel;
  }

  /** One event to one follower, unless it had it already: numbers only grow. */
  private deliver(follower: AccountFollower, e: AccountEventRecord, text: string): void {
    if (follower.buffer !== null) {
      follower.buffer.push(e);
      return;
    }
    if (e.seq <= follower.sent) return;
    follower.sent = e.seq;
    this.out.send(follower.conn, text);
  }

  private sendStats(channel: string, owner: OwnerIndex, to: Iterable<AccountFollower>): void {
    const identity = this.ports.accounts.identity(owner);
    const stats = this.ports.accounts.stats(owner);
    if (identity === undefined || stats === undefined) return;
    for (const follower of to) {
      if (follower.buffer !== null) continue;
      this.out.send(follower.conn, JSON.stringify({ channel, type: 'stats', sequence: follower.sent, stats: statsView(identity.address, identity.subaccountIndex, stats) }));
    }
  }
}
