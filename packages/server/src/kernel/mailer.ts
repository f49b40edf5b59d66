// E-mail through SMTP_URL (nodemailer): invitations, password resets and alerts. Without SMTP the inviter passes the
// link on; a failed send is logged (without its content) and reported as not e-mailed, so the inviter still has
// the link.
import type { FastifyBaseLogger } from 'fastify';
import type { Transporter } from 'nodemailer';

export interface InvitationMail {
  to: string;
  inviterName: string;
  role: string;
  inviteUrl: string;
  expiresAt: Date;
}

/** A plain-text e-mail (a password reset link, an alert). */
export interface TextMail {
  to: string;
  subject: string;
  text: string;
}

export interface InvitationMailer {
  /** True when the message was handed to the SMTP server; false without SMTP or when sending failed. */
  send(mail: InvitationMail): Promise<boolean>;
  /** Any other e-mail, likewise; `what` names it in the log of a failure. */
  sendText(mail: TextMail, what: string): Promise<boolean>;
  /** SMTP_URL is set. */
  readonly configured: boolean;
  close(): void;
}

export function createInvitationMailer(options: { smtpUrl: string | undefined; from: string; logger: FastifyBaseLogger }): InvitationMailer {
  const { smtpUrl, from, logger } = options;
  if (!smtpUrl) return { send: async () => false, sendText: async () => false, configured: false, close() {} };
  // The URL holds the SMTP password: it goes to nodemailer only, never to a log line.
  // nodemailer is loaded with the first invitation sent, not at start.
  let transporter: Promise<Transporter> | undefined;
  const transport = (): Promise<Transporter> =>
    (transporter ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport({ url: smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 }),
    ));
  async function sendText(mail: TextMail, what: string): Promise<boolean> {
    try {
      await (await transport()).sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
      return true;
    } catch (error) {
      logger.warn({ err: { message: (error as Error).message, code: (error as { code?: unknown }).code } }, `sending ${what} e-mail failed`);
      return false;
    }
  }
  return {
    configured: true,
    sendText,
    send(mail) {
      return sendText(
        {
          to: mail.to,
          subject: `${mail.inviterName} invited you to their Parley team`,
          text:
            `${mail.inviterName} invited you to answer customers with them on Parley, as ${mail.role}.\n\n` +
            `Accept the invitation (the link works once, until ${mail.expiresAt.toISOString().slice(0, 10)}):\n` +
            `${mail.inviteUrl}\n\nIf you did not expect this, ignore this e-mail.\n`,
        },
        'an invitation',
      );
    },
    close() {
      void transporter?.then((made) => made.close(), () => undefined);
    },
  };
}
