// `How did we do?` (CSAT): once a conversation has ended (and its moment came: use-csat-moment.ts) the frame asks for a
// rating, buttons `1 — very bad` … `5 — very good` (the number and its meaning, seen and heard), with an optional
// textbox `Comment` typed before; a button sends the rating (once) with the comment, then a thank-you stays.
import { useState } from 'preact/hooks';
import { ApiError, rate } from './api.ts';

/** Each rating and what it means (DESIGN: accessible names start with the number and say its meaning). */
const RATINGS = [
  [1, 'very bad'],
  [2, 'bad'],
  [3, 'okay'],
  [4, 'good'],
  [5, 'very good'],
] as const;
const COMMENT_MAX = 1000;

export function CsatPrompt(props: { conversationId: string; token: () => string; conversation: string; onDone: () => void }) {
  const [comment, setComment] = useState('');
  const [state, setState] = useState<'asking' | 'sending' | 'thanked'>('asking');
  const [error, setError] = useState<string | null>(null);

  const send = async (rating: number) => {
    setState('sending');
    setError(null);
    try {
      const text = comment.trim();
      await rate(props.token(), props.conversation, { conversationId: props.conversationId, rating, ...(text ? { comment: text } : {}) });
      setState('thanked');
    } catch (failure) {
      // Rated already (another tab): nothing more to ask.
      if (failure instanceof ApiError && failure.status === 409) setState('thanked');
      else {
        setState('asking');
        setError(failure instanceof Error ? failure.message : String(failure));
      }
    }
  };

  if (state === 'thanked') {
    return (
      <p class="csat-thanks" role="status">
        Thank you for your rating!{' '}
        <button type="button" class="csat-close" onClick={props.onDone}>
          Close
        </button>
      </p>
    );
  }
  return (
    <section class="csat" aria-labelledby="csat-title">
      <p id="csat-title" class="csat-title">
        How did we do?
      </p>
      <label class="csat-comment">
        Comment
        <textarea value={comment} maxLength={COMMENT_MAX} rows={1} onInput={(event) => setComment(event.currentTarget.value)} />
      </label>
      <div class="csat-ratings" role="group" aria-label="Rating">
        {RATINGS.map(([rating, meaning]) => (
          <button key={rating} type="button" aria-label={`${rating} — ${meaning}`} disabled={state === 'sending'} onClick={() => void send(rating)}>
            <span class="csat-number">{rating}</span>
            <span class="csat-meaning">{meaning}</span>
          </button>
        ))}
      </div>
      {error !== null ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
    </section>
  );
}
