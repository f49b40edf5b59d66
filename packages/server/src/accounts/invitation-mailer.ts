// Invitations by e-mail (SMTP_URL, nodemailer). Without SMTP the inviter passes the link on; a failed send is
// logged (without the link) and reported as not e-mailed, so the inviter still has the link.
import type { FastifyBaseLogger } from 'fastify';
import type { Transporter } from 'nodemailer';

export interface InvitationMail {
  to: string;
  inviterName: string;
  role: string;
  inviteUrl: string;
  expiresAt: Date;
}

export interface InvitationMailer {
  /** True when the message was handed to the SMTP server; false without SMTP or when sending failed. */
  send(mail: InvitationMail): Promise<boolean>;
  close(): void;
}

export function createInvitationMailer(options: { smtpUrl: string | undefined; from: string; logger: FastifyBaseLogger }): InvitationMailer {
  const { smtpUrl, from, logger } = options;
  if (!smtpUrl) return { send: async () => false, close() {} };
  // The URL holds the SMTP password: it goes to nodemailer only, never to a log line.
  // nodemailer is loaded with the first invitation sent, not at start.
  let transporter: Promise<Transporter> | undefined;
  const transport = (): Promise<Transporter> =>
    (transporter ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport({ url: smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 }),
    ));
  return {
    async send(mail) {
      try {
        await (await transport()).sendMail({
          from,
          to: mail.to,
          subject: `${mail.inviterName} invited you to their Parley team`,
          text:
            `${mail.inviterName} invited you to answer customers with them on Parley, as ${mail.role}.\n\n` +
            `Accept the invitation (the link works once, until ${mail.expiresAt.toISOString().slice(0, 10)}):\n` +
            `${mail.inviteUrl}\n\nIf you did not expect this, ignore this e-mail.\n`,
        });
        return true;
      } catch (error) {
        logger.warn({ err: { message: (error as Error).message, code: (error as { code?: unknown }).code } }, 'sending an invitation e-mail failed');
        return false;
      }
    },
    close() {
      void transporter?.then((made) => made.close(), () => undefined);
    },
  };
}
