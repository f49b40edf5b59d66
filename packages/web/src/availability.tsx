// The header's availability switch (issue #44, DESIGN Team workbench → availability): `Available` or `Away`, the
// member's own (`PUT /console/v1/me/`); auto-assignment gives chats to available members.
import { useEffect, useState } from 'preact/hooks';
import type { Availability, Profile } from '@parley/contracts';
import { api } from './api.ts';
import { t } from './i18n.ts';

export function AvailabilitySelect() {
  const [value, setValue] = useState<Availability | null>(null);
  useEffect(() => {
    void api<Profile>('GET', '/me/').then(
      (profile) => setValue(profile.availability),
      () => undefined,
    );
  }, []);
  if (value === null) return null;
  const change = (next: Availability) => {
    const before = value;
    setValue(next);
    void api<Profile>('PUT', '/me/', { body: { availability: next } }).then(
      (profile) => setValue(profile.availability),
      () => setValue(before),
    );
  };
  return (
    <select
      aria-label="Availability"
      class={`availability ${value}`}
      value={value}
      onChange={(e) => change(e.currentTarget.value as Availability)}
    >
      <option value="available">{t('Available')}</option>
      <option value="away">{t('Away')}</option>
    </select>
  );
}
