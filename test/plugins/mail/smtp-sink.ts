import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

export interface ReceivedMail {
  from: string | false;
  to: string[];
  /** The message as sent: headers, blank line, body. */
  raw: string;
  secure: boolean;
  user: string | undefined;
}

export interface SmtpSink {
  port: number;
  received: ReceivedMail[];
  /** What the next DATA is answered with: undefined accepts, an error code refuses it (a transient 451 makes the sender retry). */
  refuseNext: number[];
  close(): Promise<void>;
}

/** A real SMTP server on 127.0.0.1 (random port) that keeps what it receives. */
export async function startSmtpSink(options: SMTPServerOptions = {}): Promise<SmtpSink> {
  const received: ReceivedMail[] = [];
  const refuseNext: number[] = [];
  const server = new SMTPServer({
    // Its built-in certificate is for tests like this one; no warning on stderr.
    logger: false,
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    ...options,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const code = refuseNext.shift();
        if (code) return callback(Object.assign(new Error('Try again later'), { responseCode: code }));
        received.push({
          from: session.envelope.mailFrom && session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
          secure: session.secure,
          user: session.user as string | undefined,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as { port: number };
  return { port, received, refuseNext, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A header's value from a raw message (unfolded). */
export function header(raw: string, name: string): string | undefined {
  const head = raw.split(/\r?\n\r?\n/)[0].replace(/\r?\n[ \t]+/g, ' ');
  const line = head.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
}

/** The body of a single-part plain-text message. */
export function body(raw: string): string {
  return raw.split(/\r?\n\r?\n/).slice(1).join('\n\n').replace(/\r\n/g, '\n');
}
