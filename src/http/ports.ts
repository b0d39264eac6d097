/**
 * @module http/ports
 *
 * What the gateway needs from the running exchange, as interfaces it is handed (the gateway
 * never reaches into threads, rings or the journal itself). gateway-ports implements them over
 * the application, history and the node's writes (`stateReads`, `exchangeApi`). The gateway owns
 * them, the sequencer included: its `Outcome`, its account writes and its `OverloadedError` have
 * the shapes declared here without either side importing the other.
 */
import type { MarketSpec } from '../config/market.ts';
import type { Profile } from '../config/profile.ts';
import type { Level, Side } from '../engine/types.ts';
import type { Address } from '../auth/address.ts';
import type { Ledger } from '../ledger/ledger.ts';
import type { DelegationStore } from '../auth/delegation.ts';
import type { NonceStore } from '../auth/nonces.ts';
import type { WalletLogin } from '../auth/login.ts';
import type { TypedRecovery } from '../auth/signed-request.ts';
import type { Eip712Domain } from '../auth/typed-data.ts';
import type { Command, Delegation, SetMargin, Transfer } from '../app/commands.ts';
import type { ExecuteResult } from '../app/codes.ts';
import type { OrderState } from '../app/order-registry.ts';
import type { OrderRecord, OrderQuery } from '../history/types.ts';
import type { MarketIndex, OrderId, OwnerIndex } from '../types/ids.ts';

/** A read-only view of one market's book; reads never wait on matching. */
export interface BookReader {
  depth(side: Side, levels: number, tickMultiple: number): Level[];
  /** The market sequence number the view reflects. */
  readonly sequence: number;
}

export interface MarketDataPort {
  readonly profile: Profile;
  readonly markets: readonly MarketSpec[];
  book(marketIndex: MarketIndex): BookReader;
  /** EIP-712 domain and types that clients sign with, exactly as `signTypedData` takes them. */
  typedData(): unknown;
  /** Minimum transfer (collateral base units) and subaccounts per address, published in GET /config. */
  readonly accountLimits?: { minTransfer: bigint; maxSubaccounts: number };
}

/** The gateway's clock: milliseconds. Injected so tests can hold time still. */
export type Clock = () => number;

/**
 * Read-your-writes for what reads history: null when history holds every record the journal
 * had flushed when called, else a promise that resolves once it does (a write's reply waits
 * for the journal only, so history may still be writing what a client was just told).
 */
export type HistoryRead = () => Promise<void> | null;

export type { MarketHistory, PriceSource } from '../history/types.ts';

/**
 * Account state the gateway reads synchronously. These objects live on the gateway's own
 * thread (the sequencer's), so a read is a plain call; the gateway never mutates them.
 */
export interface AccountReadPort {
  ledger: Pick<Ledger, 'findOwner' | 'identity' | 'stats' | 'positionsOf' | 'positionOf' | 'collateral' | 'marginSetting' | 'prices' | 'fundingHistory'>;
  delegations: Pick<DelegationStore, 'delegates' | 'signers' | 'authorizeCaller' | 'authorizeWrite'>;
  nonces: Pick<NonceStore, 'nextNonce'>;
}

/** The outcome of a write: accepted, or a code from the auth (1000s), ledger (2000s), engine (3000s) or gateway (9000s) table. */
export type WriteResult<T = null> = { ok: true; value: T } | { ok: false; code: number; params?: Readonly<Record<string, string>> };

/** A signed transfer as the gateway validated it: the journaled command without its kind and time. */
export type TransferWrite = Omit<Transfer, 'kind' | 'time'>;
/** A signed margin setting: the journaled command without its kind and time. */
export type MarginWrite = Omit<SetMargin, 'kind' | 'time'>;
/** A signed delegation change: the journaled command without its kind and time. */
export type DelegationWrite = Omit<Delegation, 'kind' | 'time'>;

