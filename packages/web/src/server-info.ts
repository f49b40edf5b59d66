// What this server offers (GET /console/v1/server/, no credential needed), asked once per page load: whether it
// sends e-mail, so pages never promise one that will not come.
import { useEffect, useState } from 'preact/hooks';
import type { ServerInfo } from '@parley/contracts';
import { api } from './api.ts';

let asked: Promise<ServerInfo> | undefined;

/** The server's info; undefined while it loads (or when it could not be read: pages then promise nothing either way). */
export function useServerInfo(): ServerInfo | undefined {
  const [info, setInfo] = useState<ServerInfo | undefined>(undefined);
  useEffect(() => {
    asked ??= api<ServerInfo>('GET', '/server/');
    asked.then(setInfo, () => {
      asked = undefined;
    });
  }, []);
  return info;
}
