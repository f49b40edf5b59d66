// Team alerts in the web account (issue #33, Alerts and follow-through): while signed in, the count of chats needing
// a person in the tab title and beside `Inbox`; with the member's `notifications.browser` and the browser's
// permission (button `Enable notifications` on the Inbox), a notification and a short sound for a chat handed off,
// a customer message in a chat assigned to me, and a chat assigned to me; and a removed member's page signs out at
// once, saying why. The live stream stays open on every page meanwhile (the member counts as online).
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Profile, SessionState } from '@parley/contracts';
import { createAlertsSync, type AlertKind, type AlertsSync } from './alerts-sync.ts';
import { api } from './api.ts';
import { t } from './i18n.ts';
import { useLiveMessages } from './live.ts';
import type { ChatPage } from './pages/inbox/list-sync.ts';
import { navigate } from './router.ts';

/** Told when the Profile page saves: browser notifications may have been switched. */
export const PROFILE_SAVED_EVENT = 'parley:profile-saved';

let audio: AudioContext | undefined;
/** A short two-tone chime (no sound file to load). */
function chime(): void {
  try {
    audio ??= new AudioContext();
    const at = audio.currentTime;
    for (const [frequency, start] of [
      [880, 0],
      [1320, 0.12],
    ] as const) {
      const tone = audio.createOscillator();
      const gain = audio.createGain();
      tone.frequency.value = frequency;
      gain.gain.setValueAtTime(0.12, at + start);
      gain.gain.exponentialRampToValueAtTime(0.001, at + start + 0.25);
      tone.connect(gain).connect(audio.destination);
      tone.start(at + start);
      tone.stop(at + start + 0.25);
    }
  } catch {
    // No audio here: the notification still shows.
  }
}

function notificationsAllowed(): boolean {
  return typeof Notification !== 'undefined' && Notification.permission === 'granted';
}

/**
 * The count of chats needing a person (null until known), kept live; alerts the member as above. `onEnded`: the
 * member's access ended (`removed` when they were removed from the account).
 */
export function useTeamAlerts(onEnded: (removed: boolean) => void, memberId: string): number | null {
  const [count, setCount] = useState<number | null>(null);
  const browser = useRef(false);

  useEffect(() => {
    const readProfile = () =>
      api<Profile>('GET', '/me/').then(
        (profile) => {
          browser.current = profile.notifications.browser;
        },
        () => undefined,
      );
    void readProfile();
    addEventListener(PROFILE_SAVED_EVENT, readProfile);
    return () => removeEventListener(PROFILE_SAVED_EVENT, readProfile);
  }, []);

  useEffect(() => {
    document.title = count ? `(${count}) Parley` : 'Parley';
    return () => {
      document.title = 'Parley';
    };
  }, [count]);

  const sync = useRef<AlertsSync | undefined>(undefined);
  sync.current ??= createAlertsSync({
    fetchPage: (query) => api<ChatPage>('GET', '/chat/all-chats/', { query }),
    memberId,
    onCount: setCount,
    onAlert: (kind, chat) => {
      if (!browser.current || !notificationsAllowed()) return;
      const notification = new Notification(t(ALERT_TITLES[kind]), { body: chat.name, tag: `parley-${chat.id}` });
      notification.onclick = () => {
        window.focus();
        navigate(`/inbox/${chat.id}`);
      };
      chime();
    },
  });
  const current = sync.current;
  useEffect(() => {
    current.start();
    return () => current.stop();
  }, [current]);

  useLiveMessages((message) => {
    if (message.kind === 'dropped') {
      // The server ends a member's stream when their access changes: a removed member is told why, at once.
      void api<SessionState>('GET', '/auth/session/state').then(
        (state) => {
          if (!state.signedIn) onEnded(state.ended === 'removed');
        },
        () => undefined,
      );
      return;
    }
    current.live(message);
  });
  return count;
}

const ALERT_TITLES: Record<AlertKind, string> = {
  needsPerson: 'A chat needs a person',
  assigned: 'A chat was assigned to you',
  newMessage: 'New message in your chat',
};

/** The Inbox's button that asks the browser's permission for notifications (shown until it is given or refused). */
export function EnableNotifications() {
  const [permission, setPermission] = useState(typeof Notification === 'undefined' ? 'unsupported' : Notification.permission);
  if (permission === 'unsupported' || permission === 'denied') return null;
  if (permission === 'granted') return <span class="muted">{t('Notifications are on')}</span>;
  return (
    <button
      type="button"
      aria-label="Enable notifications"
      onClick={async () => {
        setPermission(await Notification.requestPermission());
      }}
    >
      {t('Enable notifications')}
    </button>
  );
}

/** The count beside the `Inbox` link (the link's own accessible name stays `Inbox`). */
export function NeedsPersonBadge({ count }: { count: number | null }) {
  if (!count) return null;
  return (
    <span class="badge" role="status" aria-label={`${count} ${t('chats need a person')}`}>
      {count}
    </span>
  );
}
