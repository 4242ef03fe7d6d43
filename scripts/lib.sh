# shellcheck shell=bash
#
# scripts/lib.sh: functions shared by scripts/setup, scripts/test, scripts/demo, scripts/cluster,
# scripts/tsan and scripts/asan.
# Source it; it defines functions and variables only (no side effects).
#
#   BLUETUSK_ROOT        the repository root (derived from this file's location)
#   BLUETUSK_BUILD_DIR   build directory (default <root>/build)
#   BLUETUSK_BUILD_TYPE  CMake build type (default RelWithDebInfo)
#   BLUETUSK_JOBS        parallel build jobs (default: nproc)
#   BLUETUSK_UNITY_BUILD ON (default) or OFF: whether the test-only builds (scripts/tsan, scripts/asan,
#                        scripts/fuzz, scripts/poco-current) compile each library's sources in batches (the
#                        CMake option BLUETUSK_UNITY_BUILD, 8 files a batch): each batch parses the Poco and
#                        standard headers once (doc/maintaining.md, "Unity builds"). The main build
#                        (scripts/setup) never does: it is the users' build and checks that every file
#                        includes what it uses.
#   BLUETUSK_BUILD_ONLY  1: scripts/tsan, scripts/asan, scripts/fuzz and scripts/poco-current build their folder
#                        and stop (scripts/test's background builds)
#   BLUETUSK_LOCK_SECONDS the longest wait for another build of the same folder (bt_locked; default 3600)
#   BLUETUSK_DEBUG_INFO  full, lines or none: the CMake option BLUETUSK_DEBUG_INFO (-g, -g1, -g0) of every
#                        build these scripts configure; unset, a build folder keeps what it has (new: full).
#                        scripts/test sets lines: about 35-40 % less compile time, backtraces and sanitizer
#                        reports keep their functions and lines (doc/maintaining.md, "CI time")

BLUETUSK_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BLUETUSK_BUILD_DIR="${BLUETUSK_BUILD_DIR:-$BLUETUSK_ROOT/build}"
BLUETUSK_BUILD_TYPE="${BLUETUSK_BUILD_TYPE:-RelWithDebInfo}"
BLUETUSK_JOBS="${BLUETUSK_JOBS:-$(nproc 2>/dev/null || echo 2)}"
BLUETUSK_UNITY_BUILD="${BLUETUSK_UNITY_BUILD:-ON}"
# The configure argument for BLUETUSK_DEBUG_INFO, when the environment sets it: "${bt_debug_info[@]}".
bt_debug_info=()
if [ -n "${BLUETUSK_DEBUG_INFO:-}" ]; then
	bt_debug_info=(-DBLUETUSK_DEBUG_INFO="$BLUETUSK_DEBUG_INFO")
fi

# The Debian packages needed to build, test and run the demo. ninja-build is optional (make is the fallback).
# libkrb5-dev: GSSAPI authentication (Transport); krb5-kdc, krb5-admin-server, krb5-user: scripts/kdc's test KDC.
BLUETUSK_PACKAGES=(cmake g++ make pkg-config libpoco-dev libcppunit-dev postgresql-15 postgresql-client-15
	libpq-dev libbenchmark-dev openssl prometheus-cpp-dev prometheus chromium dpkg-dev time
	pgbouncer gnuplot-nox libkrb5-dev krb5-kdc krb5-admin-server krb5-user)
BLUETUSK_OPTIONAL_PACKAGES=(ninja-build)
# For the Patroni cluster (scripts/patroni, the demo's Patroni step), scripts/failover-bench and scripts/fleet
# (haproxy, python3 for their reports). Installed by those scripts only (bt_ensure_packages), not by scripts/setup.
BLUETUSK_HA_PACKAGES=(patroni etcd-server etcd-client haproxy python3)
# For the pg_auto_failover cluster (scripts/pg-auto-failover): pg_autoctl and the monitor's extension. Installed
# by that script only (bt_ensure_packages).
BLUETUSK_PAF_PACKAGES=(pg-auto-failover-cli postgresql-15-auto-failover)

bt_log()
	# Prints one progress line: "==> message".
{
	printf '==> %s\n' "$*"
}

bt_die()
	# Prints an error to stderr and exits with status 1.
{
	printf 'error: %s\n' "$*" >&2
	exit 1
}

bt_as_root()
	# Runs a command as root: directly when we are root, else through sudo.
{
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		bt_die "need root (or sudo) to run: $*"
	fi
}

