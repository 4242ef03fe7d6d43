//
// ProtocolSession.cpp
//
// Library: BlueTusk/Transport
//
// The life of a ProtocolSession: role, reset, cancel, close and its accessors. The session start (TLS,
// StartupMessage, authentication) is in SessionStartup.cpp, reading answers in MessageCycle.cpp, the
// simple query in SimpleQuery.cpp, prepared statements and typed queries in ExtendedQuery.cpp.
//

#include "ProtocolSession.h"
#include "PoolerDetection.h"
#include "connect/CancellationWatch.h"
#include "connect/Dialer.h"
#include "protocol/SigpipeGuard.h"
#include "Poco/Net/NetException.h"
#include <atomic>

namespace BlueTusk {

namespace {

const Poco::Timespan CANCEL_CONNECT_TIMEOUT(10, 0);

const char* const RESET_KEEPING_STATEMENTS =
	"CLOSE ALL; SET SESSION AUTHORIZATION DEFAULT; RESET ALL; UNLISTEN *; SELECT pg_advisory_unlock_all(); "
	"DISCARD SEQUENCES; DISCARD TEMP";
	/// DISCARD ALL without DEALLOCATE ALL (PostgreSQL docs, DISCARD), as Npgsql resets sessions that
	/// hold prepared statements.

std::atomic<Poco::UInt64> nextSessionId{1};

} // namespace


ProtocolSession::ProtocolSession(const BlueTuskHostEndpoint& endpoint):
	SessionControl(static_cast<Session&>(*this)),
	_endpoint(endpoint),
	_reader(MessageReader::STARTUP_MAX_LENGTH, MessageReader::DEFAULT_MAX_SHORT_LENGTH),
	_sessionId(nextSessionId.fetch_add(1))
{
}


ProtocolSession::~ProtocolSession()
{
	close();
}


SessionControl& ProtocolSession::control()
{
	return *this;
}


const BlueTuskHostEndpoint& ProtocolSession::endpoint() const
{
	return _endpoint;
}


std::string ProtocolSession::connectedAddress() const
{
	return Dialer::describe(_address);
}


ServerRole ProtocolSession::role() const
{
	return _role;
}


bool ProtocolSession::roleChangeSuspected() const
{
	return _roleChangeSuspected;
}


bool ProtocolSession::roleConfirmedWithin(const Poco::Timespan& window) const
{
	if (window.totalMicroseconds() <= 0 || _role == ServerRole::Unknown || _roleChangeSuspected || !_ready) return false;
	if (reportedRole() == ServerRole::Unknown) return false;   // a ReadyForQuery confirms nothing before 14
	return !_readyAt.isElapsed(window.totalMicroseconds());
}


bool ProtocolSession::isBroken() const
{
	return _broken;
}


TransactionStatus ProtocolSession::transactionStatus() const
{
	return _transactionStatus;
}


bool ProtocolSession::isResetPending() const
{
	return _discardPending;
}


bool ProtocolSession::ranSinceReset() const
{
	return _ranSinceReset;
}


std::vector<QueryResult> ProtocolSession::executeReadOnly(const std::string& sql)
{
	// A pending reset goes in front and leaves the session as reset; otherwise the query changes nothing.
	const bool ran = _ranSinceReset && !_discardPending;
	std::vector<QueryResult> results = executeSimple(sql);
	_ranSinceReset = ran;
	return results;
}


void ProtocolSession::close()
{
	if (_closed) return;
	_closed = true;
	_discardPending = false;
	const bool wasBroken = _broken.exchange(true);
	if (!wasBroken && _ready)
	{
		try
		{
			_writer.clear();
			_writer.terminate();
			_socket.setSendTimeout(Poco::Timespan(1, 0));
			_sendTimeoutSet = false;
			_writer.send(_socket);
		}
		catch (...)
		{
		}
	}
	closeSocket();
}


void ProtocolSession::cancel()
{
	sendCancel(CANCEL_CONNECT_TIMEOUT);
}


void ProtocolSession::sendCancel(const Poco::Timespan& timeout)
{
	Poco::Net::SocketAddress address;
	Poco::Int32 processId = 0;
	std::string secretKey;
	{
		Poco::FastMutex::ScopedLock lock(_cancelMutex);
		if (!_ready || (_processId == 0 && _secretKey.empty())) return;
		address = _address;
		processId = _processId;
		secretKey = _secretKey;
	}
	try
	{
		Deadline deadline(timeout);
		Poco::Net::StreamSocket socket = Dialer::connect(address, deadline);
		socket.setSendTimeout(deadline.socketTimeout());
		socket.setReceiveTimeout(deadline.socketTimeout());
		MessageWriter writer;
		writer.cancelRequest(processId, secretKey);
		writer.send(socket);
		// The server closes the connection once it has processed the request (libpq waits for this too).
		char byte;
		try
		{
			socket.receiveBytes(&byte, 1);
		}
		catch (Poco::Exception&)
		{
		}
		socket.close();
	}
	catch (Poco::Exception& exc)
	{
		throw BlueTuskException("could not send a CancelRequest to " + where() + ": " + Dialer::errorText(exc, address));
	}
}


std::string ProtocolSession::parameterStatus(const std::string& name) const
{
	auto it = _parameters.find(name);
	return it == _parameters.end() ? std::string() : it->second;
}


Poco::Timestamp ProtocolSession::createdAt() const
{
	return _createdAt;
}


const std::map<std::string, std::string>& ProtocolSession::parameterStatuses() const
{
	return _parameters;
}


void ProtocolSession::setNoticeHandler(const NoticeHandler& handler)
{
	_noticeHandler = handler;
}


void ProtocolSession::setCommandTimeout(const Poco::Timespan& timeout)
{
	_commandTimeout = timeout.totalMicroseconds() > 0 ? timeout : Poco::Timespan(0);
}


Poco::Timespan ProtocolSession::commandTimeout() const
{
	return _commandTimeout;
}


bool ProtocolSession::isTls() const
{
	return _tls;
}


int ProtocolSession::protocolVersion() const
{
	return _protocolVersion;
}


std::size_t ProtocolSession::cancelKeyLength() const
{
	Poco::FastMutex::ScopedLock lock(_cancelMutex);
	return _secretKey.size();
}


const std::string& ProtocolSession::authenticationMethod() const
{
	return _authenticationMethod;
}


Poco::Int32 ProtocolSession::backendProcessId() const
{
	return _processId;
}


const AddressAttemptList& ProtocolSession::addressAttempts() const
{
	return _attempts;
}


void ProtocolSession::setAddressAttempts(const AddressAttemptList& attempts)
{
	_attempts = attempts;
}


void ProtocolSession::markBroken()
{
	_broken = true;
}


//
// Internals
//


std::string ProtocolSession::where() const
{
	return _endpoint.toString() + " (" + Dialer::describe(_address) + ")";
}


void ProtocolSession::ensureUsable()
{
	if (_closed) throw BlueTuskSessionBrokenException("the session to " + where() + " is closed", AddressAttempt::CLOSED);
	if (_broken)
	{
		// name what broke it: a caller that swallowed that error (a role question) leaves only this one
		throw BlueTuskSessionBrokenException("the session to " + where() + " is broken and cannot be used" +
			(_brokenBy.empty() ? std::string() : " (the server ended it: " + _brokenBy + ")"), AddressAttempt::CLOSED);
	}
	if (_copyInProgress)
		throw BlueTuskUsageException("a COPY FROM STDIN is in progress on " + where() + "; finish() or abort() its CopyIn first");
	if (_portalOpen) finishPortal(true);   // another command: a beginFetch() portal's rest is read ahead first
	if (_autoPooling && !_transactionPooling) followTransactionPoolers();
}


void ProtocolSession::closeSocket()
{
	if (_deadline && _deadline->watch()) _deadline->watch()->remove(_socket);
	Detail::SigpipeGuard guard; // closing a TLS socket writes close_notify
	try
	{
		_socket.close();
	}
	catch (...)
	{
	}
}


void ProtocolSession::abandonWrite()
{
	_writer.clear();
	if (_discardInFlight)
	{
		_discardInFlight = false;
		_resetPipelined = false;
		_discardPending = true;
	}
	_pendingCloses.insert(_pendingCloses.end(), _closesInFlight.begin(), _closesInFlight.end());
	_closesInFlight.clear();
}


std::string ProtocolSession::resetSql() const
{
	return _statementCache.size() > 0 || _explicitStatements > 0 ? RESET_KEEPING_STATEMENTS : "DISCARD ALL";
}


void ProtocolSession::setReceiveTimeout(const Poco::Timespan& timeout)
{
	if (_receiveTimeoutSet && _receiveTimeout == timeout) return;
	_socket.setReceiveTimeout(timeout);
	_receiveTimeout = timeout;
	_receiveTimeoutSet = true;
}


} // namespace BlueTusk
