#!/usr/bin/env bash
# Footprint of the desktop app on an empty library, under Xvfb, no Ollama: how long the
# window takes to map after launch, how long until it shows the page (DRAWN=the
# internal/bench/drawn helper: more than a plain fill), the CPU seconds the app's own
# process used until it mapped (less shaken by a busy machine than the wall time), and
# the CPU seconds WebKit's web process used until the window was drawn (the page's own
# cost: parsing, running and laying it out, the steadiest figure on a busy machine), and
# the memory (PSS, from /proc/PID/smaps_rollup) of
# Carrel and its WebKit helper processes once idle; plus the CLI's peak RSS for `status`.
# Each figure is the median of RUNS launches (default 3), each with a fresh home and
# library. CACHE=warm (the default) keeps the compiled-PDFium cache between them, as on a
# user's machine after the first start; CACHE=cold gives each launch an empty one, as at
# the very first start (give it IDLE_SECONDS for compiling, ~15 s on a calm machine).
# Usage: [CACHE=warm|cold] footprint.sh BINARY [RUNS] [IDLE_SECONDS]
set -euo pipefail
bin=$(realpath "${1:-build/bin/carrel}")
runs=${2:-3}
idle=${3:-20}
work=$(mktemp -d)
app_pid="" xvfb_pid=""
cleanup() {
  [ -n "$app_pid" ] && kill "$app_pid" 2>/dev/null || true
  [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# Xvfb on a display it picks, ready before anything is launched (scripts/xvfb.sh; before,
# a 5 s poll ran out at load and the app met no display: "failed to init GTK").
# shellcheck source=scripts/xvfb.sh
source "$(dirname "${BASH_SOURCE[0]}")/xvfb.sh"
start_xvfb 1280x820x24 "$work"
cache=${CACHE:-warm}
warm_cache=${CARREL_CACHE_DIR:-$HOME/.cache/carrel-footprint}
export OLLAMA_HOST=127.0.0.1:9 GTK_THEME=Adwaita
unset DBUS_SESSION_BUS_ADDRESS

# descendants PID: PID and every process below it (WebKit's web and network processes).
descendants() {
  local p
  echo "$1"
  for p in $(ps -o pid= --ppid "$1"); do descendants "$p"; done
}
# kb FIELD PID: a field of smaps_rollup in kB (0 for a process gone meanwhile).
kb() { awk -v f="$1:" '$1 == f { print $2; found = 1 } END { if (!found) print 0 }' "/proc/$2/smaps_rollup" 2>/dev/null || echo 0; }
# cpu PID: the user and system CPU seconds PID has used so far.
cpu() { awk -v t="$(getconf CLK_TCK)" '{ split(substr($0, index($0, ")") + 2), f, " "); printf "%.2f", (f[12] + f[13]) / t }' "/proc/$1/stat"; }
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# measure BIN HOME LOG: launches BIN, waits for its window, idles, and sets map_s (seconds
# until the window mapped) and the PSS in kB of its whole process tree (total) and of the
# main process (app, anon).
measure() {
  local home=$2 p pss mapped="" start
  mkdir -p "$home"
  start=$(date +%s%N)
  HOME=$home XDG_CONFIG_HOME=$home/.config XDG_STATE_HOME=$home/.local/state \
    "$1" --library "$home/library" >"$3" 2>&1 &
  app_pid=$!
  for _ in $(seq 1500); do
    if xdotool search --onlyvisible --name '^Carrel$' >/dev/null 2>&1; then mapped=$(date +%s%N); break; fi
    kill -0 "$app_pid" 2>/dev/null || { cat "$3" >&2; echo "FAIL: $1 exited" >&2; exit 1; }
    sleep 0.01
  done
  [ -n "$mapped" ] || { echo "FAIL: no window from $1 in 15 s" >&2; exit 1; }
  map_s=$(awk -v a="$start" -v b="$mapped" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
  cpu_s=$(cpu "$app_pid")
  drawn_s="" web_s=""
  if [ -n "${DRAWN:-}" ]; then
    local win drawn
    win=$(xdotool search --onlyvisible --name '^Carrel$' | head -1)
    drawn=$("$DRAWN" "$win") || { echo "FAIL: $1's window was not drawn" >&2; exit 1; }
    drawn_s=$(awk -v a="$start" -v b="$drawn" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
    for p in $(descendants "$app_pid"); do
      if grep -q '^WebKitWebProces' "/proc/$p/comm" 2>/dev/null; then web_s=$(cpu "$p"); break; fi
    done
  fi
  sleep "$idle"
  total=0 app=0 anon=0
  for p in $(descendants "$app_pid"); do
    pss=$(kb Pss "$p")
    total=$((total + pss))
    if [ "$p" = "$app_pid" ]; then app=$pss; anon=$(kb Pss_Anon "$p"); fi
  done
  kill "$app_pid"
  wait "$app_pid" 2>/dev/null || true
  app_pid=""
}
mb() { awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }

# The anchor (ANCHOR=path of a hello-world Wails app, internal/bench/hellowails) runs
# right after each Carrel launch, so both see the same machine.
anchor=${ANCHOR:-}
maps=() totals=() apps=() anons=() helpers=() amaps=() atotals=() cpus=() draws=() acpus=() adraws=() webs=() awebs=()
for r in $(seq "$runs"); do
  home=$work/home$r
  mkdir -p "$home"
  if [ "$cache" = cold ]; then export CARREL_CACHE_DIR=$home/.cache/carrel; else export CARREL_CACHE_DIR=$warm_cache; fi
  measure "$bin" "$home" "$work/app$r.log"
  echo "run $r: window mapped after ${map_s} s (CPU ${cpu_s} s)${drawn_s:+, drawn after $drawn_s s}${web_s:+ (web process CPU $web_s s)}; idle PSS $(mb $total) MB (Carrel $(mb $app) MB, of which anonymous $(mb $anon) MB; WebKit helpers $(mb $((total - app))) MB)"
  maps+=("$map_s") cpus+=("$cpu_s") draws+=("${drawn_s:-0}") webs+=("${web_s:-0}") totals+=("$(mb $total)") apps+=("$(mb $app)") anons+=("$(mb $anon)") helpers+=("$(mb $((total - app)))")
  if [ -n "$anchor" ]; then
    measure "$anchor" "$work/anchor$r" "$work/anchor$r.log"
    echo "run $r: anchor (hello-world Wails) mapped after ${map_s} s (CPU ${cpu_s} s)${drawn_s:+, drawn after $drawn_s s}${web_s:+ (web process CPU $web_s s)}; idle PSS $(mb $total) MB"
    amaps+=("$map_s") acpus+=("$cpu_s") adraws+=("${drawn_s:-0}") awebs+=("${web_s:-0}") atotals+=("$(mb $total)")
  fi
done

# The CLI: peak resident memory of `carrel status` on the same kind of library.
HOME=$work/home1 /usr/bin/time -o "$work/cli.time" -f '%M' "$bin" --library "$work/home1/library" status >/dev/null 2>&1 || true
cli_kb=$(tail -1 "$work/cli.time")
spread() { sort -n | awk '{ a[NR] = $1 } END { printf "%s-%s", a[1], a[NR] }'; }
line="footprint window_s=$(printf '%s\n' "${maps[@]}" | median) ($(printf '%s\n' "${maps[@]}" | spread)) idle_pss_mb=$(printf '%s\n' "${totals[@]}" | median) ($(printf '%s\n' "${totals[@]}" | spread))"
line="$line cpu_to_map_s=$(printf '%s\n' "${cpus[@]}" | median)"
[ -n "${DRAWN:-}" ] && line="$line drawn_s=$(printf '%s\n' "${draws[@]}" | median) ($(printf '%s\n' "${draws[@]}" | spread)) web_cpu_to_drawn_s=$(printf '%s\n' "${webs[@]}" | median)"
line="$line app_pss_mb=$(printf '%s\n' "${apps[@]}" | median) app_anon_mb=$(printf '%s\n' "${anons[@]}" | median)"
line="$line helpers_pss_mb=$(printf '%s\n' "${helpers[@]}" | median) cli_status_rss_mb=$((cli_kb / 1024))"
if [ -n "$anchor" ]; then
  aw=$(printf '%s\n' "${amaps[@]}" | median) am=$(printf '%s\n' "${atotals[@]}" | median)
  line="$line anchor_window_s=$aw anchor_cpu_to_map_s=$(printf '%s\n' "${acpus[@]}" | median)"
  [ -n "${DRAWN:-}" ] && line="$line anchor_drawn_s=$(printf '%s\n' "${adraws[@]}" | median) anchor_web_cpu_to_drawn_s=$(printf '%s\n' "${awebs[@]}" | median)"
  line="$line anchor_idle_pss_mb=$am"
  line="$line window_ratio=$(awk -v a="$(printf '%s\n' "${maps[@]}" | median)" -v b="$aw" 'BEGIN { printf "%.2f", a / b }')"
  line="$line pss_ratio=$(awk -v a="$(printf '%s\n' "${totals[@]}" | median)" -v b="$am" 'BEGIN { printf "%.2f", a / b }')"
fi
echo "$line (median (min-max) of $runs, idle ${idle} s, $cache PDFium cache, load $(cut -d' ' -f1-3 /proc/loadavg))"
