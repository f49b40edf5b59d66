// A QR code of a text as an inline SVG (Profile's two-factor setup: the otpauth:// link for a phone's authenticator
// app). lean-qr's "nano" encoder (about 2 kB gzipped) makes the modules; each dark one is a square of the path.
// Inline SVG needs no image URL, so the page's CSP stays as it is.
import { generate } from 'lean-qr/nano';
import { useMemo } from 'preact/hooks';

/** The light margin around the code, in modules (the standard's quiet zone). */
const QUIET_ZONE = 4;

/** The path of the dark modules, one `M x y h1v1h-1z` square each, inside the quiet zone. */
export function qrPath(text: string): { size: number; d: string } {
  const code = generate(text);
  let d = '';
  for (let y = 0; y < code.size; y += 1) {
    for (let x = 0; x < code.size; x += 1) if (code.get(x, y)) d += `M${x + QUIET_ZONE} ${y + QUIET_ZONE}h1v1h-1z`;
  }
  return { size: code.size + 2 * QUIET_ZONE, d };
}

export function QrCode({ text, label }: { text: string; label: string }) {
  const { size, d } = useMemo(() => qrPath(text), [text]);
  return (
    <svg role="img" aria-label={label} class="qr-code" viewBox={`0 0 ${size} ${size}`} width="200" height="200" shape-rendering="crispEdges">
      <rect width={size} height={size} fill="#fff" />
      <path d={d} fill="#000" />
    </svg>
  );
}
