# scripts/patroni-nodes.sh: scripts/patroni's add-node and remove-node (sourced by scripts/patroni, which
# defines NODES, EXTRA_NODES_FILE, the node_* paths, members, leader_node, start_member, stop_pidfile and the
# rest used here). A member added on 127.0.0.N (N = 4..9) is listed in EXTRA_NODES_FILE, so that every later
# command of scripts/patroni covers it.

member_follows()
	# True when member $1 is a running replica on the leader's timeline, less than 1 MB behind.
{
	local out
	out="$(members 2>/dev/null)" || return 1
	awk -v name="node$1" '
		$3 == "leader" && $4 == "running" { timeline = $5 }
		$1 == name && ($3 == "replica" || $3 == "sync_standby") && ($4 == "streaming" || $4 == "running") && $6 ~ /^[0-9]+$/ && $6 < 1048576 { mine = $5 }
		END { exit !(timeline != "" && mine == timeline) }' <<<"$out"
}

member_gone()
	# True when /cluster answers and does not list member $1.
{
	local out
	out="$(members 2>/dev/null)" || return 1
	! awk '{ print $1 }' <<<"$out" | grep -qx "node$1"
}

add_node()
	# add-node $1: a further replica on 127.0.0.$1 (see the usage above).
{
	local n="$1" started
	started=$(date +%s%N)
	case "$n" in
		4|5|6|7|8|9) ;;
		*) die "add-node: N must be 4..9 (1-3 are the cluster's own members; got '$n')" ;;
	esac
	local m
	for m in "${NODES[@]}"; do
		[ "$m" = "$n" ] && die "node$n is a member already"
	done
	leader_node >/dev/null || die "there is no leader (run: scripts/patroni start)"
	NODES+=("$n")
	as_pg sh -c "echo $n >>'$EXTRA_NODES_FILE'"
	prepare_dir
	write_configs
	start_member "$n"
	wait_until 120 "node$n did not join as a replica on the leader's timeline (log: $(node_dir "$n")/patroni.log)" member_follows "$n"
	log "node$n joined as a replica in $(( ($(date +%s%N) - started) / 1000000 )) ms"
	print_status || true
}

remove_node()
	# remove-node $1: stop member $1 (added with add-node) and delete it from the cluster.
{
	local n="$1" kept m
	case "$n" in
		1|2|3) die "remove-node: node$n is one of the cluster's own members (stop-node loses it for a while)" ;;
	esac
	check_node "$n"
	[ "$(leader_node 2>/dev/null || echo 0)" != "$n" ] || die "node$n is the leader: switch over first (scripts/patroni switchover)"
	log "removing node$n"
	stop_pidfile "$(pid_file "$n")" 60
	stop_postgres_leftover "$n"
	ETCDCTL_API=3 /usr/bin/etcdctl --endpoints="http://127.0.0.1:$ETCD_PORT" del "/bluetusk/$SCOPE/members/node$n" >/dev/null ||
		die "could not delete node$n's member key from etcd"
	kept=""
	for m in "${NODES[@]:3}"; do
		[ "$m" = "$n" ] || kept+="$m"$'\n'
	done
	printf '%s' "$kept" | as_pg tee "$EXTRA_NODES_FILE" >/dev/null
	rm -rf "$(node_dir "$n")"
	wait_until 30 "/cluster still lists node$n" member_gone "$n"
	log "node$n removed"
}
