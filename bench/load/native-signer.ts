/**
 * @module bench/load/native-signer
 *
 * The load generator's fast signer (`--signer native`): a client `Signer` (src/client/signing)
 * that signs with libsecp256k1 through the `secp256k1` package's N-API binding (noble where the
 * binding does not load), for runs that pre-sign tens of thousands of orders: viem signs about
 * 600 orders a second on a 2-core machine, this one several thousand.
 *
 * It signs what viem signs, from the same inputs: the EIP-712 domain and types the client took
 * from GET /config, hashed by viem's own `hashStruct` (the domain separator, viem's too, computed
 * once per domain object); personal_sign digests by viem's `hashMessage`. Only the secp256k1
 * signature itself is native. RFC 6979 signatures are deterministic, so `checkAgainstViem` can
 * prove on a sample that the bodies are byte for byte what viem would send.
 *
 * May import: src/client, viem, @noble/curves, secp256k1 (N-API binding).
 */
import { createRequire } from 'node:module';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, concat, domainSeparator, hashMessage, hashStruct, hexToBytes, keccak256, type Hex, type TypedDataDomain } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ExchangeClient, type OrderInput, type Signer } from '../../src/client/index.ts';

/** The part of the `secp256k1` package's API used here (it ships no types). */
interface Secp256k1Binding {
  ecdsaSign(digest: Uint8Array, key: Uint8Array): { signature: Uint8Array; recid: number };
}

function loadBinding(): Secp256k1Binding | undefined {
  try {
    // `secp256k1/bindings` is the N-API build only (the package root falls back to elliptic).
    return createRequire(import.meta.url)('secp256k1/bindings') as Secp256k1Binding;
  } catch {
    return undefined;
  }
}

const binding = loadBinding();
/** Which implementation signs: libsecp256k1, or noble where the binding does not load. */
export const signerBackend: 'native' | 'noble' = binding === undefined ? 'noble' : 'native';

/** A 65-byte Ethereum signature `r ‖ s ‖ v` (v = 27 + recovery id) of a 32-byte digest, as 0x-hex. */
export function signDigest(digest: Uint8Array, key: Uint8Array): Hex {
  if (binding !== undefined) {
    const { signature, recid } = binding.ecdsaSign(digest, key);
    return `${bytesToHex(signature)}${(27 + recid).toString(16)}`;
  }
  const recovered = secp256k1.sign(digest, key, { prehash: false, format: 'recovered' });
  return `${bytesToHex(recovered.subarray(1))}${(27 + recovered[0]).toString(16)}`;
}

/** A client `Signer` for `privateKey` that signs natively (see the module header). */
export function nativeSigner(privateKey: Hex): Signer {
  const key = hexToBytes(privateKey);
  const separators = new WeakMap<TypedDataDomain, Hex>();
  const separator = (domain: TypedDataDomain): Hex => {
    let hash = separators.get(domain);
    if (hash === undefined) separators.set(domain, (hash = domainSeparator({ domain })));
    return hash;
  };
  return {
    address: privateKeyToAccount(privateKey).address,
    signMessage: async (message) => signDigest(hexToBytes(hashMessage(message)), key),
    signTypedData: async (domain, types, primaryType, message) => {
      const digest = keccak256(concat(['0x1901', separator(domain), hashStruct({ data: message, primaryType, types })]), 'bytes');
      return signDigest(digest, key);
    },
  };
}

/**
 * Throws unless `privateKey`'s native signer and viem sign `input` (an order, nonce included)
 * and a login message alike, with the EIP-712 domain and types of the exchange at `url`.
 */
export async function checkAgainstViem(url: string, privateKey: Hex, input: OrderInput & { nonce: number }): Promise<void> {
  const ours = new ExchangeClient({ url, signer: nativeSigner(privateKey) });
  const viem = new ExchangeClient({ url, wallet: privateKeyToAccount(privateKey) });
  const [a, b] = [JSON.stringify(await ours.signOrder(input)), JSON.stringify(await viem.signOrder(input))];
  if (a !== b) throw new Error(`the native signer disagrees with viem:\n${a}\n${b}`);
  const message = `load generator check ${input.nonce}`;
  const [m, n] = [await nativeSigner(privateKey).signMessage(message), await privateKeyToAccount(privateKey).signMessage({ message })];
  if (m !== n) throw new Error(`the native signer's personal_sign disagrees with viem: ${m} vs ${n}`);
}
