import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import nodemailer from 'nodemailer';
import { forbiddenReason, isLocalhostName } from '#libs/net/forbidden-targets.js';
import type { MailSettings } from '../notification-settings.js';

export interface MailMessage {
  to: string[];
  subject: string;
  text: string;
}

/** Every wait on the mail server is bounded: a server that stalls fails the attempt, which is retried. */
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 };

/**
 * Sends one mail through the configured server. The server's name is resolved here and checked
 * as webhooks' targets are (unless private targets are allowed); the connection goes to the
 * address checked, with TLS still verifying the name.
 */
export async function sendMail(settings: MailSettings, message: MailMessage, allowPrivate: boolean): Promise<string[]> {
  const host = settings.host;
  let address = host;
  if (isIP(host) === 0) {
    if (!allowPrivate && isLocalhostName(host))
      throw new Error(`${host} is this host; mail servers may not be private unless settings allow private targets`);
    [{ address }] = await lookup(host, { all: true });
  }
  if (!allowPrivate && forbiddenReason(address))
    throw new Error(
      `${host} is or resolves to a forbidden address; mail servers may not be private unless settings allow private targets`,
    );
  const transport = nodemailer.createTransport({
    host: address,
    port: settings.port,
    secure: settings.secure,
    auth: settings.user ? { user: settings.user, pass: settings.password } : undefined,
    tls: { servername: isIP(host) === 0 ? host : undefined },
    ...TIMEOUTS,
  });
  try {
    const info = await transport.sendMail({
      from: settings.from || settings.user,
      to: message.to,
      subject: message.subject,
      text: message.text,
    });
    return (info.accepted as (string | { address: string })[]).map((item) =>
      typeof item === 'string' ? item : item.address,
    );
  } finally {
    transport.close();
  }
}
