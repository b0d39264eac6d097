/**
 * @module runtime/exchange
 *
 * The exchange's application state on the sequencer thread, as one deterministic machine:
 * the ledger, the nonce windows, the delegations, the order registry and the depth mirrors.
 * It changes only through `execute(command)` (the journaled application commands) and the
 * book events it is handed (`listener(market)`), in journal order — live and in replay alike,
 * so replaying the journal rebuilds it exactly.
 *
 * The books are not here: commands for a book leave through the `MarketRouter` it is handed
 * (a market thread's ring live, an in-process book in replay), and their events come back
 * through `listener(market)`.
 *
 * May import: engine/, ledger/, auth/ (pure stores), config/, runtime/commands, runtime/
 * order-registry, runtime/depth-mirror. No I/O, no clock.
 */
import { createHash } from 'node:crypto';
import type { MarketSpec } from '../config/market.ts';
import { Ledger, type LedgerOptions } from '../ledger/ledger.ts';
import { LedgerCode } from '../ledger/codes.ts';
import type { LedgerEvent } from '../ledger/events.ts';
import { NonceStore } from '../auth/nonces.ts';
import { DelegationStore } from '../auth/delegation.ts';
import { admitDelegationChange, admitSignedWrite } from '../auth/admission.ts';
import type { Address } from '../auth/address.ts';
import { Reason } from '../engine/codes.ts';
import { OrderFlag, orderIdOf, marketOfOrderId, type BookListener, type PlaceOrder, type Side } from '../engine/types.ts';
import { CommandKind, type Command, type SubmitOrder } from './commands.ts';
import { OrderRegistry, type OrderState, type OrderChangeListener } from './order-registry.ts';
import { DepthMirror } from './depth-mirror.ts';

/** Where book commands go: a market thread's ring live, an in-process book in replay. */
export interface MarketRouter {
  place(market: number, cmd: PlaceOrder): void;
  cancel(market: number, orderId: number, owner: number, time: number): void;
  cancelByClientId(market: number, account: number, clientId: string, time: number): void;
  cancelAll(market: number, owner: number, time: number, reason: number): void;
  expire(market: number, time: number): void;
}

/** Codes of this stage (9100s): refusals that are neither auth, ledger nor engine rules. */
export const ExchangeCode = {
  OrderTypeNotSupported: 9101,
  DuplicateClientId: 9102,
  OrderNotFound: 9103,
  OriginatorNotFound: 9104,
} as const;

export interface ExecuteResult {
  /** 0 when accepted; otherwise a code of auth (1000s), ledger (2000s), engine (3000s) or this stage. */
  code: number;
  params?: Readonly<Record<string, string>>;
  /** False when the command was refused before it changed anything: it need not be journaled. */
  changed: boolean;
  /** The order a submit or cancel concerns. */
  orderId?: number;
  /** Markets a book command was routed to, once per command (the sequencer awaits their results). */
  routed: number[];
}

export interface ExchangeListeners {
  orderChanged?: OrderChangeListener;
  ledgerEvent?: (event: LedgerEvent) => void;
  /** A public trade: the book's fill, seen once. */
  trade?: (market: number, seq: number, time: number, price: number, quantity: number, takerSide: Side) => void;
}

export interface ExchangeOptions {
  ledger?: LedgerOptions;
}

const NOT_CHANGED = (code: number, params?: Readonly<Record<string, string>>): ExecuteResult => ({ code, params, changed: false, routed: [] });

export class Exchange {
  readonly ledger: Ledger;
  readonly nonces: NonceStore;
  readonly delegations: DelegationStore;
  readonly orders: OrderRegistry;
  readonly depth: DepthMirror[];
  /** Orders numbered per market; the next orderId is orderIdOf(market, count + 1). */
  private readonly orderCounts: number[];
  private readonly listeners: ExchangeListeners;
  private readonly bookListeners: BookListener[];

  constructor(
    readonly markets: readonly MarketSpec[],
    private router: MarketRouter,
    listeners: ExchangeListeners = {},
    options: ExchangeOptions = {},
  ) {
    this.listeners = listeners;
    this.ledger = new Ledger(markets, options.ledger, (e) => listeners.ledgerEvent?.(e));
    this.nonces = new NonceStore();
    this.delegations = new DelegationStore();
    this.orders = new OrderRegistry((o) => listeners.orderChanged?.(o));
    this.depth = markets.map(() => new DepthMirror());
    this.orderCounts = markets.map(() => 0);
    this.bookListeners = markets.map((m) => this.bookListenerFor(m.index));
  }

