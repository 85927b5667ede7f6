import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface Mail {
  from: string;
  to: string[];
  /** The message as sent (headers and body), dot-stuffing undone. */
  data: string;
}

/**
 * Just enough SMTP (RFC 5321) on loopback for nodemailer: EHLO/HELO, MAIL, RCPT, DATA, RSET,
 * NOOP, QUIT, no TLS or AUTH. `rcpt(address)` picks the reply to each recipient (250 by default,
 * 550 to refuse for good, 451 to refuse for now).
 */
export class SmtpServer {
  readonly mails: Mail[] = [];
  rcpt: (address: string) => string = () => '250 OK';

  private constructor(private readonly server: Server) {}

  static async start(): Promise<SmtpServer> {
    const server = createServer();
    const smtp = new SmtpServer(server);
    server.on('connection', (socket) => smtp.session(socket));
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    return smtp;
  }

  get url(): string {
    return `smtp://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private session(socket: Socket) {
    let buffer = '';
    let mail: Mail | null = null;
    let inData = false;
    const say = (line: string) => socket.write(`${line}\r\n`);
    say('220 localhost test SMTP');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          mail!.data = buffer.slice(0, end).replace(/^\.\./gm, '.');
          buffer = buffer.slice(end + 5);
          inData = false;
          this.mails.push(mail!);
          mail = null;
          say('250 OK: queued');
          continue;
        }
        const nl = buffer.indexOf('\r\n');
        if (nl < 0) return;
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') say('250 localhost');
        else if (verb === 'MAIL') {
          mail = { from: /<(.*)>/.exec(line)?.[1] ?? '', to: [], data: '' };
          say('250 OK');
        } else if (verb === 'RCPT') {
          const address = /<(.*)>/.exec(line)?.[1] ?? '';
          const reply = this.rcpt(address);
          if (reply.startsWith('250')) mail?.to.push(address);
          say(reply);
        } else if (verb === 'DATA') {
          if (!mail?.to.length) say('554 no valid recipients');
          else {
            inData = true;
            say('354 End data with <CR><LF>.<CR><LF>');
          }
        } else if (verb === 'RSET') {
          mail = null;
          say('250 OK');
        } else if (verb === 'NOOP') say('250 OK');
        else if (verb === 'QUIT') {
          say('221 Bye');
          socket.end();
          return;
        } else say('502 Command not implemented');
      }
    });
    socket.on('error', () => undefined);
  }

  async close(): Promise<void> {
    await new Promise<void>((ok) => this.server.close(() => ok()));
  }
}
