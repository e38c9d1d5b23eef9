#!/usr/bin/env bash
# A private single-node Slurm cluster that lives entirely in one folder, for
# testing `grade batch --slurm` against real Slurm daemons (Debian's slurmctld,
# slurmd and munge packages) without touching a system Slurm or munge:
#
#   minicluster.sh check        exit 0 if a cluster can be started here, else
#                               exit 77 and say why (missing programs, not root)
#   minicluster.sh start DIR [OWNER_PID]
#                               munged, slurmctld and slurmd with their key,
#                               sockets, ports, state, spool, pid and log files
#                               all in DIR; returns once the node is idle and
#                               prints the environment clients need. With
#                               OWNER_PID, a watcher stops the cluster if that
#                               process dies without stopping it (a killed test)
#   minicluster.sh stop DIR     cancels every job, kills the daemons and every
#                               process started under them; safe to repeat
#   minicluster.sh logs DIR     prints the daemons' logs (for failure reports)
#
# Client commands need SLURM_CONF=DIR/slurm.conf (`start` prints the line).
# Every process the cluster starts, jobs included (through a TaskProlog),
# carries SG_MINICLUSTER=DIR in its environment: that is how `stop` finds them.
set -uo pipefail
# Started from a shell that holds the marker (e.g. a job's): drop it, or `stop`
# would find this very script (and its subshells) among the cluster's processes.
[ -n "${SG_MINICLUSTER:-}" ] && exec env -u SG_MINICLUSTER bash "$0" "$@"

die() { echo "minicluster: $*" >&2; exit 1; }

SELF="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"

# Debian puts the daemons in /usr/sbin, which a non-login PATH may lack.
export PATH="$PATH:/usr/sbin:/sbin"
readonly NEEDED=(munged slurmctld slurmd sbatch squeue sinfo scontrol scancel)

check() {
  local missing=()
  for p in "${NEEDED[@]}"; do command -v "$p" >/dev/null || missing+=("$p"); done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "not installed: ${missing[*]} (Debian: apt-get install slurmctld slurmd slurm-client munge)"
    return 77
  fi
  # slurmd must start job steps as the submitting user, and munged and the
  # daemons write root-owned state: this needs root.
  if [ "$(id -u)" != 0 ]; then
    echo "needs root to start slurmd/slurmctld/munged (running as uid $(id -u))"
    return 77
  fi
  return 0
}

