import { mount } from 'svelte';
import './app.css';
import App from './App.svelte';
import { applyStoredTheme } from './lib/state/theme.svelte';
import { startUIDump } from './lib/uidump';
import { loadRenderer } from './lib/renderer.svelte';

applyStoredTheme();

const app = mount(App, { target: document.getElementById('app')! });
// The answer renderer once the window is painted: after the next frame, not before it.
requestAnimationFrame(() => setTimeout(() => void loadRenderer(), 0));
startUIDump();

export default app;
