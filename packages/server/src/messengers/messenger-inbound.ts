// A messenger's inbound webhook (docs/architecture.md, Messenger connectors → inbound, verification): the channel is found by
// id, the request verified with its credentials (nothing is read or stored before that), text PostgreSQL cannot
// hold replaced by U+FFFD (an update answered with an error comes back forever), each customer message's
// media downloaded into the file storage, and the message stored through the same path as every customer message
// (messages-service.ts). The agent's reply and the webhook deliveries are jobs that run after the commit, so the
// messenger gets its 200 as soon as the messages are stored.
import type { MessengerKind } from '@parley/contracts';
import type { FastifyBaseLogger } from 'fastify';
import type { StoredAttachment } from '../db/schema.ts';
import { Errors } from '../errors.ts';
import { detectMessengerFile, safeFileName } from '../files/file-kinds.ts';
import { fileUrl } from '../files/file-storage.ts';
import type { Clock } from '../lib/clock.ts';
import { storableJson } from '../lib/storable-text.ts';
import type { AttachmentStore, MessagesService } from '../messages/messages-service.ts';
import type { ChannelRow, ChannelsStore } from '../channels/channels-store.ts';
import { MessengerError, type Connector, type InboundMessage, type InboundRequest, type MediaRef } from '../channels/connectors/connector.ts';

export interface MessengerInboundDeps {
  channels: Pick<ChannelsStore, 'findForInbound' | 'setConnectorError'>;
  connectors: Record<MessengerKind, Connector>;
  messages: Pick<MessagesService, 'receiveFromMessenger' | 'alreadyReceived'>;
  files: AttachmentStore;
  clock: Clock;
  logger: FastifyBaseLogger;
  /** Messenger CSAT (conversations/csat-messenger.ts): a 1–5 after `How did we do?` is a rating, not a message. */
  ratings?: { takeRating(channel: ChannelRow, reply: Pick<InboundMessage, 'externalId' | 'externalChatId' | 'senderName' | 'dialogName' | 'text'>): Promise<boolean> };
}

const MEDIA_LABELS: Record<MediaRef['kind'], string> = {
  image: 'image',
  voice: 'voice message',
  audio: 'audio',
  document: 'document',
  sticker: 'sticker',
  video: 'video',
};

export function createMessengerInbound({ channels, connectors, messages, files, clock, logger, ratings }: MessengerInboundDeps) {
  /** The channel of the path, when it exists, is of this kind and has credentials; 404 otherwise. */
  async function channelOf(kind: MessengerKind, channelId: string): Promise<ChannelRow & { credentials: Record<string, string> }> {
    const channel = await channels.findForInbound(channelId);
    if (!channel || channel.kind !== kind || !channel.credentials) throw Errors.channelNotFound();
    return channel as ChannelRow & { credentials: Record<string, string> };
  }

  /** Downloads and stores each medium; what cannot be taken becomes a note in the text instead. */
  async function storeMedia(channel: ChannelRow & { credentials: Record<string, string> }, connector: Connector, media: MediaRef[]) {
    const attachments: StoredAttachment[] = [];
    const notes: string[] = [];
    for (const item of media) {
      const label = MEDIA_LABELS[item.kind];
      try {
        const downloaded = await connector.download(channel.credentials, item);
        const declared = item.kind === 'voice' || item.kind === 'audio' ? 'audio' : 'other';
        const file = await detectMessengerFile(downloaded.bytes, declared);
        if (!file) {
          notes.push(`[${label} of a type not accepted: ${downloaded.name}]`);
          continue;
        }
        const name = safeFileName(downloaded.name, file.extension);
        const stored = await files.storage.put(downloaded.bytes, { contentType: file.contentType, name });
        attachments.push({ contentType: file.contentType, url: fileUrl(files.publicUrl, stored), fileSize: stored.size, name, kind: file.kind });
      } catch (error) {
        if (!(error instanceof MessengerError)) throw error;
        logger.warn({ channelId: channel.id, kind: channel.kind, error: error.description }, 'messenger media not downloaded');
        await channels.setConnectorError(channel.id, `A ${label} could not be downloaded: ${error.description}`, clock.now());
        notes.push(`[${label} could not be downloaded]`);
      }
    }
    return { attachments, notes };
  }

  async function receiveOne(channel: ChannelRow & { credentials: Record<string, string> }, connector: Connector, inbound: InboundMessage) {
    if (await messages.alreadyReceived(channel.id, inbound.externalChatId, inbound.externalId)) return;
    if (ratings && inbound.media.length === 0 && inbound.unsupported.length === 0 && (await ratings.takeRating(channel, inbound))) return;
    const { attachments, notes } = await storeMedia(channel, connector, inbound.media);
    const unsupported = inbound.unsupported.map((kind) => `[unsupported message: ${kind}]`);
    const text = [inbound.text, ...notes, ...unsupported].filter((part) => part.length > 0).join('\n');
    await messages.receiveFromMessenger(channel, {
      externalId: inbound.externalId,
      externalChatId: inbound.externalChatId,
      dialogName: inbound.dialogName,
      photoUrl: inbound.photoUrl,
      isGroup: inbound.isGroup,
      senderName: inbound.senderName,
      text,
      attachments,
    });
  }

  return {
    /** `POST /channels/{type}/{channelId}/webhook`: 404 unknown channel, 401 unverified, else every message stored. */
    async receive(kind: MessengerKind, channelId: string, request: InboundRequest): Promise<void> {
      const channel = await channelOf(kind, channelId);
      const connector = connectors[kind];
      if (!connector.verify(channel.credentials, request)) throw Errors.messengerUnverified();
      const raw = request.rawBody.toString('utf8');
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch {
        throw Errors.messengerBadBody();
      }
      // Kept, not refused: the messenger would send the update again and again on an error answer.
      const { value: body, replaced } = storableJson(parsed);
      if (replaced) logger.warn({ channelId: channel.id, kind }, 'messenger update had text the database cannot store; replaced by U+FFFD');
      for (const inbound of connector.parse(body, raw)) await receiveOne(channel, connector, inbound);
    },

    /** Meta's `GET` subscription check: the challenge when the verify token matches; 403 otherwise. */
    async verifySubscription(kind: MessengerKind, channelId: string, query: { mode: string; verifyToken: string; challenge: string }): Promise<string> {
      const channel = await channelOf(kind, channelId);
      const challenge = connectors[kind].verifySubscription?.(channel.credentials, query);
      if (challenge === undefined) throw Errors.messengerVerifyTokenWrong();
      return challenge;
    },
  };
}

export type MessengerInbound = ReturnType<typeof createMessengerInbound>;
