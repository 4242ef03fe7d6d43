# shellcheck shell=bash
#
# scripts/cluster-lib.sh: the helpers the three cluster managers share (scripts/cluster, scripts/patroni,
# scripts/pg-auto-failover): messages, the nodes' addresses and directories, daemons run as the postgres user
# in their own session, pid files, waits, a lock. It defines functions only; they use DIR (the cluster's state
# directory), NODES (the node numbers) and BT_TOOL (the manager's name in messages, default: the script's
# file name). A manager may redefine one after sourcing (scripts/cluster's as_pg keeps runuser's environment).
# spawn() writes the daemon's output to the file named by LOGFILE.

log()
{
	printf '==> %s: %s
' "${BT_TOOL:-$(basename "$0")}" "$*"
}


die()
{
	printf '%s: error: %s\n' "${BT_TOOL:-$(basename "$0")}" "$*" >&2
	exit 1
}


node_ip()    { echo "127.0.0.$1"; }
node_dir()   { echo "$DIR/node$1"; }
data_dir()   { echo "$(node_dir "$1")/data"; }
socket_dir() { echo "$(node_dir "$1")/socket"; }


check_node()
	# Dies unless $1 is one of NODES.
{
	local n
	for n in "${NODES[@]}"; do
		[ "${1:-}" = "$n" ] && return 0
	done
	die "node must be one of ${NODES[*]} (got '${1:-}')"
}

is_root()
{
	[ "$(id -u)" -eq 0 ]
}


as_pg()
	# Runs a command as the postgres user when we are root (etcd, Patroni and PostgreSQL refuse root).
{
	if is_root; then
		setpriv --reuid=postgres --regid=postgres --init-groups --reset-env "$@" 9<&-
	else
		"$@" 9<&-
	fi
}


pid_alive()
	# True when the process whose id is in file $1 runs (and is not a zombie).
{
	local pid state
	[ -f "$1" ] || return 1
	pid="$(cat "$1" 2>/dev/null)"
	[ -n "$pid" ] || return 1
	state="$(ps -o stat= -p "$pid" 2>/dev/null || true)"
	[ -n "$state" ] && [ "${state:0:1}" != Z ]
}


spawn()
	# Starts a long-running command $2... as postgres in its own session; its process id goes to file $1,
	# its output to file $LOGFILE.
{
	local pidfile="$1"
	shift
	# The daemon keeps no descriptor of ours beyond 0-2 (a pipe it inherited would keep a caller that
	# reads our output, e.g. a test, waiting for as long as the daemon runs).
	local detach='for fd in /proc/$$/fd/*; do fd=${fd##*/}; [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done; echo $$ >"$0"'
	if is_root; then
		setsid bash -c "$detach"'; exec setpriv --reuid=postgres --regid=postgres --init-groups --reset-env "$@"' \
			"$pidfile" "$@" >>"$LOGFILE" 2>&1 </dev/null &
	else
		setsid bash -c "$detach"'; exec "$@"' "$pidfile" "$@" >>"$LOGFILE" 2>&1 </dev/null &
	fi
	local i
	for i in $(seq 1 50); do
		[ -s "$pidfile" ] && return 0
		sleep 0.1
	done
	die "could not start $1"
}


wait_until()
	# Runs command $3... every 0.2 s until it succeeds or $1 seconds pass; then dies with message $2.
{
	local seconds="$1" message="$2" deadline
	shift 2
	deadline=$(( $(date +%s) + seconds ))
	until "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -lt "$deadline" ] || die "$message (after $seconds s)"
		sleep 0.2
	done
}


port_in_use()
	# True when something accepts TCP connections on $1:$2.
{
	timeout 1 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null
}

require_port_free()
	# require_port_free ADDRESS PORT SETTING: dies when a process listens on ADDRESS:PORT; SETTING is the
	# variable that picks another port. (Connections that use the port as their local port are not checked
	# here: most do not keep a server from binding, e.g. a killed server's accepted sockets waiting for their
	# peers to close; a start that fails prints them, see bt_port_holders in scripts/lib.sh.)
{
	if port_in_use "$1" "$2"; then
		die "$1:$2 is in use by another process (set $3)"
	fi
}


stop_pidfile()
	# Sends SIGTERM to the process in file $1 (continuing it first, in case it is frozen) and waits up to
	# $2 seconds for it to end; then SIGKILL.
{
	local file="$1" seconds="$2" pid i
	pid_alive "$file" || { rm -f "$file"; return 0; }
	pid="$(cat "$file")"
	kill -CONT "$pid" 2>/dev/null || true
	kill -TERM "$pid" 2>/dev/null || true
	for i in $(seq 1 $((seconds * 10))); do
		pid_alive "$file" || { rm -f "$file"; return 0; }
		sleep 0.1
	done
	log "pid $pid did not end in $seconds s: killing it"
	kill -KILL "$pid" 2>/dev/null || true
	sleep 0.2
	rm -f "$file"
}


lock_cluster()
	# Serializes commands that change the cluster.
{
	local file="$DIR.lock"
	[ -e "$file" ] || ( umask 000; : >"$file" ) 2>/dev/null || true
	exec 9<"$file" || die "cannot open $file"
	flock -w 300 9 || die "another scripts/${BT_TOOL:-$(basename "$0")} command holds $file"
}
