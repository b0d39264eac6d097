/**
 * A feed connection that keeps what it is sent (parsed) and the topics it holds: the feeds'
 * unit tests read what a subscriber got from it.
 */
import type { SocketConnection } from '../../src/http/uws.ts';

export class RecordedConnection implements SocketConnection<any> {
  readonly sent: any[] = [];
  readonly topics = new Set<string>();
  closed = false;
  constructor(readonly state: any, readonly remoteAddress: string) {}
  send(text: string): boolean {
    this.sent.push(JSON.parse(text));
    return true;
  }
  subscribe(topic: string): void {
    this.topics.add(topic);
  }
  unsubscribe(topic: string): void {
    this.topics.delete(topic);
  }
  bufferedAmount(): number {
    return 0;
  }
  close(): void {
    this.closed = true;
  }
}
