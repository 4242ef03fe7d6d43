//
// SessionControl.h
//
// Library: BlueTusk/Transport
//
// The pool's and the router's side of a Session: role probes, the reset on return, the end of a lease.
//

#ifndef BlueTusk_SessionControl_INCLUDED
#define BlueTusk_SessionControl_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/Lsn.h"
#include "BlueTusk/PreparedStatement.h"
#include "BlueTusk/TargetSessionAttributes.h"
#include "Poco/Timespan.h"
#include "Poco/Types.h"
#include <atomic>
#include <memory>

namespace BlueTusk {

class Session;


struct BlueTusk_Transport_API StatementCounters
	/// StatementStatistics that several sessions add to and another thread reads (a pool's sums).
	/// Thread-safe (relaxed atomics: each counter is exact, a snapshot is not one instant).
{
	std::atomic<Poco::UInt64> prepared{0};
	std::atomic<Poco::UInt64> cacheHits{0};
	std::atomic<Poco::UInt64> evictions{0};
	std::atomic<Poco::UInt64> reprepared{0};

	StatementStatistics snapshot() const;
};


class BlueTusk_Transport_API SessionControl
	/// The hooks the pool (Pooling) and the router (Routing) call on a session, kept off Session, which
	/// is what an application uses: role probes and refreshes, the reset on return, the end of a lease,
	/// the pool's statement counters. For the pool and the router (and a Session implementation, which
	/// provides one: Session::control()), not for applications: on a pooled session these belong to
	/// the pool. ProtocolSession is both its Session and its SessionControl; so is the tests' fake.
	///
	/// The defaults below use the controlled Session's own API (parameterStatus(), isFetching(),
	/// endFetch(), isBroken()), given to the constructor.
	///
	/// Thread-safety: as the session's (one thread at a time).
{
public:
	virtual ~SessionControl();

	virtual ServerRole reportedRole() const;
		/// The role the server's ParameterStatus values give (in_hot_standby, default_transaction_read_only;
		/// PostgreSQL 14+ sends both at startup and on change), with no I/O; ServerRole::Unknown when it did
		/// not send both. As of the last message received: an idle session does not see a promotion.

	virtual bool roleChangeSuspected() const;
		/// True after the server refused a command with SQLSTATE 25006 (read_only_sql_transaction) while the
		/// session's known role (or, unprobed, its reported role) was Primary: a wrong-node answer, e.g. a
		/// server made read-only under the session, or a proxy that moved the connection to a standby (the
		/// known role is then Unknown); or after a ParameterStatus (in_hot_standby,
		/// default_transaction_read_only) changed the known role, e.g. a standby promoted while a strict
		/// standby lease ran a query (role() then gives the new role). probeRole() clears it. The error
		/// itself reaches the caller as usual (nothing is re-run). BlueTuskConnection::close() re-probes
		/// such a session and records the role for its endpoint (doc/high-availability.md). Default: false.

	virtual ServerRole probeRole(bool force) = 0;
		/// Determines the role: unless force, from the ParameterStatus values in_hot_standby and
		/// default_transaction_read_only when the server sent them (the real session: once a probe has
		/// shown the peer is the server, not a pooler replaying them, doc/poolers.md), or from a probe
		/// answered since the session's last other command (the startup's, for a session just opened);
		/// otherwise (or when forced) with one round trip
		/// "SELECT pg_is_in_recovery(), current_setting('transaction_read_only'), pg_backend_pid()",
		/// bounded by the settings' Timeout unless a shorter Command Timeout bounds it.
		/// Throws BlueTuskSessionBrokenException / BlueTuskServerException on failure.

	virtual ServerRole probeRoleAndWal(Lsn& replayed, Lsn& received);
		/// As probeRole(true), in the same one round trip, also the session's WAL positions (for the
		/// freshness rules, doc/freshness.md): on a standby replayed is pg_last_wal_replay_lsn() and
		/// received pg_last_wal_receive_lsn(); 0/0 on a primary (where both are NULL) or when the server
		/// did not say. "SELECT pg_is_in_recovery(), current_setting('transaction_read_only'),
		/// pg_last_wal_replay_lsn(), pg_last_wal_receive_lsn()" (executable by any user). The default implementation
		/// calls probeRole(true) and leaves both 0/0. Throws like probeRole().

	virtual ServerRole refreshRole();
		/// Refreshes the role with the cheapest round trip that gives a fresh one (doc/pooling.md, "Role
		/// refresh"): a PostgreSQL 14+ server reports in_hot_standby and default_transaction_read_only in
		/// ParameterStatus messages in front of a ReadyForQuery whenever they changed (it rechecks recovery
		/// at each ReadyForQuery, so a promotion shows), so a bare Sync does, or the deferred reset when one
		/// is pending (its ReadyForQuery carries them too). A server that did not report both at startup
		/// (before 14) gets probeRole(true). A primary becomes a standby only by a restart, which ends the
		/// connection: the round trip then fails. Throws like probeRole(). The default calls probeRole(true).

	virtual bool roleConfirmedWithin(const Poco::Timespan& window) const;
		/// True when the server reports its role in ParameterStatus (PostgreSQL 14+), no role change is
		/// suspected, and the session's last ReadyForQuery, which confirmed role(), arrived less than window
		/// ago (monotonic clock): Role Recheck Milliseconds then trusts role() without a round trip. False for
		/// a window of 0 and in the default implementation.

	virtual void reset(bool discardAll) = 0;
		/// Prepares the session for reuse by another user: ROLLBACK when a transaction is open, then
		/// DISCARD ALL when discardAll. Throws on failure (the session is then broken).

	virtual bool deferReset();
		/// Prepares an idle session (no transaction open) for reuse without a round trip now: DISCARD ALL is
		/// sent in front of the next command, in the same write, and its answer is read before that
		/// command's (Npgsql's lazy reset). Returns false when the session cannot defer (not idle, broken,
		/// or an implementation without pipelining: the default), and the caller then uses reset().
		/// ProtocolSession sends DISCARD ALL as Parse/Bind/Execute with no Sync of its own, so reset and
		/// command are one protocol cycle; should it fail (e.g. under the previous user's
		/// statement_timeout), the server skips the command up to its Sync: the command did not run, the
		/// session is closed (logged; isBroken() true) and the command throws
		/// BlueTuskSessionBrokenException. The statement-keeping reset (several statements) is its own
		/// Query in front: when it fails the server still runs the command on the unreset state, whose
		/// result is then withheld in the same way (its effects, if any, are on the server). Until the
		/// next command the server keeps the session state (temporary tables, prepared statements,
		/// session-level advisory locks) while the session is idle in its pool; closing it drops them too.

	virtual bool endLease();
		/// Called by the pool when a lease ends, before it decides on the reset, whatever No Reset On Close
		/// says: ends what the lease left open on the session (a beginFetch() portal, whose implicit
		/// transaction would otherwise hold its snapshot and locks, and rows read ahead of it: endFetch())
		/// and puts back what the lease changed on the client side only (ProtocolSession's command
		/// timeout and notice handler; notifications it did not take are dropped), so the next lease
		/// starts as a new session would. Returns false when the session cannot
		/// be reused: it is broken, or a COPY FROM STDIN is still open on it (the server is in COPY mode;
		/// the session is then marked broken and the CopyIn refuses further use). Throws when ending the
		/// portal fails (the session is then broken). Default: endFetch() while isFetching(), then
		/// !isBroken().

	virtual bool isResetPending() const;
		/// True while a deferred DISCARD ALL has not been sent yet (the default: never).

	virtual bool ranSinceReset() const;
		/// True when the session ran a command since it started or since its last reset completed
		/// (BlueTusk's own role probes and the role refresh do not count: they change no session state).
		/// deferReset() of a session that ran nothing leaves nothing pending: a lease that ran nothing costs
		/// its next lease no reset. The default: always true.

	virtual void setStatementCounters(std::shared_ptr<StatementCounters> counters);
		/// Counters this session also adds to (its pool's sums); null for none. Default: ignored.


protected:
	explicit SessionControl(Session& session);
		/// session: the Session this controls (an implementation passes itself); it must outlive this.

private:
	SessionControl(const SessionControl&) = delete;
	SessionControl& operator = (const SessionControl&) = delete;

	Session& _session;
};

} // namespace BlueTusk

#endif // BlueTusk_SessionControl_INCLUDED