  /** Sends book commands elsewhere from now on (replay's in-process books, then market threads). */
  routeTo(router: MarketRouter): void {
    this.router = router;
  }

  /** Runs one application command at its own time. */
  execute(command: Command): ExecuteResult {
    const time = command.time;
    switch (command.kind) {
      case CommandKind.SubmitOrder:
        return this.submitOrder(command);
      case CommandKind.CancelOrder: {
        const order = this.orders.get(command.orderId);
        if (order === undefined) return NOT_CHANGED(ExchangeCode.OrderNotFound);
        this.router.cancel(order.market, order.orderId, order.owner, time);
        return { code: 0, changed: true, orderId: order.orderId, routed: [order.market] };
      }
      case CommandKind.CancelByClientId: {
        const order = this.orders.byClient(command.account, command.clientId);
        if (order === undefined) return NOT_CHANGED(ExchangeCode.OrderNotFound);
        this.router.cancel(order.market, order.orderId, order.owner, time);
        return { code: 0, changed: true, orderId: order.orderId, routed: [order.market] };
      }
      case CommandKind.CancelAll: {
        const owner = this.ledger.findOwner(command.account, command.subaccountIndex);
        if (owner === undefined) return NOT_CHANGED(LedgerCode.AccountNotFound);
        const markets = new Set(this.orders.ofOwner(owner, command.market ?? undefined).map((o) => o.market));
        for (const market of markets) this.router.cancelAll(market, owner, time, Reason.Cancelled);
        return { code: 0, changed: markets.size > 0, routed: [...markets] };
      }
      case CommandKind.Deposit:
        return this.money(this.ledger.deposit(command.account, command.subaccountIndex, command.amount, time));
      case CommandKind.Withdraw:
        return this.money(this.ledger.withdraw(command.account, command.subaccountIndex, command.amount, time));
      case CommandKind.Faucet:
        return this.money(this.ledger.faucet(command.account, command.subaccountIndex, command.amount, time));
      case CommandKind.Transfer: {
        const admitted = admitSignedWrite(
          this,
          {
            action: 'transfer',
            accountFrom: command.accountFrom as Address,
            subaccountIndexFrom: command.subaccountIndexFrom,
            subaccountIndexTo: command.subaccountIndexTo,
            target: command.target as Address,
            signer: command.signer as Address,
            nonce: command.nonce,
            expiresAt: command.expiresAt,
          },
          time,
        );
        if (!admitted.ok) return NOT_CHANGED(admitted.code, admitted.params);
        const code = this.ledger.transfer(command.accountFrom, command.subaccountIndexFrom, command.accountTo, command.subaccountIndexTo, command.amount, time);
        return { code, changed: true, routed: [] };
      }
      case CommandKind.SetMargin: {
        const admitted = admitSignedWrite(
          this,
          { action: 'marginUpdate', account: command.account as Address, subaccountIndex: command.subaccountIndex, signer: command.signer as Address, nonce: command.nonce, expiresAt: command.expiresAt },
          time,
        );
        if (!admitted.ok) return NOT_CHANGED(admitted.code, admitted.params);
        const code = this.ledger.setMargin(command.account, command.subaccountIndex, command.market, command.isolated, command.margin, time);
        return { code, changed: true, routed: [] };
      }
      case CommandKind.Delegation: {
        const admitted = admitDelegationChange(this, command, command.signer as Address, time);
        if (!admitted.ok) return { code: admitted.code, params: admitted.params, changed: false, routed: [] };
        return { code: 0, changed: true, routed: [] };
      }
      case CommandKind.IndexPrice:
        return { code: this.ledger.setIndexPrice(command.market, command.price, time), changed: true, routed: [] };
      case CommandKind.Tick:
        return this.tick(time);
    }
  }

  /** What the book events of `market` drive: the ledger (R2), the registry and the depth mirror. */
  listener(market: number): BookListener {
    return this.bookListeners[market];
  }

  private money(code: number): ExecuteResult {
    return code === LedgerCode.Ok ? { code, changed: true, routed: [] } : NOT_CHANGED(code);
  }

