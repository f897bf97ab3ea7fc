# shellcheck shell=bash
# Sourced (not run) by the scripts that open the app under Xvfb.
#
# start_xvfb SCREEN DIR starts Xvfb with one screen of SCREEN (WxHxDEPTH), lets Xvfb pick a
# free display itself (-displayfd: it writes the number once it accepts connections, so
# two scripts started together cannot race for one number, and nothing polls a display
# that is not there yet), checks with xdpyinfo that the display answers, and sets DISPLAY
# (exported) and xvfb_pid; Xvfb's output goes to DIR/xvfb.log. It waits at most
# XVFB_TIMEOUT seconds (default 30: Xvfb is ready in well under a second on a quiet
# machine, a few at load 15) and otherwise stops Xvfb and fails with its log, rather than
# letting the app start on a display that is not there ("failed to init GTK").
start_xvfb() {
  local screen=$1 dir=$2 n="" deadline
  deadline=$((SECONDS + ${XVFB_TIMEOUT:-30}))
  : >"$dir/xvfb.display"
  Xvfb -displayfd 3 -screen 0 "$screen" -nolisten tcp 3>"$dir/xvfb.display" >"$dir/xvfb.log" 2>&1 &
  xvfb_pid=$!
  # read succeeds only on a whole line: Xvfb writes "N\n" once it is ready.
  until read -r n <"$dir/xvfb.display" && [[ $n =~ ^[0-9]+$ ]]; do
    if ! kill -0 "$xvfb_pid" 2>/dev/null; then
      cat "$dir/xvfb.log" >&2
      echo "FAIL: Xvfb exited before its display was ready (its log is above)" >&2
      xvfb_pid=""
      return 1
    fi
    if ((SECONDS >= deadline)); then
      cat "$dir/xvfb.log" >&2
      echo "FAIL: Xvfb gave no display within ${XVFB_TIMEOUT:-30} s (XVFB_TIMEOUT; its log is above)" >&2
      kill "$xvfb_pid" 2>/dev/null || true
      xvfb_pid=""
      return 1
    fi
    sleep 0.05
  done
  export DISPLAY=:$n
  until xdpyinfo -display "$DISPLAY" >/dev/null 2>&1; do
    if ! kill -0 "$xvfb_pid" 2>/dev/null || ((SECONDS >= deadline)); then
      cat "$dir/xvfb.log" >&2
      echo "FAIL: Xvfb's display $DISPLAY does not answer xdpyinfo within ${XVFB_TIMEOUT:-30} s (XVFB_TIMEOUT; its log is above)" >&2
      kill "$xvfb_pid" 2>/dev/null || true
      xvfb_pid=""
      return 1
    fi
    sleep 0.05
  done
}
