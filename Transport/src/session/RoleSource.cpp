//
// RoleSource.cpp
//
// Library: BlueTusk/Transport
//
// Where a session's role may come from: ParameterStatus (in_hot_standby, default_transaction_read_only)
// only once the peer has shown it is the server itself, else the role probe query.
//
// A pooler answers a client's login from its own cache of the server's ParameterStatus (PgBouncer keeps
// one per pool, from its first server login), so after a promotion a new login through it can report the
// old role: measured with PgBouncer 1.18 in testsuite/integration/Pooler/PoolerFailoverTest.cpp
// (doc/poolers.md, "Routing and failover through a pooler"). A pooler also sends its own BackendKeyData
// (PgBouncer: random bytes), so the role probe's pg_backend_pid() differs from BackendKeyData's process
// id behind one and equals it on a server. Until a probe has seen them equal, reportedRole() says
// Unknown and every role question goes to the probe query: one round trip on a new session whose target
// needs a role, none later on a server, one per targeted checkout behind a pooler.
//

#include "ProtocolSession.h"
#include "Poco/Logger.h"
#include "Poco/NumberParser.h"

namespace BlueTusk {

namespace {

Poco::Logger& roleLogger()
{
	static Poco::Logger& instance = Poco::Logger::get("BlueTusk.Transport");
	return instance;
}

} // namespace


ServerRole ProtocolSession::reportedRole() const
{
	if (!_peerIsServer) return ServerRole::Unknown;
	return parameterRole();
}


ServerRole ProtocolSession::parameterRole() const
{
	if (_transactionPooling) return ServerRole::Unknown;
	return SessionControl::reportedRole();
}


bool ProtocolSession::peerIsServer()
{
	if (_peerIsServer) return true;
	if (_transactionStatus != TransactionStatus::Idle) return false;   // a probe would fail in a failed block
	try
	{
		probeRole(true);
	}
	catch (const Poco::Exception&)
	{
		return false;
	}
	return _peerIsServer && !_broken;
}


void ProtocolSession::notePeerProcess(const std::string* backendPid)
{
	int pid = 0;
	const bool same = backendPid && Poco::NumberParser::tryParse(*backendPid, pid) && pid != 0 && pid == _processId;
	if (same == _peerIsServer) return;
	_peerIsServer = same;
	if (!same && roleLogger().debug())
		roleLogger().debug("%s: pg_backend_pid() %s is not the BackendKeyData process id: a pooler answers for the server, roles come from the probe query",
			where(), backendPid ? *backendPid : std::string("NULL"));
}


} // namespace BlueTusk
