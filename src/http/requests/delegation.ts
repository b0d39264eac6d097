/**
 * The POST /account/delegates body: a signed Delegation change (add or remove a delegate of
 * one subaccount), its schema, and the signed `Delegation` message. Only the account itself
 * signs it; `scopes` is `trade`, `read` or `trade,read` for `add` and "" for `remove`.
 */
import type { DelegationMessage, SignedRequest } from '../../auth/typed-data.ts';
import { Field } from '../validation.ts';

export const DELEGATION_REQUEST_SCHEMA = {
  title: 'DelegationRequest',
  type: 'object',
  properties: {
    account: { ...Field.address, description: 'the account granting or revoking' },
    subaccountIndex: Field.subaccountIndex,
    delegate: { ...Field.address, description: 'the address that may act for the subaccount' },
    scopes: { type: 'string', maxLength: 20, description: 'trade, read or trade,read for add; "" for remove (signed as sent)' },
    action: { type: 'string', enum: ['add', 'remove'], 'x-error': 'action must be add or remove' },
    nonce: { ...Field.uint64, description: "the account's own nonce for the subaccount" },
    expiresAt: { ...Field.uint64, description: 'milliseconds; refused after it' },
    signatures: { ...Field.signatures, description: 'exactly one EIP-712 `Delegation` signature by the account' },
  },
  required: ['account', 'subaccountIndex', 'delegate', 'scopes', 'action', 'nonce', 'expiresAt', 'signatures'],
  additionalProperties: false,
} as const;

/** The request body: the signed message's fields as JSON carries them, and the signature. */
export type DelegationBody = SignedRequest<DelegationMessage>;

export function delegationMessage(body: DelegationBody): DelegationMessage {
  const { account, subaccountIndex, delegate, scopes, action, nonce, expiresAt } = body;
  return { account, subaccountIndex, delegate, scopes, action, nonce, expiresAt };
}
