import { mount } from 'svelte';
import './app.css';
import App from './App.svelte';
import { startUIDump } from './lib/uidump';

const app = mount(App, { target: document.getElementById('app')! });
startUIDump();

export default app;