/**
 * Signed account writes. The gateway has validated the body and recovered the signer; the
 * sequencer admits (nonce window, delegation rules), journals, applies, and resolves once the
 * write is durable (sequencer/account-writes). A write the exchange cannot take now rejects as
 * `Overloaded`.
 */
export interface AccountWritePort {
  transfer(write: TransferWrite): Promise<WriteResult>;
  setMargin(write: MarginWrite): Promise<WriteResult>;
  changeDelegation(write: DelegationWrite): Promise<WriteResult>;
}

/**
 * How a port refuses a write the exchange cannot take now (a stage behind, shutting down, not
 * the primary): it rejects with an error named `OverloadedError` carrying the reason, which the
 * gateway answers 503 `Service overloaded: <reason>`. Told by its name, as the platform tells an
 * `AbortError`: the sequencer's `OverloadedError` is one without importing the gateway.
 */
export interface Overloaded extends Error {
  readonly name: 'OverloadedError';
  readonly reason: string;
}

export function isOverloaded(error: unknown): error is Overloaded {
  return error instanceof Error && error.name === 'OverloadedError' && typeof (error as Partial<Overloaded>).reason === 'string';
}

/** What the gateway needs for wallet login and signed requests. */
export interface AuthPort {
  login: WalletLogin;
  domain: Eip712Domain;
  /** Digest and signer recovery off the main thread (the signature pool). */
  recover: TypedRecovery;
}

/** What a reply reads of a sequenced command's outcome (the sequencer's `Outcome` has this shape). */
export interface Outcome {
  result: ExecuteResult;
  /** The book's result per routed command (EngineCode or a count), in `result.routed` order. */
  bookResults: readonly number[];
  /**
   * The orders the command named as it left them, durable once the outcome is in hand: a later
   * command may have changed them since, with records not yet flushed. Undefined for an order
   * no longer in memory (finished among many others meanwhile): history has it.
   */
  orders: readonly (OrderState | undefined)[];
}

/** Orders: writes go through the sequencer, reads to the live registry and the history. */
export interface OrdersPort {
  /**
   * Sequences a command; rejects as `Overloaded` when the exchange is behind. The outcome
   * carries the orders it named as it left them (see `Outcome`).
   */
  submit(command: Command): Promise<Outcome>;
  /** The order if open. */
  live(orderId: OrderId): OrderState | undefined;
  /** The order if open or among the last to finish (in its final state), without reading history. */
  recent(orderId: OrderId): OrderState | undefined;
  liveByClient(account: Address, clientId: string): OrderState | undefined;
  /**
   * The account's newest order with this clientId: the open one, else the newest finished one
   * among each subaccount's `scan` most recently updated orders (history).
   */
  latestByClient(account: Address, clientId: string, scan: number): OrderState | undefined;
  liveOf(owner: OwnerIndex, market?: MarketIndex): OrderState[];
  stored(orderId: OrderId): OrderRecord | undefined;
  storedOf(owner: OwnerIndex, query: OrderQuery): OrderRecord[];
  ownerOf(account: Address, subaccountIndex: number): OwnerIndex | undefined;
}

/** What the operator's process manager and Prometheus read (routes/operations.ts). */
export interface OperationsPort {
  /** Why the exchange should not be sent traffic now (journal failed, a market thread down, overloaded), or null. */
  notReady(): string | null;
  /** The Prometheus text exposition, and its content type. */
  metrics(): Promise<string>;
  readonly metricsContentType: string;
}

/**
 * What the gateway counts (the exchange's metrics, src/metrics.ts): every answer by route and
 * status, orders accepted, order submissions refused. Each call is cheap: it runs per request.
 */
export interface GatewayMetrics {
  /** The routes `request` is called with, by index (the last one is the fallback). */
  observeRoutes(routes: readonly { method: string; pattern: string }[]): void;
  request(route: number, status: number, seconds: number): void;
  ordersAccepted(count: number): void;
  /** An order submission refused: the refusal's code (undefined for one without) and status. */
  orderRefused(code: number | undefined, status: number): void;
}
