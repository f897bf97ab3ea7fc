import { afterEach, describe, expect, it, vi } from 'vitest';
import { startUIDump } from './uidump';

type W = { go?: { app?: { UIDump?: { Write(text: string): Promise<void> } } } };

describe('startUIDump', () => {
  afterEach(() => {
    delete (window as unknown as W).go;
    document.body.innerHTML = '';
  });

  it('does nothing without the binding', () => {
    expect(startUIDump(document.body, 0)).toBeNull();
  });

  it('sends the page text when it changes, once per change', async () => {
    const write = vi.fn().mockResolvedValue(undefined);
    (window as unknown as W).go = { app: { UIDump: { Write: write } } };
    const root = document.createElement('div');
    root.textContent = 'Library';
    document.body.append(root);
    // jsdom has no layout, so innerText is textContent there; enough to test the plumbing.
    Object.defineProperty(root, 'innerText', { get: () => root.textContent ?? '' });
    const stop = startUIDump(root, 0)!;
    await vi.waitFor(() => expect(write).toHaveBeenCalledWith('Library'));
    root.textContent = 'Best passages';
    await vi.waitFor(() => expect(write).toHaveBeenLastCalledWith('Best passages'));
    root.setAttribute('data-x', '1'); // a change that leaves the text alone
    await new Promise((r) => setTimeout(r, 20));
    expect(write).toHaveBeenCalledTimes(2);
    stop();
  });

  it('names the focused element, and sends again when the focus moves', async () => {
    const write = vi.fn().mockResolvedValue(undefined);
    (window as unknown as W).go = { app: { UIDump: { Write: write } } };
    const root = document.createElement('div');
    root.innerHTML = '<p>Log</p><button data-testid="log-open">Open log folder</button><button>Other</button>';
    document.body.append(root);
    Object.defineProperty(root, 'innerText', { get: () => root.textContent ?? '' });
    const stop = startUIDump(root, 0)!;
    await vi.waitFor(() => expect(write).toHaveBeenCalledWith('LogOpen log folderOther'));
    root.querySelector<HTMLButtonElement>('[data-testid="log-open"]')!.focus();
    await vi.waitFor(() => expect(write).toHaveBeenLastCalledWith('LogOpen log folderOther\nfocus: log-open'));
    root.querySelectorAll('button')[1].focus(); // no test id: no focus line
    await vi.waitFor(() => expect(write).toHaveBeenLastCalledWith('LogOpen log folderOther'));
    stop();
  });
});
