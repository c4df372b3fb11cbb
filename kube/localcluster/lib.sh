# lib.sh: what up.sh, addnode.sh, rmnode.sh and down.sh share, sourced by
# each with the cluster's dir as the working directory (log/, run/).

# start NAME CMD...: runs a component in the background, its PID and start
# time recorded for down.sh (which ends only processes it finds still ours).
start() {
  local name=$1; shift
  setsid "$@" > "log/$name.log" 2>&1 < /dev/null &
  local pid=$!
  echo "$pid $(awk '{print $22}' /proc/$pid/stat)" > "run/$name.pid"
}
# wait_for WHAT SECONDS CMD...: polls CMD until it succeeds.
wait_for() {
  local what=$1 secs=$2; shift 2
  for _ in $(seq 1 $((secs * 4))); do "$@" >/dev/null 2>&1 && return 0; sleep 0.25; done
  echo "${0##*/}: $what not ready after ${secs}s; its log:" >&2
  tail -20 "log/$what.log" >&2 || true
  return 1
}

# ours PIDFILE: the recorded PID if it still runs the process we started.
ours() {
  local pid start
  read -r pid start 2>/dev/null < "$1" || return 1
  [ -r "/proc/$pid/stat" ] && [ "$(awk '{print $22}' "/proc/$pid/stat" 2>/dev/null)" = "$start" ] && echo "$pid"
}
# descendants PID: every process below PID.
descendants() {
  local kids
  kids=$(ps -o pid= --ppid "$1" 2>/dev/null)
  for k in $kids; do echo "$k"; descendants "$k"; done
}
stop() { # stop NAME: SIGTERM, then SIGKILL after 10 s
  local pid
  pid=$(ours "run/$1.pid") || return 0
  kill -TERM "$pid" 2>/dev/null
  for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.25; done
  kill -KILL "$pid" 2>/dev/null
}
