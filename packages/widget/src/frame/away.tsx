// Away mode: outside the channel's working hours the frame says when the team is back, and still takes messages.

function when(back: Date, now: Date): string {
  const time = back.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  const days = Math.round((new Date(back).setHours(0, 0, 0, 0) - new Date(now).setHours(0, 0, 0, 0)) / 86_400_000);
  if (days === 0) return `today at ${time}`;
  if (days === 1) return `tomorrow at ${time}`;
  return `on ${back.toLocaleDateString(undefined, { weekday: 'long' })} at ${time}`;
}

export function AwayNote({ backAt }: { backAt: string | null }) {
  return (
    <p class="away" role="note">
      {backAt ? (
        <>
          We're away right now and back <time dateTime={backAt}>{when(new Date(backAt), new Date())}</time>. Leave a message
          and we'll answer then.
        </>
      ) : (
        "We're away right now. Leave a message and we'll get back to you."
      )}
    </p>
  );
}
