// The Inbox list's filters and its page size.
export const PAGE = 50;

export interface Filters {
  channelId: string;
  channelName: string;
  tag: string;
  done: boolean;
  unread: boolean;
  /** The `Needs a human` view: chats the agent handed to the team. */
  needsHuman: boolean;
  /** '' (all), `me` or `none`. */
  assignee: string;
  offset: number;
}

/** The filters an Inbox opens with: every chat of the account. */
export const NO_FILTERS: Filters = {
  channelId: '',
  channelName: '',
  tag: '',
  done: false,
  unread: false,
  needsHuman: false,
  assignee: '',
  offset: 0,
};
