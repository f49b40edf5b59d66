// Refused embed attempts (issue #34, item 1): the loader asks whether its page may show the widget before it adds the
// frame; a page whose origin the channel does not allow is told so (the loader says why in the page's console) and
// counted, and the channel's page lists those origins with `Allow <origin>`.
import { and, desc, eq, sql } from 'drizzle-orm';
import type { EmbedAttempt } from '@parley/contracts';
import type { Executor } from '../db/client.ts';
import { channels, widgetEmbedAttempts } from '../db/schema.ts';
import { Errors } from '../errors.ts';
import type { Clock } from '../lib/clock.ts';
import { widgetSettingsOf } from '../channels/channels-service.ts';
import { normalizeOrigin } from '../channels/origins.ts';

/** Origins kept a channel: a page can send any Origin header, so the list is bounded. */
export const MAX_EMBED_ORIGINS = 50;

export function createEmbedAttemptsStore(db: Executor) {
  return {
    /** Counts a refused attempt; a new origin is kept only while the channel has fewer than MAX_EMBED_ORIGINS. */
    async record(channelId: string, origin: string, at: Date): Promise<void> {
      const counted = await db
        .update(widgetEmbedAttempts)
        .set({ attempts: sql`${widgetEmbedAttempts.attempts} + 1`, lastAt: at })
        .where(and(eq(widgetEmbedAttempts.channelId, channelId), eq(widgetEmbedAttempts.origin, origin)))
        .returning({ origin: widgetEmbedAttempts.origin });
      if (counted.length > 0) return;
      await db.execute(sql`
        INSERT INTO widget_embed_attempts (channel_id, origin, first_at, last_at)
        SELECT ${channelId}, ${origin}, ${at.toISOString()}, ${at.toISOString()}
        WHERE (SELECT count(*) FROM widget_embed_attempts WHERE channel_id = ${channelId}) < ${MAX_EMBED_ORIGINS}
        ON CONFLICT (channel_id, origin) DO NOTHING`);
    },

    /** The widget channel of the account (undefined: none such) and its attempts, newest first. */
    async listOf(accountId: string, channelId: string) {
      const [channel] = await db
        .select({ widget: channels.widget })
        .from(channels)
        .where(and(eq(channels.id, channelId), eq(channels.accountId, accountId), eq(channels.kind, 'widget')));
      if (!channel) return undefined;
      const rows = await db
        .select()
        .from(widgetEmbedAttempts)
        .where(eq(widgetEmbedAttempts.channelId, channelId))
        .orderBy(desc(widgetEmbedAttempts.lastAt), widgetEmbedAttempts.origin);
      return { channel, rows };
    },
  };
}

export type EmbedAttemptsStore = ReturnType<typeof createEmbedAttemptsStore>;

export function createEmbedAttempts(deps: { store: EmbedAttemptsStore; clock: Clock }) {
  const { store, clock } = deps;
  return {
    /**
     * Whether a page of `originHeader` may show the channel's widget; a refusal is recorded. No Origin (not a
     * browser's page) is not judged here: the frame's own checks still apply.
     */
    async check(channel: { id: string; widget: Parameters<typeof widgetSettingsOf>[0]['widget'] }, originHeader: string | undefined) {
      const origin = originHeader === undefined ? undefined : normalizeOrigin(originHeader);
      const allowedOrigins = widgetSettingsOf(channel).allowedOrigins;
      if (origin === undefined || allowedOrigins.includes(origin)) return { allowed: true };
      await store.record(channel.id, origin, clock.now());
      return { allowed: false, origin, message: Errors.widgetOriginNotAllowed().message };
    },

    /** The refused origins the channel still does not allow, newest first; another account's channel is 404. */
    async list(accountId: string, channelId: string): Promise<{ embedAttempts: EmbedAttempt[] }> {
      const found = await store.listOf(accountId, channelId);
      if (!found) throw Errors.channelNotFound();
      const allowed = new Set(widgetSettingsOf(found.channel).allowedOrigins);
      return {
        embedAttempts: found.rows
          .filter((row) => !allowed.has(row.origin))
          .map((row) => ({ origin: row.origin, attempts: row.attempts, firstAt: row.firstAt.toISOString(), lastAt: row.lastAt.toISOString() })),
      };
    },
  };
}

export type EmbedAttempts = ReturnType<typeof createEmbedAttempts>;
