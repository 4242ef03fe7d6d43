//
// SessionMaintenance.cpp
//
// Library: BlueTusk/Transport
//
// BlueTusk's own round trips on a session between leases: the role probe and refresh,
// the reset (PostgreSQL docs, DISCARD), deferring it, and the end of a lease. Each is bounded by the
// shorter of the settings' Timeout and Command Timeout (MaintenanceScope): with the default Command
// Timeout of 0, a frozen server must not hold the pool's pruning thread or a checkout for good
// (doc/reliability.md, finding 17).
//

#include "ProtocolSession.h"
#include "connect/Dialer.h"
#include "SessionSupport.h"

namespace BlueTusk {

using Detail::milliseconds;


class ProtocolSession::MaintenanceScope
	/// Points the session at a deadline of Timeout for one of its own round trips, unless a deadline
	/// already runs (the startup's, or an outer maintenance operation's), Timeout is 0 (unlimited), or a
	/// shorter Command Timeout bounds the round trip already (with its cancel and grace, as any command).
{
public:
	explicit MaintenanceScope(ProtocolSession& session):
		_session(session),
		_deadline(session._maintenanceTimeout),
		_active(!session._deadline && session._maintenanceTimeout.totalMicroseconds() > 0 &&
			(session._commandTimeout.totalMicroseconds() == 0 || session._maintenanceTimeout < session._commandTimeout))
	{
		if (_active) _session._deadline = &_deadline;
	}

	~MaintenanceScope()
	{
		if (_active) _session._deadline = nullptr;
	}

	MaintenanceScope(const MaintenanceScope&) = delete;
	MaintenanceScope& operator=(const MaintenanceScope&) = delete;

	bool active() const
	{
		return _active;
	}

private:
	ProtocolSession& _session;
	Deadline _deadline;
	bool _active;
};


template <typename Operation>
auto ProtocolSession::maintain(const char* what, Operation&& operation) -> decltype(operation())
{
	MaintenanceScope scope(*this);
	try
	{
		return operation();
	}
	catch (BlueTuskException&)
	{
		throw;
	}
	catch (Poco::TimeoutException&)
	{
		if (!scope.active()) throw;
		markBroken();
		closeSocket();
		throw BlueTuskSessionBrokenException("no answer from " + where() + " to " + what + " within Timeout (" +
			milliseconds(_maintenanceTimeout) + "); the session is closed", AddressAttempt::TIMED_OUT);
	}
	catch (Poco::Exception& exc)
	{
		if (!scope.active()) throw;
		markBroken();
		closeSocket();
		throw BlueTuskSessionBrokenException("connection to " + where() + " lost during " + what + ": " + Dialer::errorText(exc, _address), Dialer::classify(exc));
	}
}


ServerRole ProtocolSession::probeRole(bool force)
{
	_roleChangeSuspected = false;
	if (!force)
	{
		ServerRole fromParameters = reportedRole();
		if (fromParameters != ServerRole::Unknown)
		{
			_role = fromParameters;
			return _role;
		}
		// Before PostgreSQL 14 no ParameterStatus reports the role: a probe answered since the last other
		// command (the startup's, for a session the router has just opened) is as fresh as a second one.
		if (_roleFromProbe && _role != ServerRole::Unknown) return _role;
	}
	ensureUsable();   // an open portal's rest is the caller's data: read ahead outside the probe's deadline
	return maintain("the role probe", [this]
	{
		// pg_backend_pid() tells a server from a pooler that replays ParameterStatus (RoleSource.cpp).
		std::vector<QueryResult> results = executeReadOnly("SELECT pg_is_in_recovery(), current_setting('transaction_read_only'), pg_backend_pid()");
		if (results.size() != 1 || results[0].rows.size() != 1 || results[0].rows[0].size() != 3 ||
			!results[0].rows[0][0] || !results[0].rows[0][1])
		{
			markBroken();
			throw BlueTuskProtocolException("unexpected answer to the role probe from " + where());
		}
		const FieldRef inRecovery = results[0].rows[0][0];
		const FieldRef readOnly = results[0].rows[0][1];
		if (inRecovery == "t") _role = ServerRole::Standby;
		else if (readOnly == "on") _role = ServerRole::PrimaryReadOnly;
		else _role = ServerRole::Primary;
		_roleFromProbe = true;   // until the next ReadyForQuery (handleReady())
		const FieldValue pid = results[0].rows[0][2];
		notePeerProcess(pid ? &*pid : nullptr);
		return _role;
	});
}


ServerRole ProtocolSession::probeRoleAndWal(Lsn& replayed, Lsn& received)
{
	_roleChangeSuspected = false;
	ensureUsable();
	return maintain("the role and WAL probe", [&]
	{
		// One statement, one round trip: the role probe's two columns, then the WAL positions (doc/freshness.md).
		// No CASE for a primary's pg_current_wal_lsn(): measured after the pool's DISCARD ALL, it made the
		// probe 20 us slower (the plain columns: 5 us).
		std::vector<QueryResult> results = executeReadOnly("SELECT pg_is_in_recovery(), current_setting('transaction_read_only'), "
			"pg_last_wal_replay_lsn(), pg_last_wal_receive_lsn()");
		if (results.size() != 1 || results[0].rows.size() != 1 || results[0].rows[0].size() != 4 ||
			!results[0].rows[0][0] || !results[0].rows[0][1])
		{
			markBroken();
			throw BlueTuskProtocolException("unexpected answer to the role and WAL probe from " + where());
		}
		const RowRef row = results[0].rows[0];
		if (row[0] == "t") _role = ServerRole::Standby;
		else if (row[1] == "on") _role = ServerRole::PrimaryReadOnly;
		else _role = ServerRole::Primary;
		replayed = Lsn();
		received = Lsn();
		if (row[2]) Lsn::tryParse(*row[2], replayed);
		if (row[3]) Lsn::tryParse(*row[3], received);
		return _role;
	});
}


ServerRole ProtocolSession::refreshRole()
{
	if (reportedRole() == ServerRole::Unknown) return probeRole(true);   // before PostgreSQL 14: no in_hot_standby
	return maintain("the role refresh", [this]
	{
		if (_discardPending)
		{
			reset(true);   // the reset the next command would carry: its ReadyForQuery reports the role as well
		}
		else
		{
			const bool ran = _ranSinceReset;
			ensureUsable();
			try
			{
				_writer.sync();   // outside an extended query: only a ReadyForQuery comes back
			}
			catch (...)
			{
				abandonWrite();
				throw;
			}
			runCycle();
			_ranSinceReset = ran;
		}
		const ServerRole reported = reportedRole();
		if (reported == ServerRole::Unknown)
		{
			markBroken();
			throw BlueTuskProtocolException("the server stopped reporting in_hot_standby and default_transaction_read_only on " + where());
		}
		_roleChangeSuspected = false;
		_role = reported;
		return _role;
	});
}


void ProtocolSession::reset(bool discardAll)
{
	// Behind a transaction pooler DISCARD ALL would run on a server session other clients use next
	// (deallocating their statements): the reset is the ROLLBACK alone.
	if (_transactionPooling) discardAll = false;
	if (discardAll) _discardPending = false;   // done now instead
	maintain("the session reset", [&]
	{
		try
		{
			endFetch();   // the next user does not want the last one's rows
			if (_transactionStatus != TransactionStatus::Idle) executeSimple("ROLLBACK");
			if (discardAll)
			{
				executeSimple(resetSql());
				_notifications.clear();   // of the channels the reset's UNLISTEN * ended
			}
		}
		catch (...)
		{
			markBroken();
			throw;
		}
	});
	if (discardAll) _ranSinceReset = false;
}


bool ProtocolSession::deferReset()
{
	if (_portalOpen || _fetchAheadNext < _fetchAhead.rows.size())
	{
		try
		{
			maintain("the end of a fetch", [this] { endFetch(); });
		}
		catch (...)
		{
			return false;
		}
	}
	if (_broken || !_ready || _transactionStatus != TransactionStatus::Idle) return false;
	if (_ranSinceReset && !_transactionPooling) _discardPending = true;   // else: as reset as when it started or was last reset
	return true;
}


bool ProtocolSession::endLease()
{
	// The return of an idle checkout (doc/performance.md, row 6a) tests, without a stack frame of its own,
	// whether the lease changed anything that outlives it (the same list undoLeaseChanges() undoes); only then
	// does it pay for undoing it.
	if (_commandTimeout.totalMicroseconds() == _defaultCommandTimeout.totalMicroseconds() && !_noticeHandler
		&& _notifications.empty() && !_copyInProgress && !_portalOpen && _fetchAheadNext >= _fetchAhead.rows.size())
	{
		return !_broken;
	}
	return undoLeaseChanges();
}


[[gnu::noinline]] bool ProtocolSession::undoLeaseChanges()
{
	// Whatever this undoes, endLease() must test too, or a lease that changed only that keeps it.
	_commandTimeout = _defaultCommandTimeout;                  // setCommandTimeout() was the lease's (Poco::Data's setConnectionTimeout())
	if (_noticeHandler) _noticeHandler = NoticeHandler();      // it may capture what the lease's code owned
	if (!_notifications.empty()) _notifications.clear();       // nobody of the lease reads them any more
	if (_copyInProgress)
	{
		// The lease left a CopyIn open: the server is in COPY FROM STDIN mode, which no reset ends, and the
		// CopyIn still points here (its _lifetime check refuses further use once the session is gone).
		_copyInProgress = false;
		markBroken();
		closeSocket();
		return false;
	}
	// A portal the lease did not read to its end holds an implicit transaction (snapshot, locks) on the
	// server until its Sync, and rows read ahead of it must not reach the next lease, reset or not.
	if (_portalOpen || _fetchAheadNext < _fetchAhead.rows.size()) maintain("the end of a fetch", [this] { endFetch(); });
	return !_broken;
}

} // namespace BlueTusk
