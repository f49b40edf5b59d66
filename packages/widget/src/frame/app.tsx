// The chat frame's page: the state in one place (useFrameState), then its effects in a fixed order (the host
// page's messages, the session, the open conversation and its live stream, the typing limit, the away note, the
// log's scroll), then what it shows.
import { AwayNote } from './away.tsx';
import { Composer } from './composer.tsx';
import { CsatPrompt } from './csat.tsx';
import { ConversationPicker } from './conversation-picker.tsx';
import { ChatHeader } from './header.tsx';
import { MessageLog } from './log.tsx';
import { AGENT_NAME } from './messages.ts';
import { PreChatForm } from './pre-chat.tsx';
import { useConversation, useScrollToEnd, useTypingLimit } from './use-conversation.ts';
import { useCsatMoment } from './use-csat-moment.ts';
import { useFrameState } from './use-frame-state.ts';
import { useHostLink } from './use-host-link.ts';
import { useSend } from './use-send.ts';
import { useAwayUntilBack, useSession } from './use-session.ts';

export function App() {
  const frame = useFrameState();
  // The order of these effects is the order they run in: the host listener is attached first.
  useHostLink(frame);
  useSession(frame);
  useConversation(frame);
  useTypingLimit(frame);
  useAwayUntilBack(frame);
  useScrollToEnd(frame);
  useCsatMoment(frame);
  const { startNewConversation, submit } = useSend(frame);
  const { session, refusal, conversations, conversationId, setConversationId, away, messages, sending, typing, status, error } = frame;
  const { details, setDetails, detailsGiven, setDetailsGiven, draft, setDraft, files, setFiles } = frame;

  const look = session?.look;
  // The pre-chat form: while a required answer is missing, or before the first message while any is.
  const rules = session?.preChatForm ?? null;
  const missingRequired = rules !== null && ((rules.name === 'required' && !details.name) || (rules.email === 'required' && !details.email));
  const chatted = messages.length > 0 || conversations.some((conversation) => conversation.lastMessageAt !== null);
  const askDetails = rules !== null && !detailsGiven && (missingRequired || (!chatted && (!details.name || !details.email)));
  return (
    // data-csat: whether a rating question is due (waiting for its moment) or asked; tests and styles read it.
    <div class="chat" data-csat={frame.csat ? 'asking' : frame.csatPending ? 'due' : undefined}>
      <ChatHeader title={look?.title ?? 'Chat'} canStartNew={session !== null && refusal === null} onNew={() => void startNewConversation()} closeRef={frame.closeRef} />
      {refusal !== null ? (
        <p class="refusal" role="alert">
          {refusal}
        </p>
      ) : (
        <>
          {conversations.length > 1 ? <ConversationPicker conversations={conversations} conversationId={conversationId} onPick={setConversationId} /> : null}
          {away ? <AwayNote backAt={away.backAt} /> : null}
          <MessageLog greeting={look?.greeting} messages={messages} sending={sending} logRef={frame.logRef} onChoice={(label) => void frame.sendRef.current(label, [])}>
            {frame.csat && conversationId ? (
              <CsatPrompt
                conversationId={frame.csat}
                conversation={conversationId}
                token={() => frame.tokenRef.current}
                onDone={() => {
                  frame.setCsat(null);
                  frame.setCsatPending(null);
                }}
              />
            ) : null}
          </MessageLog>
          {typing ? (
            <p class="typing" role="status">
              {`${AGENT_NAME} is typing`}
              <span class="dots" aria-hidden="true" />
            </p>
          ) : null}
          {status === 'reconnecting' ? (
            <p class="status" role="status">
              Reconnecting…
            </p>
          ) : null}
          {error !== null ? (
            <p class="error" role="alert">
              {error}
            </p>
          ) : null}
          {askDetails && rules ? (
            <PreChatForm
              rules={rules}
              initial={details}
              token={() => frame.tokenRef.current}
              firstField={frame.detailsRef}
              onDone={(given) => {
                setDetails(given);
                setDetailsGiven(true);
                setTimeout(() => frame.inputRef.current?.focus(), 0);
              }}
            />
          ) : (
            <Composer
              draft={draft}
              files={files}
              disabled={!session || !conversationId}
              sendDisabled={!session || sending}
              inputRef={frame.inputRef}
              fileRef={frame.fileRef}
              onDraft={setDraft}
              onFiles={setFiles}
              onSubmit={submit}
            />
          )}
        </>
      )}
    </div>
  );
}
