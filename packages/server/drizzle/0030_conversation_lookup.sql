-- Ingest's cost of the conversations (issue #36): the customer branch of migration 0027's row trigger ran three
-- statements for each customer message (its chat's open conversation, the account's quiet time, then the update; or,
-- starting one, the lookup, the insert and the `durable` update of the chat's earlier ones). Its lookup of the open
-- conversation (`chat_id = $1 AND ended_at IS NULL`) could be planned, once per connection while the table was
-- empty, as a scan of the partial index on open conversations' last customer message: every open conversation read
-- for each message (migration 0029 explains the index). It now runs two statements: one lookup of the chat's latest
-- conversation (conversations_chat_started_idx, which its ORDER BY makes the only fit) with its account's quiet time,
-- then the update or the insert; the `durable` update, by that latest conversation's id, runs only when the chat had
-- a conversation before (never for a new chat). The other branches are those of migration 0027.
CREATE OR REPLACE FUNCTION conversations_after_message() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  quiet integer;
  started boolean;
  latest_id uuid;
  latest_ended timestamptz;
  latest_last timestamptz;
BEGIN
  IF NEW.csat THEN
    RETURN NULL;
  END IF;
  IF NEW.origin = 'customer' THEN
    -- The chat's latest conversation: the open one if any (a chat's open conversation is its newest). It continues
    -- (the common case), unless it has been quiet for longer than the account's resolution time: it ended then (the
    -- sweep may not have come by yet), and this message starts the next one.
    SELECT c.id, c.ended_at, c.last_customer_message_at, a.resolution_quiet_minutes
      INTO latest_id, latest_ended, latest_last, quiet
    FROM conversations c JOIN accounts a ON a.id = c.account_id
    WHERE c.chat_id = NEW.chat_id ORDER BY c.started_at DESC LIMIT 1;
    IF latest_id IS NOT NULL AND latest_ended IS NULL THEN
      IF latest_last >= NEW.created_at - make_interval(mins => quiet) THEN
        UPDATE conversations SET messages = messages + 1,
               last_message_at = greatest(last_message_at, NEW.created_at),
               last_customer_message_at = greatest(last_customer_message_at, NEW.created_at)
        WHERE id = latest_id AND ended_at IS NULL;
        IF FOUND THEN
          RETURN NULL;
        END IF;
      ELSE
        PERFORM conversation_end_open(NEW.chat_id, 'quiet', NEW.created_at - make_interval(mins => quiet));
      END IF;
    END IF;
    -- Ends in a continuation when a concurrent first message of the chat started it meanwhile.
    INSERT INTO conversations AS c (id, account_id, chat_id, channel_id, started_at, last_message_at,
                                    last_customer_message_at, messages, assignee_id)
    SELECT gen_random_uuid(), NEW.account_id, NEW.chat_id, ch.channel_id, NEW.created_at, NEW.created_at,
           NEW.created_at, 1, ch.assignee_id
    FROM chats ch WHERE ch.id = NEW.chat_id
    ON CONFLICT (chat_id) WHERE ended_at IS NULL DO UPDATE
      SET messages = c.messages + 1,
          last_message_at = greatest(c.last_message_at, excluded.last_message_at),
          last_customer_message_at = greatest(c.last_customer_message_at, excluded.last_customer_message_at)
    RETURNING (xmax = 0) INTO started;
    IF started AND latest_id IS NOT NULL THEN
      -- A new conversation within 7 days of the chat's last one (the latest, or the one just ended by quiet time):
      -- that one was not durable. By its id: migration 0027's statement by chat and end, planned once for all chats,
      -- could scan the table.
      UPDATE conversations SET durable = false
      WHERE id = latest_id AND ended_at IS NOT NULL AND durable IS NULL AND ended_at > NEW.created_at - interval '7 days';
    END IF;
  ELSIF NEW.origin = 'agent' THEN
    UPDATE conversations SET
      messages = messages + 1,
      last_message_at = greatest(last_message_at, NEW.created_at),
      agent_answers = agent_answers
        + CASE WHEN NOT NEW.fallback AND NOT NEW.handoff AND NOT NEW.greeting AND NEW.choices IS NULL THEN 1 ELSE 0 END,
      answered_after_choice = answered_after_choice + CASE WHEN NEW.after_choice AND NOT NEW.handoff THEN 1 ELSE 0 END,
      first_agent_response_seconds = coalesce(first_agent_response_seconds,
        greatest(0, extract(epoch FROM NEW.created_at - started_at))::double precision),
      handed_off_at = CASE WHEN NEW.handoff THEN coalesce(handed_off_at, NEW.created_at) ELSE handed_off_at END,
      handoff_reason = CASE WHEN NEW.handoff AND handed_off_at IS NULL THEN NEW.handoff_reason ELSE handoff_reason END
    WHERE chat_id = NEW.chat_id AND ended_at IS NULL;
  ELSIF NEW.origin IN ('team', 'api') THEN
    -- A member's reply (the Inbox), or a team reply recorded through the public API (no member known).
    UPDATE conversations SET
      messages = messages + 1,
      last_message_at = greatest(last_message_at, NEW.created_at),
      team_replied = true,
      first_team_response_seconds = coalesce(first_team_response_seconds,
        greatest(0, extract(epoch FROM NEW.created_at - coalesce(handed_off_at, started_at)))::double precision),
      member_ids = CASE WHEN NEW.member_id IS NULL OR NEW.member_id = ANY(member_ids) THEN member_ids
                        ELSE member_ids || NEW.member_id END
    WHERE chat_id = NEW.chat_id AND ended_at IS NULL;
  ELSE
    -- The off-hours auto-reply: a message of the conversation, no answer.
    UPDATE conversations SET messages = messages + 1, last_message_at = greatest(last_message_at, NEW.created_at)
    WHERE chat_id = NEW.chat_id AND ended_at IS NULL;
  END IF;
  RETURN NULL;
END $$;