  private submitOrder(cmd: SubmitOrder): ExecuteResult {
    if (cmd.orderType !== 'limit') return NOT_CHANGED(ExchangeCode.OrderTypeNotSupported, { orderType: cmd.orderType });
    const admitted = admitSignedWrite(
      this,
      { action: 'order', account: cmd.account as Address, subaccountIndex: cmd.subaccountIndex, signer: cmd.signer as Address, nonce: cmd.nonce, expiresAt: cmd.expiresAt === 0 ? Number.MAX_SAFE_INTEGER : cmd.expiresAt },
      cmd.time,
    );
    if (!admitted.ok) return NOT_CHANGED(admitted.code, admitted.params);
    // From here the nonce is spent: every outcome is journaled.
    const identity = this.ledger.register(cmd.account, cmd.subaccountIndex);
    if (typeof identity === 'number') return { code: identity, changed: true, routed: [] };
    const market = cmd.market;
    const orderId = orderIdOf(market, ++this.orderCounts[market]);
    const order = this.orderState(cmd, orderId, identity.owner);
    if (cmd.clientId !== null && this.orders.byClient(cmd.account, cmd.clientId) !== undefined) {
      this.orders.refused(order, 'duplicateClientId');
      return { code: ExchangeCode.DuplicateClientId, changed: true, orderId, routed: [] };
    }
    let originator = 0;
    if (cmd.originatorFee > 0) {
      const found = this.ledger.findOwner(cmd.originator, 0);
      if (found === undefined) {
        this.orders.refused(order, 'originatorNotFound');
        return { code: ExchangeCode.OriginatorNotFound, changed: true, orderId, routed: [] };
      }
      originator = found;
    }
    const reduceOnly = (cmd.flags & OrderFlag.ReduceOnly) !== 0;
    const code = this.ledger.admitOrder(orderId, identity.owner, market, cmd.side, cmd.price, cmd.quantity, reduceOnly, cmd.time, {
      originator,
      originatorFee: BigInt(cmd.originatorFee),
    });
    if (code !== LedgerCode.Ok) {
      this.orders.refused(order, 'insufficientMargin');
      return { code, changed: true, orderId, routed: [] };
    }
    this.orders.submitted(order);
    this.router.place(market, {
      orderId,
      owner: identity.owner,
      account: identity.account,
      side: cmd.side,
      price: cmd.price,
      quantity: cmd.quantity,
      flags: cmd.flags,
      expiresAt: cmd.expiresAt,
      clientId: cmd.clientId,
      position: this.ledger.position(identity.owner, market),
      time: cmd.time,
    });
    return { code: 0, changed: true, orderId, routed: [market] };
  }

  private orderState(cmd: SubmitOrder, orderId: number, owner: number): OrderState {
    return {
      orderId,
      market: cmd.market,
      owner,
      account: cmd.account,
      subaccountIndex: cmd.subaccountIndex,
      orderType: cmd.orderType,
      side: cmd.side,
      price: cmd.price,
      quantity: cmd.quantity,
      remaining: cmd.quantity,
      settled: 0,
      flags: cmd.flags,
      expiresAt: cmd.expiresAt,
      nonce: cmd.nonce,
      clientId: cmd.clientId,
      originator: cmd.originator,
      originatorFee: cmd.originatorFee,
      triggerPrice: cmd.triggerPrice,
      parentOrderId: cmd.parentOrderId,
      period: cmd.period,
      trailingPercent: cmd.trailingPercent === null ? null : cmd.trailingPercent.toString(),
      groupId: null,
      ocoGroupId: null,
      status: 'new',
      reason: null,
      createdAt: cmd.time,
      updatedAt: cmd.time,
      lastUpdateSequenceNumber: 0,
    };
  }

