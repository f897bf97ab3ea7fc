// The window test's view of the screen: when the desktop app is started with
// CARREL_UI_DUMP set, Go binds UIDump and this sends the window's visible text to it
// whenever the page changes, so the test checks exact texts without OCR. Users never
// have it: the binding does not exist for them and this does nothing.
// A last line `focus: TESTID` names the focused element's data-testid, so that the test
// can move through the window with Tab and press what it means to, without coordinates.

interface UIDumpBinding {
  Write(text: string): Promise<void>;
}

type WithUIDump = { go?: { app?: { UIDump?: UIDumpBinding } } };

export function startUIDump(root: HTMLElement = document.body, delayMs = 200): (() => void) | null {
  const dump = (window as unknown as WithUIDump).go?.app?.UIDump;
  if (!dump) return null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let last = '';
  const send = () => {
    timer = undefined;
    const focused = document.activeElement?.getAttribute('data-testid');
    const text = root.innerText + (focused ? `\nfocus: ${focused}` : '');
    if (text === last) return;
    last = text;
    dump.Write(text).catch(() => {});
  };
  const schedule = () => {
    if (timer === undefined) timer = setTimeout(send, delayMs);
  };
  const obs = new MutationObserver(schedule);
  obs.observe(root, { subtree: true, childList: true, characterData: true, attributes: true });
  // Moving the focus changes no DOM.
  root.addEventListener('focusin', schedule);
  schedule();
  return () => {
    obs.disconnect();
    root.removeEventListener('focusin', schedule);
    if (timer !== undefined) clearTimeout(timer);
  };
}
