// `POST /console/v1/connect/validate-tg-token/` (docs/architecture.md, Messenger connectors): a bot token checked with getMe.
import { TELEGRAM_BOT_TOKEN_PATTERN } from '@parley/contracts';
import { Errors } from '../errors.ts';
import { MessengerError } from '../channels/connectors/connector.ts';

const BOT_TOKEN = new RegExp(TELEGRAM_BOT_TOKEN_PATTERN);

export function createTelegramTokenCheck(telegram: { getMe(token: string): Promise<{ id: number; username: string | null } | undefined> }) {
  return {
    async validate(token: string): Promise<{ valid: boolean; bot?: { id: number; username: string | null } }> {
      // A string that cannot be a token is never put into a Telegram URL.
      if (!BOT_TOKEN.test(token)) return { valid: false };
      try {
        const bot = await telegram.getMe(token);
        return bot ? { valid: true, bot } : { valid: false };
      } catch (error) {
        if (error instanceof MessengerError) throw Errors.messengerUnavailable(error.description);
        throw error;
      }
    },
  };
}
