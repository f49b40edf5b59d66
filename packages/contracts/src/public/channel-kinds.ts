/** Channel kinds, the values of `channelName` (spec, What the service does). */
export const MESSENGER_KINDS = ['telegram', 'whatsapp', 'facebook', 'instagram', 'viber'] as const;
export const CHANNEL_KINDS = ['widget', 'custom', ...MESSENGER_KINDS] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];
export type MessengerKind = (typeof MESSENGER_KINDS)[number];

export function isMessengerKind(kind: string): kind is MessengerKind {
  return (MESSENGER_KINDS as readonly string[]).includes(kind);
}
