#!/usr/bin/env bash
# README screenshot, taken from the real desktop window: a temporary library with
# Walden.pdf (pdfcpu's test corpus) ingested through the test Ollama server (tiny
# random-weight model, internal/testollama), the built app opened under Xvfb, a question
# typed and sent with xdotool, a source on page 2 opened in the viewer (Alt+↓), and the
# window written to docs/screenshot.png. Builds nothing: build first (go tool task build).
#
# Environment: SCREENSHOT_QUESTION, SCREENSHOT_CHAT_MODEL (below), SCREENSHOT_MAX_TOKENS,
# SCREENSHOT_ANSWER_WAIT and
# SCREENSHOT_VIEWER_WAIT (seconds).
#
# Usage: screenshot.sh [BINARY] [OUTPUT]      (needs Xvfb, xdotool, ImageMagick; `bash
# scripts/setup.sh xvfb xdotool imagemagick` installs them on Debian/Ubuntu)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-build/bin/carrel}")
out=${2:-docs/screenshot.png}
question=${SCREENSHOT_QUESTION:-"What do the bullfrogs do by the pond on a delicious evening?"}
W=1440 H=900
[ -x "$bin" ] || { echo "no binary at $bin: run go tool task build" >&2; exit 1; }
for tool in Xvfb xdotool import convert; do
  command -v $tool >/dev/null || { echo "$tool is missing: bash scripts/setup.sh xvfb xdotool imagemagick" >&2; exit 1; }
done

work=$(mktemp -d)
app_pid="" xvfb_pid=""
cleanup() {
  [ -n "$app_pid" ] && kill "$app_pid" 2>/dev/null || true
  [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null || true
  exec {ollama_in}>&- 2>/dev/null || true # testollama stops when its stdin closes
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# The test Ollama server: prints one JSON line when its models exist.
mkfifo "$work/ollama.in" "$work/ollama.out"
go run ./internal/testollama/cmd/testollama -log "$work/ollama.log" <"$work/ollama.in" >"$work/ollama.out" &
exec {ollama_in}>"$work/ollama.in"
read -r -t 900 line <"$work/ollama.out" || { cat "$work/ollama.log" >&2; echo "the test Ollama did not start" >&2; exit 1; }
json() { sed -E "s/.*\"$1\":\"([^\"]*)\".*/\1/" <<<"$line"; }
host=$(json host) chat=$(json chat_model) embed=$(json embed_model)
# SCREENSHOT_CHAT_MODEL names another chat model; one Ollama lacks (say "none") shows the
# no-model answer made of the best passages instead of the tiny model's random words.
chat=${SCREENSHOT_CHAT_MODEL:-$chat}
echo "test Ollama at $host ($chat, $embed)"

lib=$work/library
pdf=$(go list -m -f '{{.Dir}}' github.com/pdfcpu/pdfcpu)/pkg/testdata/Walden.pdf
# A short answer: the tiny model writes random words, and the point is the citations.
flags=(--library "$lib" --ollama-host "$host" --chat-model "$chat" --embed-model "$embed" --max-tokens "${SCREENSHOT_MAX_TOKENS:-40}")
"$bin" "${flags[@]}" ingest "$pdf" | tail -1
# Which source to open: the first passage from page 2, where Walden's text is (page 1 is
# the title page). The answer's sources are the search's hits, in the same order.
nth=$("$bin" "${flags[@]}" search --json "$question" | python3 -c '
import json, sys
hits = json.load(sys.stdin)
hits = hits.get("hits", hits) if isinstance(hits, dict) else hits
print(next((i + 1 for i, h in enumerate(hits) if h.get("page") == 2), 1))')
echo "opening source $nth"

# The window opens at its remembered size (app/window.go): the whole screen.
mkdir -p "$work/config/Carrel"
echo "{\"width\":$W,\"height\":$H}" >"$work/config/Carrel/window.json"

# A display no other X server (another test run) holds.
for _ in $(seq 50); do n=$((90 + RANDOM % 400)); [ -e /tmp/.X$n-lock ] || [ -e /tmp/.X11-unix/X$n ] || break; done
display=:$n
Xvfb "$display" -screen 0 ${W}x${H}x24 -nolisten tcp >"$work/xvfb.log" 2>&1 &
xvfb_pid=$!
for _ in $(seq 50); do xdpyinfo -display "$display" >/dev/null 2>&1 && break; sleep 0.1; done
export DISPLAY=$display
HOME=$work XDG_CONFIG_HOME=$work/config GTK_THEME=Adwaita "$bin" "${flags[@]}" >"$work/app.log" 2>&1 &
app_pid=$!

alive() { kill -0 "$app_pid" 2>/dev/null || { cat "$work/app.log" >&2; echo "the app exited" >&2; exit 1; }; }
shot() { import -display "$display" -window root "$1" 2>/dev/null; }
flat() { awk "BEGIN{exit !($(convert "$1" -colorspace Gray -format '%[fx:standard_deviation]' info:) < 0.05)}"; }

win=""
for _ in $(seq 60); do
  sleep 0.5; alive
  win=$(xdotool search --name '^Carrel$' 2>/dev/null | head -1) && [ -n "$win" ] && break
done
[ -n "$win" ] || { echo "no Carrel window" >&2; exit 1; }
xdotool windowmove "$win" 0 0 windowsize "$win" $W $H
for _ in $(seq 40); do sleep 0.5; alive; shot "$work/s.png" && ! flat "$work/s.png" && break; done
sleep 2 # the library list and status arrive after the first paint

# Ask (Ctrl+K focuses the question box), then wait for the answer to finish.
# No window manager under Xvfb: a click on the empty chat area gives the window the focus.
xdotool mousemove $((W / 2)) $((H / 3)) click 1
sleep 0.3
xdotool key ctrl+k
sleep 0.3
xdotool type --delay 15 "$question"
xdotool key Return
sleep "${SCREENSHOT_ANSWER_WAIT:-12}"
alive
# Open that source in the viewer (Alt+↓ works from the question box) and let pdf.js
# draw the page and its highlight.
for _ in $(seq "$nth"); do xdotool key alt+Down; sleep 0.3; done
sleep "${SCREENSHOT_VIEWER_WAIT:-6}"
alive

mkdir -p "$(dirname "$out")"
shot "$work/final.png"
flat "$work/final.png" && { echo "the window is blank" >&2; exit 1; }
convert "$work/final.png" -strip "$out"
echo "wrote $out ($(identify -format '%wx%h' "$out"))"
