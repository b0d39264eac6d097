/**
 * @module auth
 *
 * Authentication and signatures, transport-independent: the HTTP/WS gateway calls these and maps
 * refusals to responses through the codes table (codes.ts, 1000–1999).
 *
 * Owns:
 *  - what is signed: the EIP-712 domain per profile and the Order, Transfer, MarginUpdate and
 *    Delegation types, published verbatim by GET /config (typed-data.ts), and their digest;
 *  - signature canonicality (signature.ts) and signer recovery (recovery.ts: noble or native
 *    libsecp256k1), off the main thread in batches (signature-pool.ts + signature-worker.ts, the tasks between them in signature-tasks.ts);
 *  - replay protection: nonce windows per (account, subaccountIndex, signer) (nonces.ts);
 *  - delegation and the authorization rules and texts of the spec (delegation.ts), combined with
 *    nonces in the synchronous admission step (admission.ts);
 *  - wallet login: SIWE challenge (challenge.ts) → JWT access token (token.ts), login.ts.
 *
 * May import: types/ (orders, address), @noble/curves, @noble/hashes, hash-wasm, jose, piscina,
 * transport/source-bundle (threads from source), config/profile (types), numeric/state-hash,
 * node:os (the pool), node:module (the native loader, keccak), node:crypto (challenges, login).
 * Never the engine, ledger or gateway; the native secp256k1 (optional) is loaded at run time.
 * nonces.ts and delegation.ts are pure and deterministic (journaled state: snapshot, restore,
 * stateHash, validateInternalState), and with admission.ts and codes.ts import only pure rooms
 * (the application imports them; address.ts's keccak compiles WebAssembly as it loads);
 * challenge.ts and token.ts take a clock and a random source.
 *
 * Request flow for a signed write (order, transfer, margin update, delegation change):
 *  1. gateway parses the body; `orderMessage(body)` maps nulls for orders;
 *  2. `recoverRequestSigner(recover, eip712Domain(profile), primaryType, message, signatures)`
 *     → signer (async, through the pool);
 *  3. on the thread owning the stores: `admitSignedWrite` / `admitSignedBatch` /
 *     `admitDelegationChange` → authorised and nonce consumed, or a refusal; journal it.
 * Reads: `tokens.verifyHeader(header)` → caller; `delegations.authorizeCaller(caller, account,
 * subaccountIndex, 'read')`.
 *
 * Invariants: every signature rejection is `Invalid signature`; high-s is refused; v as 0/1 or
 * 27/28 both accepted (replay keyed on (signer, nonce), never on bytes); the action type is in
 * the type hash; the domain binds chainId and verifyingContract. Addresses are lowercase inside.
 * Limits: nonces and expiresAt are safe integers (≤ 2^53 − 1); login challenges are stateless
 * (an HMAC), only the redeemed ones are remembered, per process, until they expire; no JWT
 * revocation list (short expiry instead).
 */
export {};