  /** The clock: books expire what is due, funding is sampled, under-margined accounts are liquidated. */
  private tick(time: number): ExecuteResult {
    const routed: number[] = [];
    for (const m of this.markets) {
      this.router.expire(m.index, time);
      routed.push(m.index);
      const depth = this.depth[m.index];
      this.ledger.sampleFunding(m.index, depth.bestBid(), depth.bestAsk(), time);
    }
    for (const liq of this.ledger.checkLiquidations(time)) {
      const orderId = orderIdOf(liq.market, ++this.orderCounts[liq.market]);
      if (this.ledger.admitOrder(orderId, liq.owner, liq.market, liq.side, liq.price, liq.quantity, true, time, { liquidation: true }) !== LedgerCode.Ok) continue;
      const identity = this.ledger.identity(liq.owner)!;
      const flags = OrderFlag.ImmediateOrCancel | OrderFlag.ReduceOnly;
      this.orders.submitted({
        ...this.orderState(
          {
            kind: CommandKind.SubmitOrder,
            time,
            account: identity.address,
            subaccountIndex: identity.subaccountIndex,
            market: liq.market,
            orderType: 'limit',
            side: liq.side,
            price: liq.price,
            quantity: liq.quantity,
            flags,
            expiresAt: 0,
            nonce: 0,
            clientId: null,
            originator: '0x0000000000000000000000000000000000000000',
            originatorFee: 0,
            triggerPrice: null,
            parentOrderId: null,
            period: null,
            trailingPercent: null,
            signer: '',
            signature: '',
          },
          orderId,
          liq.owner,
        ),
        groupId: 'liquidation',
      });
      this.router.place(liq.market, {
        orderId,
        owner: liq.owner,
        account: liq.account,
        side: liq.side,
        price: liq.price,
        quantity: liq.quantity,
        flags,
        expiresAt: 0,
        clientId: null,
        position: this.ledger.position(liq.owner, liq.market),
        time,
      });
      routed.push(liq.market);
    }
    return { code: 0, changed: true, routed };
  }

  private bookListenerFor(market: number): BookListener {
    const depth = this.depth[market];
    const orders = this.orders;
    const ledger = this.ledger;
    const listeners = this.listeners;
    const end = (orderId: number, status: 'cancelled' | 'expired' | 'rejected', reason: number, seq: number, time: number) => {
      depth.saw(seq);
      ledger.releaseOrder(orderId, time);
      orders.ended(orderId, status, reason, seq, time);
    };
    return {
      onAccepted(seq, orderId, _owner, _side, _price, quantity, time) {
        depth.saw(seq);
        orders.accepted(orderId, quantity, seq, time);
      },
      onRested(seq, orderId, _owner, _side, _price, _remaining, time) {
        depth.saw(seq);
        orders.rested(orderId, seq, time);
      },
      onFill(seq, makerOrderId, takerOrderId, makerOwner, takerOwner, takerSide, price, quantity, makerRemaining, takerRemaining, time) {
        depth.saw(seq);
        ledger.settleFill(makerOrderId, takerOrderId, makerOwner, takerOwner, takerSide, market, price, quantity, time);
        orders.filled(makerOrderId, quantity, makerRemaining, seq, time);
        orders.filled(takerOrderId, quantity, takerRemaining, seq, time);
        // A reduce-only order capped by the book holds more lots in the ledger than it filled.
        if (makerRemaining === 0) ledger.releaseOrder(makerOrderId, time);
        if (takerRemaining === 0) ledger.releaseOrder(takerOrderId, time);
        listeners.trade?.(market, seq, time, price, quantity, takerSide);
      },
      onCancelled(seq, orderId, _owner, _remaining, reason, time) {
        end(orderId, 'cancelled', reason, seq, time);
      },
      onExpired(seq, orderId, _owner, _remaining, reason, time) {
        end(orderId, 'expired', reason, seq, time);
      },
      onRejected(seq, orderId, _owner, code, time) {
        end(orderId, 'rejected', code, seq, time);
      },
      onLevel(seq, side, price, quantity) {
        depth.level(seq, side, price, quantity);
      },
    };
  }

  /** The market an orderId belongs to, when it names one of ours. */
  marketOf(orderId: number): number | undefined {
    const market = marketOfOrderId(orderId);
    return market < this.markets.length ? market : undefined;
  }

  /** A hash over everything this machine holds (books are hashed by their own threads). */
  stateHash(): string {
    const hash = createHash('sha256');
    hash.update(this.ledger.stateHash());
    hash.update(this.nonces.stateHash());
    hash.update(this.delegations.stateHash());
    hash.update(JSON.stringify(this.orderCounts));
    hash.update(JSON.stringify(this.orders.snapshot()));
    for (const d of this.depth) hash.update(JSON.stringify(d.snapshot()));
    return hash.digest('hex');
  }

  validateInternalState(): void {
    this.ledger.validateInternalState();
    for (const o of this.orders.snapshot()) {
      if (o.remaining <= 0 || o.remaining > o.quantity) throw new Error(`exchange: open order ${o.orderId} has remaining ${o.remaining} of ${o.quantity}`);
    }
  }
}

