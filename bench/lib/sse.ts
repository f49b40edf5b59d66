// A Server-Sent Events client for the bench (the console's live stream, as a browser's EventSource reads it): one
// streaming GET, its `event:`/`data:` lines parsed into named messages. No reconnection: a bench counts a drop.
export interface SseMessage {
  event: string;
  data: string;
}

export interface SseStream {
  /** Settles when the stream ends (closed by either side); rejects when it could not open. */
  ended: Promise<void>;
  close(): void;
}

/** Opens `url` with `headers` and calls `onMessage` for each message, in order. */
export async function openSse(url: string, headers: Record<string, string>, onMessage: (message: SseMessage) => void): Promise<SseStream> {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { ...headers, accept: 'text/event-stream' }, signal: controller.signal });
  if (response.status !== 200 || !response.body) throw new Error(`GET ${url} answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const read = async (): Promise<void> => {
    let buffer = '';
    let event = 'message';
    let data: string[] = [];
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let newline = buffer.indexOf('\n');
      while (newline >= 0) {
        const line = buffer.slice(0, newline).replace(/\r$/, '');
        buffer = buffer.slice(newline + 1);
        newline = buffer.indexOf('\n');
        if (line === '') {
          if (data.length > 0) onMessage({ event, data: data.join('\n') });
          event = 'message';
          data = [];
        } else if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
    }
  };
  const ended = read().catch((error: unknown) => {
    if (!controller.signal.aborted) throw error;
  });
  return { ended, close: () => controller.abort() };
}
