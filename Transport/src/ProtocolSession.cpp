//
// ProtocolSession.cpp
//
// Library: BlueTusk/Transport
//
// Queries, notices, cancel, command timeout and broken-session detection of a ProtocolSession.
// The session start (TLS, StartupMessage, authentication) is in SessionStartup.cpp.
//

#include "BlueTusk/ProtocolSession.h"
#include "BlueTusk/CancellationWatch.h"
#include "BlueTusk/Dialer.h"
#include "SigpipeGuard.h"
#include "Poco/Clock.h"
#include "Poco/Logger.h"
#include "Poco/NumberFormatter.h"
#include "Poco/Net/NetException.h"
#include <algorithm>

namespace BlueTusk {

namespace {

Poco::Logger& logger()
{
	static Poco::Logger& instance = Poco::Logger::get("BlueTusk.Transport");
	return instance;
}


std::string milliseconds(const Poco::Timespan& span)
{
	return Poco::NumberFormatter::format(span.totalMilliseconds()) + " ms";
}


const Poco::Timespan MIN_CANCEL_GRACE(1, 0);
const Poco::Timespan MAX_CANCEL_GRACE(10, 0);
const Poco::Timespan CANCEL_CONNECT_TIMEOUT(10, 0);

} // namespace


ProtocolSession::ProtocolSession(const BlueTuskHostEndpoint& endpoint):
	_endpoint(endpoint),
	_reader(MessageReader::STARTUP_MAX_LENGTH, MessageReader::DEFAULT_MAX_SHORT_LENGTH)
{
}


ProtocolSession::~ProtocolSession()
{
	close();
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


ServerRole ProtocolSession::probeRole(bool force)
{
	if (!force)
	{
		ServerRole fromParameters = reportedRole();
		if (fromParameters != ServerRole::Unknown)
		{
			_role = fromParameters;
			return _role;
		}
	}
	std::vector<QueryResult> results = executeSimple("SELECT pg_is_in_recovery(), current_setting('transaction_read_only')");
	if (results.size() != 1 || results[0].rows.size() != 1 || results[0].rows[0].size() != 2 ||
		!results[0].rows[0][0] || !results[0].rows[0][1])
	{
		markBroken();
		throw BlueTuskProtocolException("unexpected answer to the role probe from " + where());
	}
	const std::string& inRecovery = *results[0].rows[0][0];
	const std::string& readOnly = *results[0].rows[0][1];
	if (inRecovery == "t") _role = ServerRole::Standby;
	else if (readOnly == "on") _role = ServerRole::PrimaryReadOnly;
	else _role = ServerRole::Primary;
	return _role;
}


bool ProtocolSession::isBroken() const
{
	return _broken;
}


TransactionStatus ProtocolSession::transactionStatus() const
{
	return _transactionStatus;
}


void ProtocolSession::reset(bool discardAll)
{
	if (discardAll) _discardPending = false;   // done now instead
	try
	{
		if (_transactionStatus != TransactionStatus::Idle) executeSimple("ROLLBACK");
		if (discardAll) executeSimple("DISCARD ALL");
	}
	catch (...)
	{
		markBroken();
		throw;
	}
}


bool ProtocolSession::deferReset()
{
	if (_broken || !_ready || _transactionStatus != TransactionStatus::Idle) return false;
	_discardPending = true;
	return true;
}


bool ProtocolSession::isResetPending() const
{
	return _discardPending;
}


bool ProtocolSession::writePendingReset()
{
	if (!_discardPending) return false;
	_writer.query("DISCARD ALL");
	_discardPending = false;
	_discardInFlight = true;
	return true;
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


std::vector<QueryResult> ProtocolSession::executeSimple(const std::string& sql)
{
	ensureUsable();
	try
	{
		writePendingReset();
		_writer.query(sql);
	}
	catch (...)
	{
		_writer.clear();
		_discardInFlight = false;
		throw;
	}
	return runCycle();
}


QueryResult ProtocolSession::execute(const std::string& sql, const std::vector<FieldValue>& parameters)
{
	ensureUsable();
	try
	{
		writePendingReset();
		_writer.parse(std::string(), sql);
		_writer.bind(std::string(), std::string(), parameters);
		_writer.describePortal(std::string());
		_writer.execute(std::string(), 0);
		_writer.sync();
	}
	catch (...)
	{
		_writer.clear();
		_discardInFlight = false;
		throw;
	}
	std::vector<QueryResult> results = runCycle();
	if (results.empty()) return QueryResult();
	return std::move(results.front());
}


void ProtocolSession::cancel()
{
	sendCancel(CANCEL_CONNECT_TIMEOUT);
}


void ProtocolSession::sendCancel(const Poco::Timespan& timeout)
{
	Poco::Net::SocketAddress address;
	Poco::Int32 processId = 0;
	Poco::Int32 secretKey = 0;
	{
		Poco::FastMutex::ScopedLock lock(_cancelMutex);
		if (!_ready || (_processId == 0 && _secretKey == 0)) return;
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
	if (_broken) throw BlueTuskSessionBrokenException("the session to " + where() + " is broken and cannot be used", AddressAttempt::CLOSED);
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


void ProtocolSession::setReceiveTimeout(const Poco::Timespan& timeout)
{
	if (_receiveTimeoutSet && _receiveTimeout == timeout) return;
	_socket.setReceiveTimeout(timeout);
	_receiveTimeout = timeout;
	_receiveTimeoutSet = true;
}


void ProtocolSession::handleReady(const BackendMessage& message)
{
	switch (message.readyForQuery())
	{
	case 'T': _transactionStatus = TransactionStatus::InTransaction; break;
	case 'E': _transactionStatus = TransactionStatus::Failed; break;
	default:  _transactionStatus = TransactionStatus::Idle; break;
	}
}


bool ProtocolSession::handleAsync(const BackendMessage& message)
{
	switch (message.type)
	{
	case 'S':
		{
			std::pair<std::string, std::string> parameter = message.parameterStatus();
			_parameters[parameter.first] = parameter.second;
			if (_role != ServerRole::Unknown && (parameter.first == "in_hot_standby" || parameter.first == "default_transaction_read_only"))
			{
				ServerRole role = reportedRole();
				if (role != ServerRole::Unknown) _role = role;
			}
		}
		return true;
	case 'N':
		{
			BlueTuskServerException::Fields notice = message.errorFields();
			if (_noticeHandler)
			{
				try
				{
					_noticeHandler(notice);
				}
				catch (...)
				{
					logger().warning("the notice handler threw an exception; ignored");
				}
			}
			else
			{
				std::string text = _endpoint.toString() + ": " + notice.severity + ": " + notice.message;
				if (!notice.sqlState.empty()) text += " (SQLSTATE " + notice.sqlState + ")";
				if (!notice.detail.empty()) text += "; DETAIL: " + notice.detail;
				if (!notice.hint.empty()) text += "; HINT: " + notice.hint;
				if (notice.severity == "WARNING") logger().warning(text);
				else logger().information(text);
			}
		}
		return true;
	case 'A':
		if (logger().debug()) logger().debug("%s: asynchronous notification ignored", _endpoint.toString());
		return true;
	default:
		return false;
	}
}


BackendMessage ProtocolSession::receiveInCycle()
{
	BackendMessage message;
	receiveInCycle(message);
	return message;
}


void ProtocolSession::receiveInCycle(BackendMessage& message)
{
	for (;;)
	{
		try
		{
			if (_deadline) setReceiveTimeout(_deadline->socketTimeout());
			_reader.receive(_socket, message);
			return;
		}
		catch (Poco::TimeoutException&)
		{
			if (_deadline || _commandTimeout.totalMicroseconds() == 0)
			{
				markBroken();
				closeSocket();
				throw;
			}
			if (_cancelSentForTimeout)
			{
				markBroken();
				closeSocket();
				throw BlueTuskSessionBrokenException("no answer from " + where() + " after the CancelRequest sent when the command timeout of " +
					milliseconds(_commandTimeout) + " ran out; the session is broken", AddressAttempt::TIMED_OUT);
			}
			_cancelSentForTimeout = true;
			const Poco::Timespan grace = std::min(std::max(_commandTimeout, MIN_CANCEL_GRACE), MAX_CANCEL_GRACE);
			Poco::Clock cancelling;
			try
			{
				sendCancel(grace);
			}
			catch (Poco::Exception& exc)
			{
				logger().warning("command timeout on %s: %s", where(), exc.displayText());
			}
			const Poco::Timespan left(grace.totalMicroseconds() - cancelling.elapsed());
			setReceiveTimeout(left.totalMicroseconds() > 1000 ? left : Poco::Timespan(1000));
		}
		catch (BlueTuskProtocolException&)
		{
			markBroken();
			closeSocket();
			throw;
		}
		catch (BlueTuskSessionBrokenException& exc)
		{
			markBroken();
			closeSocket();
			throw BlueTuskSessionBrokenException("connection to " + where() + " lost: " + exc.message(), exc.code());
		}
		catch (Poco::Exception& exc)
		{
			markBroken();
			closeSocket();
			throw BlueTuskSessionBrokenException("connection to " + where() + " lost: " + Dialer::errorText(exc, _address), Dialer::classify(exc));
		}
	}
}


std::vector<QueryResult> ProtocolSession::runCycle()
{
	_cancelSentForTimeout = false;
	try
	{
		if (!_deadline)
		{
			setReceiveTimeout(_commandTimeout);
			if (!_sendTimeoutSet || _sendTimeout != _commandTimeout)
			{
				_socket.setSendTimeout(_commandTimeout);
				_sendTimeout = _commandTimeout;
				_sendTimeoutSet = true;
			}
		}
		else
		{
			_socket.setSendTimeout(_deadline->socketTimeout());
			_sendTimeoutSet = false;
		}
		_writer.send(_socket);
	}
	catch (Poco::Exception& exc)
	{
		_writer.clear();
		_discardInFlight = false;
		markBroken();
		closeSocket();
		if (_deadline) throw;
		throw BlueTuskSessionBrokenException("connection to " + where() + " lost while sending: " + Dialer::errorText(exc, _address), Dialer::classify(exc));
	}

	if (!_discardInFlight) return readCycle();

	// The deferred DISCARD ALL went first (deferReset()): its answer, then the command's. Should the reset
	// have failed (e.g. the previous user's statement_timeout), the server still ran the command, on the
	// previous user's session state (search_path, role, settings): its result must not reach the caller as
	// if all were well. The command's answer is read (the protocol stays in step), then the session is
	// closed and the caller gets BlueTuskSessionBrokenException.
	_discardInFlight = false;
	std::string resetError;
	try
	{
		readCycle();
	}
	catch (BlueTuskServerException& exc)
	{
		if (_broken) throw;
		resetError = exc.displayText();
	}
	if (resetError.empty()) return readCycle();
	try
	{
		readCycle();
	}
	catch (BlueTuskServerException&)
	{
		if (_broken) throw;
	}
	logger().error("the deferred DISCARD ALL on %s failed (%s); the session is closed", where(), resetError);
	markBroken();
	closeSocket();
	throw BlueTuskSessionBrokenException("the reset of the session to " + where() + " (DISCARD ALL, deferred from its return to "
		"the pool) failed: " + resetError + "; the command ran on the unreset session, so its result is withheld and the "
		"session is closed", AddressAttempt::CLOSED);
}


std::vector<QueryResult> ProtocolSession::readCycle()
{
	std::vector<QueryResult> results;
	bool open = false;      // a RowDescription started a result set
	bool copyOut = false;   // discarding a COPY TO STDOUT
	std::unique_ptr<BlueTuskServerException> error;
	BackendMessage message;   // reused: its body keeps its capacity across messages (doc/performance.md, R6)
	for (;;)
	{
		receiveInCycle(message);
		try
		{
			switch (message.type)
			{
			case 'T':
				results.emplace_back();
				results.back().columns = message.rowDescription();
				open = true;
				break;
			case 'D':
				if (!open) throw BlueTuskProtocolException("DataRow without RowDescription from " + where());
				results.back().rows.push_back(message.dataRow(results.back().columns.size()));
				break;
			case 'C':
				if (!open) results.emplace_back();
				results.back().commandTag = message.commandComplete();
				open = false;
				copyOut = false;
				break;
			case 'I': // EmptyQueryResponse
			case 's': // PortalSuspended
				open = false;
				break;
			case '1': // ParseComplete
			case '2': // BindComplete
			case '3': // CloseComplete
			case 'n': // NoData
			case 't': // ParameterDescription
				break;
			case 'E':
				{
					BlueTuskServerException::Fields fields = message.errorFields();
					if (fields.severity == "FATAL" || fields.severity == "PANIC")
					{
						markBroken();
						closeSocket();
						throw BlueTuskServerException(fields, false);
					}
					if (!error) error.reset(new BlueTuskServerException(fields, true));
					open = false;
				}
				break;
			case 'G': // CopyInResponse: refuse, the server then reports an error
				_writer.begin('f');
				_writer.putCString("COPY FROM STDIN is not supported by BlueTusk");
				_writer.end();
				_writer.send(_socket);
				break;
			case 'H': // CopyOutResponse: discard the data, report an error at the end
				copyOut = true;
				if (!error)
				{
					BlueTuskServerException::Fields fields;
					fields.severity = "ERROR";
					fields.sqlState = "0A000";
					fields.message = "COPY TO STDOUT is not supported by BlueTusk; the data was discarded";
					error.reset(new BlueTuskServerException(fields, true));
				}
				break;
			case 'd':
			case 'c':
				if (!copyOut) throw BlueTuskProtocolException("unexpected " + message.typeName() + " from " + where());
				break;
			case 'Z':
				handleReady(message);
				if (error)
				{
					if (_cancelSentForTimeout && error->sqlState() == "57014")
					{
						BlueTuskServerException::Fields fields = error->fields();
						fields.message = "command timeout of " + milliseconds(_commandTimeout) + " exceeded: " + fields.message;
						throw BlueTuskServerException(fields, true);
					}
					error->rethrow();
				}
				return results;
			default:
				if (!handleAsync(message))
					throw BlueTuskProtocolException("unexpected " + message.typeName() + " from " + where() + " while waiting for a result");
				break;
			}
		}
		catch (BlueTuskProtocolException&)
		{
			markBroken();
			closeSocket();
			throw;
		}
		catch (BlueTuskServerException&)
		{
			throw;
		}
		catch (Poco::Exception& exc)
		{
			markBroken();
			closeSocket();
			if (_deadline) throw;
			throw BlueTuskSessionBrokenException("connection to " + where() + " lost: " + Dialer::errorText(exc, _address), Dialer::classify(exc));
		}
	}
}

} // namespace BlueTusk
