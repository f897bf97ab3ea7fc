#!/usr/bin/env bash
# Native window test: run the built app under Xvfb with a fresh library, screenshot the
# screen, and check the window is drawn (not blank) and shows the library and chat panes
# (read back from the pixels with Tesseract OCR). Screenshots land in test-results/window/.
# Usage: window-test.sh BINARY
set -euo pipefail
bin=$(realpath "${1:-build/bin/carrel}")
out=test-results/window
mkdir -p "$out"
work=$(mktemp -d)
trap 'kill $app_pid $xvfb_pid 2>/dev/null || true; rm -rf "$work"' EXIT

display=:$((90 + RANDOM % 100))
Xvfb "$display" -screen 0 1400x900x24 -nolisten tcp >"$work/xvfb.log" 2>&1 &
xvfb_pid=$!
for _ in $(seq 50); do xdpyinfo -display "$display" >/dev/null 2>&1 && break; sleep 0.1; done

# A closed port for Ollama: the window must come up in no-model mode, not hang.
DISPLAY=$display HOME=$work XDG_CONFIG_HOME=$work/config OLLAMA_HOST=127.0.0.1:9 \
  "$bin" --library "$work/library" >"$work/app.log" 2>&1 &
app_pid=$!

shot=$out/main.png
ok=""
for _ in $(seq 40); do
  sleep 1
  kill -0 $app_pid 2>/dev/null || { cat "$work/app.log"; echo "FAIL: the app exited" >&2; exit 1; }
  import -display "$display" -window root "$shot" 2>/dev/null || continue
  sd=$(convert "$shot" -colorspace Gray -format "%[fx:standard_deviation]" info:)
  # A blank or half-painted window is one flat colour.
  if awk "BEGIN{exit !($sd > 0.05)}"; then
    text=$(tesseract "$shot" - 2>/dev/null | tr '[:upper:]' '[:lower:]')
    if grep -q "library" <<<"$text" && grep -Eq "ask|question" <<<"$text"; then ok=1; break; fi
  fi
done
echo "$text" >"$out/ocr.txt"
if [ -z "$ok" ]; then
  cat "$work/app.log"
  echo "FAIL: the window did not show the library and chat panes (see $shot and $out/ocr.txt)" >&2
  exit 1
fi
echo "window test: drawn (grey stddev $sd), library and chat panes visible; screenshot $shot"