bt_reserve_ports()
	# bt_reserve_ports PORT...: adds each PORT to net.ipv4.ip_local_reserved_ports (as root), so that the kernel
	# never gives it to an outgoing connection as its local (ephemeral) port. Linux refuses to bind a listening
	# socket to a port that a live connection on the same address uses as its local port (EADDRINUSE, with
	# SO_REUSEADDR or not), and every port these scripts listen on lies in the default ephemeral range
	# (32768-60999): a long-lived connection (PgBouncer's, a replica's, a test's pool) that drew 55462 keeps a
	# Patroni member from starting. Call it before the connections of a run are opened (scripts/test does, for
	# all its clusters). Ports already reserved are left as they are; without root it only says so.
{
	local file=/proc/sys/net/ipv4/ip_local_reserved_ports missing
	[ -r "$file" ] || return 0
	if [ "$(id -u)" -ne 0 ]; then
		missing="$(bt_unreserved_ports "$file" "$@")"
		[ -z "$missing" ] || bt_log "note: ports $missing not reserved (needs root): a connection that draws one as its local port keeps a server from listening on it"
		return 0
	fi
	(
		flock -w 10 9 || true
		missing="$(bt_unreserved_ports "$file" "$@")"
		[ -n "$missing" ] || exit 0
		local current
		current="$(cat "$file")"
		if echo "${current:+$current,}$missing" 2>/dev/null >"$file"; then
			bt_log "ports $missing reserved (net.ipv4.ip_local_reserved_ports): no outgoing connection gets them as its local port"
		else
			bt_log "note: ports $missing not reserved (could not write $file)"
		fi
	) 9>"/tmp/bluetusk-reserved-ports.lock"
}

bt_unreserved_ports()
	# bt_unreserved_ports FILE PORT...: prints those of PORT (comma-separated) that FILE's list of ports and
	# ranges (net.ipv4.ip_local_reserved_ports' format: "55439,57462-57463") does not cover.
{
	local port range ranges=() missing=()
	IFS=, read -ra ranges <"$1"
	shift
	for port in "$@"; do
		for range in "${ranges[@]}"; do
			if [ "$port" -ge "${range%-*}" ] && [ "$port" -le "${range#*-}" ]; then
				continue 2
			fi
		done
		missing+=("$port")
	done
	(IFS=,; echo "${missing[*]}")
}

bt_port_holders()
	# bt_port_holders ADDRESS PORT: prints the connections (not listening, not TIME_WAIT) whose local address is
	# ADDRESS:PORT, with their processes, and returns 0 when there is one; returns 1 when none (or no ss). For
	# the message of a server that could not bind ADDRESS:PORT: an outgoing connection among them keeps it from
	# binding (see bt_reserve_ports); a server's own accepted sockets, still open after it died, do not.
{
	local holders
	command -v ss >/dev/null 2>&1 || return 1
	holders="$(ss -Htanp state connected exclude time-wait "( src $1:$2 )" 2>/dev/null)" || return 1
	[ -n "$holders" ] || return 1
	printf '%s\n' "$holders"
}

