#!/usr/bin/env bash
# Package test: installs the .deb with apt on this machine, checks what it put where,
# opens Carrel from its desktop entry's Exec line under Xvfb as a file manager's
# "Open with Carrel" would (a file given, no terminal), launches it a second time with
# another file (the running window must take it: one window, both documents opened),
# runs `carrel --version`, removes the package, and checks that the user's library and
# log were left as they were. What the window shows is read from its visible text
# (CARREL_UI_DUMP, as in the window test). Screenshots land in test-results/package/.
# The package is installed system-wide: one run at a time on a machine (a lock).
# Usage: package-test.sh DEB VERSION   (as root, or with sudo)
set -euo pipefail
deb=$(realpath "${1:?usage: package-test.sh DEB VERSION}")
version=${2:?usage: package-test.sh DEB VERSION}
cd "$(dirname "$0")/.."
exec 9>/tmp/carrel-package-test.lock
flock 9
out=test-results/package
rm -rf "$out"
mkdir -p "$out"
work=$(mktemp -d)
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
apt=($sudo apt-get -o DPkg::Lock::Timeout=900 -y -qq)
app_pid="" xvfb_pid="" bus_pid="" ours=""
cleanup() {
  [ -n "$app_pid" ] && kill "$app_pid" 2>/dev/null || true
  [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null || true
  [ -n "$bus_pid" ] && kill "$bus_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  if [ -n "$ours" ] && dpkg-query -W -f='${Status}' carrel 2>/dev/null | grep -q "install ok installed"; then
    "${apt[@]}" remove carrel >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; [ -f "$log" ] && tail -40 "$log" >&2; exit 1; }

# The user: a fresh home, as a student's would be before the first start.
export HOME=$work/home XDG_CONFIG_HOME=$work/home/.config XDG_STATE_HOME=$work/home/.local/state
export OLLAMA_HOST=127.0.0.1:9 GTK_THEME=Adwaita
unset CARREL_LIBRARY
mkdir -p "$HOME/Documents"
library=$XDG_CONFIG_HOME/Carrel/library
log=$XDG_STATE_HOME/carrel/carrel.log
export CARREL_UI_DUMP=$work/ui.txt

# A Carrel the machine's owner installed is not this test's to replace and remove.
if dpkg-query -W -f='${Status}' carrel 2>/dev/null | grep -q "install ok installed"; then
  echo "FAIL: a carrel package is already installed here ($(dpkg-query -W -f='${Version}' carrel)); the test installs and removes its own: remove it first" >&2
  exit 1
fi

# 1. Install. apt resolves the declared runtime dependencies.
ours=1
"${apt[@]}" install --no-install-recommends "$deb" >/dev/null
[ "$(command -v carrel)" = /usr/bin/carrel ] || fail "carrel is not /usr/bin/carrel after install: $(command -v carrel)"
files=$(dpkg -L carrel)
for f in /usr/bin/carrel /usr/share/applications/carrel.desktop /usr/share/man/man1/carrel.1.gz \
  /usr/share/icons/hicolor/{16x16,22x22,24x24,32x32,48x48,64x64,128x128,256x256,512x512}/apps/carrel.png; do
  grep -qx "$f" <<<"$files" || fail "the package has no $f"
done
desktop-file-validate /usr/share/applications/carrel.desktop || fail "the desktop entry is not valid"
# The desktop database (rebuilt by desktop-file-utils' dpkg trigger) offers Carrel for them.
for m in application/pdf application/epub+zip application/vnd.openxmlformats-officedocument.wordprocessingml.document text/markdown; do
  # awk compares the type as a string: "+" in application/epub+zip is not a pattern.
  awk -F= -v m="$m" '$1 == m && $2 ~ /carrel\.desktop/ {found = 1} END {exit !found}' /usr/share/applications/mimeinfo.cache || fail "$m is not associated with carrel.desktop"
done
zcat /usr/share/man/man1/carrel.1.gz | grep -q '^\.SH NAME' || fail "the man page is not a man page"
deps=$(dpkg-query -W -f='${Depends}' carrel)
for d in libgtk-3-0 libwebkit2gtk-4.0-37 libopenblas0; do
  grep -q "$d" <<<"$deps" || fail "Depends lacks $d: $deps"
done
# Every library the binary loads comes from an installed package.
if ldd /usr/bin/carrel | grep -q "not found"; then fail "missing libraries: $(ldd /usr/bin/carrel | grep 'not found')"; fi
got=$(carrel --version)
[ "$got" = "carrel $version" ] || fail "carrel --version says '$got', want 'carrel $version'"
echo "package test: installed; files, desktop entry, MIME types, man page, dependencies ok; $got"

# 2. Start it as the desktop does: from the entry's Exec line, with a file, no terminal.
W=1280 H=820
for _ in $(seq 50); do n=$((90 + RANDOM % 400)); [ -e /tmp/.X$n-lock ] || [ -e /tmp/.X11-unix/X$n ] || break; done
export DISPLAY=:$n
Xvfb "$DISPLAY" -screen 0 ${W}x${H}x24 -nolisten tcp >"$work/xvfb.log" 2>&1 &
xvfb_pid=$!
for _ in $(seq 50); do xdpyinfo >/dev/null 2>&1 && break; sleep 0.1; done
# A session bus, as every desktop session has: the single-instance hand-over uses it.
bus=$(dbus-daemon --session --fork --print-address=1 --print-pid=1)
export DBUS_SESSION_BUS_ADDRESS=${bus%%$'\n'*}
bus_pid=${bus##*$'\n'}

first=$HOME/Documents/Osmosis\ notes.md
second=$HOME/Documents/Mitosis.md
printf '# Osmosis\n\nWater crosses the semipermeable membrane toward the saltier side.\n' >"$first"
printf '# Mitosis\n\nThe spindle pulls sister chromatids apart during anaphase.\n' >"$second"
exec_line=$(sed -n 's/^Exec=//p' /usr/share/applications/carrel.desktop)
[[ $exec_line == *%F* ]] || fail "the Exec line takes no files: $exec_line"
# launch FILE: the Exec line with %F expanded to FILE, the way a launcher runs it.
launch() {
  local cmd=() w
  for w in $exec_line; do
    if [ "$w" = %F ]; then cmd+=("$1"); else cmd+=("$w"); fi
  done
  (cd "$HOME" && exec setsid "${cmd[@]}" </dev/null >/dev/null 2>&1)
}
grab() { import -window root "$1" 2>/dev/null; }
drawn() { awk "BEGIN{exit !($(convert "$1" -colorspace Gray -format '%[fx:standard_deviation]' info:) > 0.05)}"; }
wait_log() { # wait_log REGEX WHAT
  for _ in $(seq 120); do grep -Eq "$1" "$log" 2>/dev/null && return 0; sleep 0.5; done
  fail "$2 (no '$1' in the log)"
}
shows() { # shows TEXT WHAT: the window's visible text has TEXT
  for _ in $(seq 60); do grep -qF "$1" "$CARREL_UI_DUMP" 2>/dev/null && return 0; sleep 0.5; done
  cp "$CARREL_UI_DUMP" "$out/visible.txt" 2>/dev/null || true
  fail "$2 (the window does not show '$1': $out/visible.txt)"
}

launch "$first" &
launcher=$!
win=""
for _ in $(seq 60); do
  sleep 0.5
  win=$(xdotool search --name '^Carrel$' 2>/dev/null | head -1) && [ -n "$win" ] && break
done
[ -n "$win" ] || fail "no Carrel window from the desktop entry"
app_pid=$(xdotool getwindowpid "$win")
[ "$(readlink "/proc/$app_pid/exe")" = /usr/bin/carrel ] || fail "the window is not /usr/bin/carrel's"
wait_log "opened a document given to Carrel.*Osmosis notes\.md" "the file given on the command line was not opened"
shows "Water crosses the semipermeable membrane" "the given file is not open in the viewer"
shot=$out/opened.png
for _ in $(seq 20); do grab "$shot" && drawn "$shot" && break; sleep 0.5; done
drawn "$shot" || fail "the window is blank ($shot)"
echo "package test: the desktop entry opened a drawn window showing the given file ($shot)"

# 3. A second launch hands its file to the running window and exits.
start=$(date +%s.%N)
launch "$second" &
second_pid=$!
for _ in $(seq 80); do kill -0 "$second_pid" 2>/dev/null || break; sleep 0.25; done
kill -0 "$second_pid" 2>/dev/null && fail "the second launch is still running after 20 s"
wait "$second_pid" || fail "the second launch exited with $?"
handed=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }')
wait_log "a second launch handed over its files.*Mitosis\.md" "the running window did not get the second launch's file"
wait_log "opened a document given to Carrel.*Mitosis\.md" "the second launch's file was not opened"
shows "The spindle pulls sister chromatids apart" "the second launch's file is not open in the viewer"
# GTK gives one window several X windows of the same name (the toplevel and its group
# leader): count the processes that own a visible one.
n=$(for w in $(xdotool search --onlyvisible --name '^Carrel$' 2>/dev/null); do xdotool getwindowpid "$w" 2>/dev/null || true; done | sort -u | wc -l)
[ "$n" -eq 1 ] || fail "$n Carrel processes show a window after the second launch, want 1"
grep -c "Carrel starting" "$log" | grep -qx 1 || fail "a second Carrel started: $(grep 'Carrel starting' "$log")"
grab "$out/second.png"
drawn "$out/second.png" || fail "the window is blank after the hand-over"
echo "package test: a second launch handed its file over in ${handed}s; one window, showing it"

kill "$app_pid"
wait "$launcher" 2>/dev/null || true
for _ in $(seq 40); do kill -0 "$app_pid" 2>/dev/null || break; sleep 0.25; done
app_pid=""

# Both documents are in the user's library (read by the installed CLI).
for q in semipermeable chromatids; do
  carrel search --json --mode lexical "$q" | grep -q '"doc_path"' || fail "the library does not find '$q'"
done
snapshot() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
before=$(snapshot "$library")
logs_before=$(ls "$XDG_STATE_HOME/carrel")

# 4. Remove: the program goes, the user's library and log stay as they were.
"${apt[@]}" remove carrel >/dev/null
[ ! -e /usr/bin/carrel ] || fail "/usr/bin/carrel is still there after removal"
[ ! -e /usr/share/applications/carrel.desktop ] || fail "the desktop entry is still there after removal"
[ "$(snapshot "$library")" = "$before" ] || fail "removing the package changed the user's library"
[ "$(ls "$XDG_STATE_HOME/carrel")" = "$logs_before" ] || fail "removing the package changed the user's log folder"
echo "package test: removed; the user's library ($(wc -l <<<"$before") files) and log untouched"
