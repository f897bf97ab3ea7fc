import { mount } from 'svelte';
import './app.css';
import App from './App.svelte';
import { applyStoredTheme } from './lib/state/theme.svelte';
import { startUIDump } from './lib/uidump';

applyStoredTheme();

const app = mount(App, { target: document.getElementById('app')! });
startUIDump();

export default app;