bt_package_installed()
	# True when the Debian package $1 is installed.
{
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

bt_install_packages()
	# Installs the missing packages of BLUETUSK_PACKAGES (and, best effort, the optional ones).
	# Runs "apt-get update" once, only when something is missing.
{
	local missing=() optional=() pkg
	for pkg in "${BLUETUSK_PACKAGES[@]}"; do
		bt_package_installed "$pkg" || missing+=("$pkg")
	done
	for pkg in "${BLUETUSK_OPTIONAL_PACKAGES[@]}"; do
		bt_package_installed "$pkg" || optional+=("$pkg")
	done
	if [ ${#missing[@]} -eq 0 ] && [ ${#optional[@]} -eq 0 ]; then
		bt_log "packages: all present (${BLUETUSK_PACKAGES[*]} ${BLUETUSK_OPTIONAL_PACKAGES[*]})"
		return 0
	fi
	command -v apt-get >/dev/null 2>&1 || bt_die "missing packages (${missing[*]} ${optional[*]}) and no apt-get: install them by hand"
	export DEBIAN_FRONTEND=noninteractive
	bt_log "packages: installing ${missing[*]} ${optional[*]}"
	bt_as_root apt-get update -q
	if [ ${#missing[@]} -gt 0 ]; then
		bt_as_root apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null
	fi
	if [ ${#optional[@]} -gt 0 ]; then
		bt_as_root apt-get install -y -q --no-install-recommends "${optional[@]}" </dev/null \
			|| bt_log "packages: optional ${optional[*]} not installed (falling back)"
	fi
}

bt_ensure_packages()
	# Installs those of the Debian packages named as arguments that are missing (apt-get update once, only
	# when something is missing). For tools one script needs, e.g. scripts/patroni: patroni, etcd-server.
{
	local missing=() pkg
	for pkg in "$@"; do
		bt_package_installed "$pkg" || missing+=("$pkg")
	done
	[ ${#missing[@]} -gt 0 ] || return 0
	command -v apt-get >/dev/null 2>&1 || bt_die "missing packages (${missing[*]}) and no apt-get: install them by hand"
	export DEBIAN_FRONTEND=noninteractive
	bt_log "packages: installing ${missing[*]}"
	bt_as_root apt-get update -q
	bt_as_root apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null
}

bt_generator()
	# The CMake generator: the one an existing build directory was made with, else Ninja when available,
	# else Unix Makefiles.
{
	local cache="$BLUETUSK_BUILD_DIR/CMakeCache.txt"
	if [ -f "$cache" ]; then
		sed -n 's/^CMAKE_GENERATOR:INTERNAL=//p' "$cache"
	elif command -v ninja >/dev/null 2>&1; then
		echo Ninja
	else
		echo "Unix Makefiles"
	fi
}

bt_build()
	# Configures and builds BlueTusk in BLUETUSK_BUILD_DIR. Extra arguments go to the configure step.
{
	local generator
	generator="$(bt_generator)"
	bt_log "configure: cmake -S $BLUETUSK_ROOT -B $BLUETUSK_BUILD_DIR -G \"$generator\" -DCMAKE_BUILD_TYPE=$BLUETUSK_BUILD_TYPE ${bt_debug_info[*]} $*"
	cmake -S "$BLUETUSK_ROOT" -B "$BLUETUSK_BUILD_DIR" -G "$generator" -DCMAKE_BUILD_TYPE="$BLUETUSK_BUILD_TYPE" \
		"${bt_debug_info[@]}" "$@"
	bt_log "build: cmake --build $BLUETUSK_BUILD_DIR -j$BLUETUSK_JOBS"
	cmake --build "$BLUETUSK_BUILD_DIR" -j"$BLUETUSK_JOBS"
}

bt_build_targets()
	# Configures BlueTusk in BLUETUSK_BUILD_DIR (like bt_build) and builds only the targets given as arguments
	# (scripts/demo uses it to skip the test suites).
{
	local generator
	generator="$(bt_generator)"
	bt_log "configure: cmake -S $BLUETUSK_ROOT -B $BLUETUSK_BUILD_DIR -G \"$generator\" -DCMAKE_BUILD_TYPE=$BLUETUSK_BUILD_TYPE"
	cmake -S "$BLUETUSK_ROOT" -B "$BLUETUSK_BUILD_DIR" -G "$generator" -DCMAKE_BUILD_TYPE="$BLUETUSK_BUILD_TYPE" \
		"${bt_debug_info[@]}" >/dev/null
	bt_log "build: cmake --build $BLUETUSK_BUILD_DIR -j$BLUETUSK_JOBS --target $*"
	cmake --build "$BLUETUSK_BUILD_DIR" -j"$BLUETUSK_JOBS" --target "$@"
}

bt_build_only()
	# True when BLUETUSK_BUILD_ONLY=1: scripts/tsan, scripts/asan, scripts/fuzz and scripts/poco-current then
	# build and stop, running nothing (scripts/test's background builds, bt_prebuild).
{
	[ "${BLUETUSK_BUILD_ONLY:-0}" = 1 ]
}

bt_locked()
	# bt_locked DIR COMMAND...: runs COMMAND (a command or a function of the caller) holding an exclusive lock
	# on DIR.lock (flock), waiting for it at most BLUETUSK_LOCK_SECONDS (default 3600): scripts/test builds the
	# test-only folders in the background while the same scripts may want them in the foreground, and two
	# builds must never run in one folder. The second one to come finds the folder built (ninja: no work).
{
	local dir="$1" seconds="${BLUETUSK_LOCK_SECONDS:-3600}"
	shift
	mkdir -p "$(dirname "$dir")"
	(
		if ! flock -n 9; then
			local waited=$(date +%s)
			bt_log "waiting for the other build of $dir to end (at most $seconds s)"
			flock -w "$seconds" 9 || bt_die "waited $seconds s for $dir.lock: another build of $dir did not end"
			bt_log "the other build of $dir ended ($(( $(date +%s) - waited )) s waited)"
		fi
		"$@"
	) 9>"$dir.lock"
}

bt_sanitizer_build()
	# bt_sanitizer_build CMAKE_OPTION SUITE...: bt_sanitizer_suites' configure and build (under its lock).
{
	local option="$1"
	shift
	cmake -S "$BLUETUSK_ROOT" -B "$BLUETUSK_BUILD_DIR" -G "$(bt_generator)" -DCMAKE_BUILD_TYPE=Debug -D"$option"=ON \
		-DBLUETUSK_UNITY_BUILD="$BLUETUSK_UNITY_BUILD" -DBLUETUSK_BUILD_SAMPLES=OFF "${bt_debug_info[@]}" >/dev/null
	cmake --build "$BLUETUSK_BUILD_DIR" -j"$BLUETUSK_JOBS" --target "$@"
}

bt_sanitizer_suites()
	# bt_sanitizer_suites NAME CMAKE_OPTION REPORT_PATTERN SUITE...: builds Debug with CMAKE_OPTION=ON in
	# BLUETUSK_BUILD_DIR (no samples), only the suites given (and the plugins they load), runs each one
	# with its output in BLUETUSK_BUILD_DIR/<suite>.<NAME>.log, and returns 1 when a suite failed or its
	# output holds REPORT_PATTERN (a sanitizer report). Each failed suite also gets a line in
	# BLUETUSK_BUILD_DIR/failed-suites.txt (the suite, then its first report line or failed test) for the
	# summary at the end of scripts/test. The caller exports the sanitizer's options.
{
	local name="$1" option="$2" pattern="$3"
	shift 3
	local started status=0 suite log failed_file="$BLUETUSK_BUILD_DIR/failed-suites.txt"
	started=$(date +%s)
	rm -f "$failed_file"
	bt_install_packages
	bt_log "$name build in $BLUETUSK_BUILD_DIR: $*"
	bt_locked "$BLUETUSK_BUILD_DIR" bt_sanitizer_build "$option" "$@"
	if bt_build_only; then
		bt_log "$name: built ($(( $(date +%s) - started )) s)"
		return 0
	fi
	for suite in "$@"; do
		log="$BLUETUSK_BUILD_DIR/$suite.$name.log"
		if "$BLUETUSK_BUILD_DIR/testsuite/$suite" >"$log" 2>&1 && ! grep -qE "$pattern" "$log"; then
			bt_log "$name: $suite: $(grep -E '^OK \(' "$log" || echo passed)"
		else
			status=1
			bt_log "$name: $suite FAILED (log: $log)"
			grep -E -A30 -m1 "$pattern" "$log" || tail -30 "$log"
			echo "$suite: $(grep -E -m1 "$pattern|^Test name:" "$log" || tail -1 "$log")" >>"$failed_file"
		fi
	done
	bt_log "$name: $([ "$status" -eq 0 ] && echo 'no report' || echo 'FAILED') ($(( $(date +%s) - started )) s)"
	return "$status"
}

bt_cluster_env()
	# Exports the cluster port and directory for scripts/cluster and the test suites (TestEnvironment.h).
{
	export BLUETUSK_CLUSTER_PORT="${BLUETUSK_CLUSTER_PORT:-${BLUETUSK_TEST_PORT:-55432}}"
	export BLUETUSK_TEST_PORT="$BLUETUSK_CLUSTER_PORT"
	export BLUETUSK_CLUSTER_DIR="${BLUETUSK_CLUSTER_DIR:-/tmp/bluetusk-cluster-$BLUETUSK_CLUSTER_PORT}"
	# scripts/kdc's MIT KDC for the cluster's GSSAPI logins: its files (krb5.conf, the servers' keytab) and port
	export BLUETUSK_KDC_DIR="${BLUETUSK_KDC_DIR:-/tmp/bluetusk-kdc-$BLUETUSK_CLUSTER_PORT}"
	export BLUETUSK_KDC_PORT="${BLUETUSK_KDC_PORT:-$((BLUETUSK_CLUSTER_PORT + 11))}"
}
