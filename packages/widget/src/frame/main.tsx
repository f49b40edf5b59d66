// The chat frame, served from Parley's origin inside the host page: the visitor's conversation, live. Its page is
// app.tsx; the handshake with the loader, the session, the live stream and sending are hooks beside it.
import { render } from 'preact';
import { App } from './app.tsx';
import './frame.css';

const root = document.getElementById('app');
if (root) render(<App />, root);
