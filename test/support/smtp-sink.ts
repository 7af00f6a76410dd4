import { createServer, type AddressInfo, type Socket } from 'node:net';

/** A mail the sink took: the envelope, the login it was given (PLAIN or LOGIN), and the raw message. */
export interface SunkMail {
  from: string;
  to: string[];
  user: string | null;
  password: string | null;
  data: string;
}

export interface SmtpSink {
  port: number;
  mails: SunkMail[];
  close(): Promise<void>;
}

/**
 * The smallest SMTP server a real client (nodemailer) completes a delivery with: EHLO with AUTH
 * PLAIN and LOGIN, MAIL, RCPT, DATA, QUIT, on loopback, no TLS. Written on node:net so the test
 * needs no mail server package; it keeps every mail it was given.
 */
export async function startSmtpSink(): Promise<SmtpSink> {
  const mails: SunkMail[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.setEncoding('utf8');
    const reply = (line: string) => socket.write(`${line}\r\n`);
    let mail: SunkMail = { from: '', to: [], user: null, password: null, data: '' };
    let login: 'user' | 'password' | null = null;
    let inData = false;
    let buffer = '';
    reply('220 sink ESMTP');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          mail.data = buffer.slice(0, end);
          buffer = buffer.slice(end + 5);
          inData = false;
          mails.push(mail);
          mail = { from: '', to: [], user: mail.user, password: mail.password, data: '' };
          reply('250 queued');
          continue;
        }
        const newline = buffer.indexOf('\r\n');
        if (newline < 0) return;
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 2);
        const decode = (text: string) => Buffer.from(text, 'base64').toString('utf8');
        if (login === 'user') {
          mail.user = decode(line);
          login = 'password';
          reply(`334 ${Buffer.from('Password:').toString('base64')}`);
          continue;
        }
        if (login === 'password') {
          mail.password = decode(line);
          login = null;
          reply('235 accepted');
          continue;
        }
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') reply('250-sink\r\n250-AUTH PLAIN LOGIN\r\n250 8BITMIME');
        else if (/^AUTH PLAIN/i.test(line)) {
          const [, user, password] = decode(line.split(' ')[2] ?? '').split('\u0000');
          Object.assign(mail, { user, password });
          reply('235 accepted');
        } else if (/^AUTH LOGIN/i.test(line)) {
          login = 'user';
          reply(`334 ${Buffer.from('Username:').toString('base64')}`);
        } else if (verb === 'MAIL') {
          mail.from = /<(.*)>/.exec(line)?.[1] ?? '';
          reply('250 ok');
        } else if (verb === 'RCPT') {
          mail.to.push(/<(.*)>/.exec(line)?.[1] ?? '');
          reply('250 ok');
        } else if (verb === 'DATA') {
          inData = true;
          reply('354 go on');
        } else if (verb === 'QUIT') {
          reply('221 bye');
          socket.end();
        } else if (verb === 'RSET' || verb === 'NOOP') reply('250 ok');
        else reply('502 not implemented');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    mails,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
