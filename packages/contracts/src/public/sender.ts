/** The sender name of a customer message sent without `senderName`, and the name of a chat it starts. */
export const DEFAULT_SENDER_NAME = 'Unknown visitor';
