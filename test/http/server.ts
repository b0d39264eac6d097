/** Starts a gateway on a free loopback port for a test, and stops it after. */
import { after } from 'node:test';
import { pino } from 'pino';
import { startGateway } from '../../src/http/gateway.ts';
import type { MarketDataPort } from '../../src/http/ports.ts';
import { NO_HISTORY } from '../history/http-server.ts';

export interface TestServer {
  url: string;
  get(path: string): Promise<{ status: number; text: string; json: () => unknown; headers: Headers }>;
  request(method: string, path: string, body?: string): Promise<{ status: number; text: string; headers: Headers }>;
}

export async function startTestGateway(marketData: MarketDataPort, clock = () => 1_700_000_000_000): Promise<TestServer> {
  const server = await startGateway({ host: '127.0.0.1', port: 0, clock, logger: pino({ level: 'silent' }), marketData, history: NO_HISTORY, prices: () => ({ mark: 0, index: 0 }) });
  after(() => server.close());
  const url = `http://127.0.0.1:${server.port}`;
  const request = async (method: string, path: string, body?: string) => {
    const res = await fetch(url + path, { method, body, headers: body === undefined ? {} : { 'content-type': 'application/json' } });
    return { status: res.status, text: await res.text(), headers: res.headers };
  };
  return {
    url,
    request,
    get: async (path) => {
      const r = await request('GET', path);
      return { ...r, json: () => JSON.parse(r.text) };
    },
  };
}