# TCP ports that something on this machine already holds (any state).
used_ports() {
  local f _sl local_addr _rest
  for f in /proc/net/tcp /proc/net/tcp6; do
    [ -r "$f" ] || continue
    # local_address is HEXIP:HEXPORT; the first line is a header.
    while read -r _sl local_addr _rest; do
      [[ "$local_addr" == *:* ]] && echo $((16#${local_addr##*:}))
    done <"$f"
  done
}

# A port in 20000-59999 that nothing holds and that is not in "$@", so a system
# Slurm (6817/6818) or another minicluster is never hit.
free_port() {
  local used p
  used=" $(used_ports | tr '\n' ' ') $* "
  for _ in $(seq 200); do
    p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
    [[ "$used" == *" $p "* ]] || { echo "$p"; return 0; }
  done
  return 1
}

# Pids of live processes whose environment holds SG_MINICLUSTER=$1.
marked_pids() {
  grep -lzxF "SG_MINICLUSTER=$1" /proc/[0-9]*/environ 2>/dev/null | sed 's,^/proc/\([0-9]*\)/environ$,\1,'
}

logs() {
  local dir=$1 name f
  for name in munged slurmctld slurmd watch; do
    # The .out files hold what a daemon said before its log file was open.
    f="$dir/$name.log"
    [ -s "$f" ] || f="$dir/$name.out"
    [ -s "$f" ] || continue
    echo "===== $f (last 60 lines)"
    tail -n 60 "$f"
  done
}

# Starts "$@" in its own session (so its process group can be killed as one),
# with the marker in its environment; records its pid in $dir/$name.pid.
launch() {
  local name=$1; shift
  SG_MINICLUSTER="$dir" setsid "$@" </dev/null >"$dir/$name.out" 2>&1 &
  echo $! >"$dir/$name.pid"
}

# A failed start: show why, stop what did start, exit 1.
fail() {
  logs "$dir" >&2
  stop "$dir"
  die "$*"
}

alive() { [ -s "$dir/$1.pid" ] && kill -0 "$(cat "$dir/$1.pid")" 2>/dev/null; }

start() {
  dir=$1
  local owner=${2:-}
  mkdir -p "$dir" || die "cannot create $dir"
  dir=$(cd "$dir" && pwd -P)
  local why
  why=$(check) || die "$why"
  [ -e "$dir/slurm.conf" ] && die "$dir already holds a cluster; stop it first or use a new folder"
  if [ -n "$owner" ]; then
    kill -0 "$owner" 2>/dev/null || die "owner process $owner does not exist"
    # Not marked: `stop` ends it by its pid, and it must outlive the daemons it stops.
    setsid bash "$SELF" watch "$dir" "$owner" </dev/null >"$dir/watch.out" 2>&1 &
    echo $! >"$dir/watch.pid"
  fi
  # munged insists that its key and folders are not writable by others, and
  # wants its socket's folder searchable by all.
  chmod 0711 "$dir"
  mkdir -p "$dir/state" "$dir/spool" || die "cannot create $dir/state"

  # --- munge: its own key and socket, so it never talks to a system munged.
  if ! { head -c 1024 /dev/urandom >"$dir/munge.key" && chmod 0400 "$dir/munge.key"; }; then
    fail "cannot write the munge key"
  fi
  local sock="$dir/munge.socket"
  launch munged munged --foreground --force --socket="$sock" --key-file="$dir/munge.key" \
    --pid-file="$dir/munged.pidfile" --log-file="$dir/munged.log" --seed-file="$dir/munged.seed"
  for _ in $(seq 100); do [ -S "$sock" ] && break; alive munged || break; sleep 0.1; done
  [ -S "$sock" ] || fail "munged did not start (no socket $sock)"

  # --- slurm.conf: one node with every CPU, everything inside $dir.
  local host cpus ctld_port slurmd_port
  # slurmd's own name for this node; its address is pinned to 127.0.0.1
  # below, so the name need not resolve.
  host=$(uname -n)
  host=${host%%.*}
  [ -n "$host" ] || fail "no host name"
  cpus=$(nproc)
  ctld_port=$(free_port) || fail "no free TCP port found"
  slurmd_port=$(free_port "$ctld_port") || fail "no free TCP port found"
  # Puts the marker into every job's environment, however it was submitted.
  printf '#!/bin/sh\necho "export SG_MINICLUSTER=%s"\n' "$dir" >"$dir/task_prolog.sh" && chmod 0755 "$dir/task_prolog.sh"
  cat >"$dir/slurm.conf" <<EOF
# Written by grader/tools/slurm/minicluster.sh: a private one-node cluster.
ClusterName=sgtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pidfile
SlurmdPidFile=$dir/slurmd.pidfile
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
TaskProlog=$dir/task_prolog.sh
# No cgroups: they need a systemd-managed hierarchy a CI container may lack.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
# Cores only: the node declares no memory, so jobs must not be sized by it.
SelectTypeParameters=CR_Core
MpiDefault=none
MailProg=/bin/true
SwitchType=switch/none
# Trust the node line below even where slurmd counts sockets/cores/threads
# differently (VMs, containers): it must not be drained for that.
SlurmdParameters=config_overrides
# The node is idle as soon as slurmd registers, even after an earlier run.
ReturnToService=2
# Keep finished jobs visible to scontrol while the test reads their state.
MinJobAge=600
# Quick failure detection and clean-up: this is a test cluster.
SlurmdTimeout=30
KillWait=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  # Clients need only the private config (not the marker: `stop` would kill a shell holding it).
  printf 'export SLURM_CONF=%q\n' "$dir/slurm.conf" >"$dir/env.sh"
  export SLURM_CONF="$dir/slurm.conf"

  # -D: stay in the foreground so the pid we record is the daemon's own.
  launch slurmctld slurmctld -D -f "$dir/slurm.conf"
  launch slurmd slurmd -D -f "$dir/slurm.conf" -N "$host"

  # Ready when the node is idle (it is UNKNOWN until slurmd registers).
  local state=""
  for _ in $(seq 300); do
    state=$(sinfo -h -n "$host" -o %T 2>/dev/null | head -n1)
    [ "$state" = idle ] && break
    { alive slurmctld && alive slurmd; } || break
    sleep 0.1
  done
  [ "$state" = idle ] || fail "node $host not idle after 30 s (state '${state:-none}'); logs above"
  cat "$dir/env.sh"
}

# Sends `sig` to each recorded daemon's process group.
signal_daemons() {
  local sig=$1 name pid
  shift
  for name in "$@"; do
    [ -s "$dir/$name.pid" ] || continue
    pid=$(cat "$dir/$name.pid")
    kill -"$sig" -- "-$pid" 2>/dev/null
  done
}

# Waits up to $1 tenths of a second for the named daemons to exit.
wait_daemons() {
  local tenths=$1 name any
  shift
  for _ in $(seq "$tenths"); do
    any=0
    for name in "$@"; do alive "$name" && any=1; done
    [ $any = 0 ] && return 0
    sleep 0.1
  done
  return 1
}

# Stops the cluster in $1 once process $2 has gone, unless stopped before.
watch() {
  dir=$1
  while kill -0 "$2" 2>/dev/null; do
    [ -d "$dir" ] || return 0
    sleep 1
  done
  [ -d "$dir" ] && { echo "minicluster: owner $2 ended without stopping the cluster; stopping it"; stop "$dir"; }
}

stop() {
  dir=$1
  [ -d "$dir" ] || return 0
  dir=$(cd "$dir" && pwd -P)
  # Nothing of ours here (a wrong folder): nothing to stop.
  [ -e "$dir/watch.pid" ] || [ -e "$dir/munge.key" ] || { echo "minicluster: no cluster was started in $dir" >&2; return 0; }
  # The watcher has nothing left to do (unless it is the one stopping).
  if [ -s "$dir/watch.pid" ] && [ "$(cat "$dir/watch.pid")" != "$$" ]; then
    kill -TERM -- "-$(cat "$dir/watch.pid")" 2>/dev/null
  fi
  if [ -e "$dir/slurm.conf" ] && alive slurmctld; then
    # Let slurmd end the jobs first: it kills each job's whole process tree.
    export SLURM_CONF="$dir/slurm.conf"
    local jobs
    jobs=$(timeout 10 squeue -h -o %A 2>/dev/null | sort -u)
    # shellcheck disable=SC2086
    [ -n "$jobs" ] && timeout 10 scancel --quiet $jobs 2>/dev/null
    for _ in $(seq 50); do
      [ -z "$(timeout 5 squeue -h -o %i 2>/dev/null)" ] && break
      sleep 0.1
    done
  fi
  signal_daemons TERM slurmd slurmctld
  wait_daemons 50 slurmd slurmctld || { signal_daemons KILL slurmd slurmctld; wait_daemons 20 slurmd slurmctld; }
  # Anything left that the cluster started (slurmstepd, job scripts, graders).
  local pids
  for _ in $(seq 20); do
    pids=$(marked_pids "$dir" | grep -vxF "$(cat "$dir/munged.pid" 2>/dev/null)")
    [ -z "$pids" ] && break
    # shellcheck disable=SC2086
    kill -KILL $pids 2>/dev/null
    sleep 0.1
  done
  # munged last: slurm needs it until the very end.
  signal_daemons TERM munged
  wait_daemons 30 munged || { signal_daemons KILL munged; wait_daemons 20 munged; }
  pids=$(marked_pids "$dir")
  if [ -n "$pids" ]; then
    # shellcheck disable=SC2086
    kill -KILL $pids 2>/dev/null
    sleep 0.2
    pids=$(marked_pids "$dir")
    [ -z "$pids" ] || { echo "minicluster: processes left behind: $pids" >&2; return 1; }
  fi
  return 0
}

case "${1:-}" in
  check) check ;;
  start) [ $# = 2 ] || [ $# = 3 ] || die "usage: $0 start DIR [OWNER_PID]"; start "$2" "${3:-}" ;;
  watch) [ $# = 3 ] || die "usage: $0 watch DIR OWNER_PID"; watch "$2" "$3" ;;
  stop) [ $# = 2 ] || die "usage: $0 stop DIR"; stop "$2" ;;
  logs) [ $# = 2 ] || die "usage: $0 logs DIR"; logs "$2" ;;
  *) echo "usage: $0 check | start DIR | stop DIR | logs DIR" >&2; exit 2 ;;
esac
