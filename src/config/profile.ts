/**
 * @module config/profile
 *
 * Deployment profiles. Each has its own chain id and verifying contract (the EIP-712 domain
 * a signature is bound to, so a testnet signature never passes on mainnet), base URL and
 * default data directory. Only testnet has a faucet.
 * May import: nothing.
 */

export type ProfileName = 'testnet' | 'mainnet';

export interface Profile {
  name: ProfileName;
  /** EIP-712 domain name and version, shared by both profiles. */
  domainName: string;
  domainVersion: string;
  chainId: number;
  verifyingContract: `0x${string}`;
  baseUrl: string;
  dataDir: string;
  faucet: boolean;
}

export const PROFILES: Readonly<Record<ProfileName, Profile>> = {
  testnet: {
    name: 'testnet',
    domainName: 'PerpExchange',
    domainVersion: '1',
    chainId: 421614,
    verifyingContract: '0x5e1f5e2b1c4d3a7f9e8b6c0d2a4f6e8b0c1d3e5f',
    baseUrl: 'https://testnet.perp.example',
    dataDir: './data/testnet',
    faucet: true,
  },
  mainnet: {
    name: 'mainnet',
    domainName: 'PerpExchange',
    domainVersion: '1',
    chainId: 42161,
    verifyingContract: '0x8f3a6c2e9b1d4f7a0c5e8b2d6f9a1c4e7b0d3f6a',
    baseUrl: 'https://api.perp.example',
    dataDir: './data/mainnet',
    faucet: false,
  },
};

export function isProfileName(name: string): name is ProfileName {
  return name === 'testnet' || name === 'mainnet';
}
