// A small history router: the app's paths are served index.html by the server (history fallback).
import { useEffect, useState } from 'preact/hooks';

const listeners = new Set<(path: string) => void>();

export function navigate(path: string, replace = false): void {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  for (const listener of listeners) listener(location.pathname);
}

addEventListener('popstate', () => {
  for (const listener of listeners) listener(location.pathname);
});

export function usePath(): string {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    listeners.add(setPath);
    return () => void listeners.delete(setPath);
  }, []);
  return path;
}

/** Same-origin link that navigates without a reload. */
export function onLinkClick(event: MouseEvent, path: string): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
  event.preventDefault();
  navigate(path);
}
