//
// MessageCycle.cpp
//
// Library: BlueTusk/Transport
//
// The receive side of a ProtocolSession: reading one answer up to ReadyForQuery (PostgreSQL docs 55.2.2,
// 55.2.3), asynchronous messages (ParameterStatus, NoticeResponse, NotificationResponse), the command
// timeout with its CancelRequest, and broken-session detection.
//

#include "ProtocolSession.h"
#include "StatementInvalidation.h"
#include "PoolerDetection.h"
#include "connect/Dialer.h"
#include "SessionSupport.h"
#include "ReadyReader.h"
#include "Poco/Clock.h"
#include "Poco/Net/NetException.h"
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <poll.h>

namespace BlueTusk {

using Detail::transportLogger;
using Detail::milliseconds;

namespace {

// How long a server gets to act on the CancelRequest sent when Command Timeout ran out: a quarter of the
// command timeout, within these bounds. PostgreSQL acts on a cancel within milliseconds (its backends
// check for interrupts throughout execution); one that has not answered after this is frozen or cut off,
// and the session is closed so that its lease is freed about when Command Timeout says (doc/transport.md).
const std::size_t MAX_PARAMETER_NAMES = 1000;   // distinct ParameterStatus names kept per session


bool isReportedByPostgreSQL(const std::string& name)
	/// The settings PostgreSQL 15/16 report (GUC_REPORT, docs 55.2.7 ParameterStatus): always kept.
{
	static const char* const names[] = {"application_name", "client_encoding", "DateStyle", "default_transaction_read_only",
		"in_hot_standby", "integer_datetimes", "IntervalStyle", "is_superuser", "scram_iterations", "search_path",
		"server_encoding", "server_version", "session_authorization", "standard_conforming_strings", "TimeZone"};
	for (const char* known: names)
		if (name == known) return true;
	return false;
}
const Poco::Timespan MIN_CANCEL_GRACE(0, 250000);
const Poco::Timespan MAX_CANCEL_GRACE(5, 0);

} // namespace


void ProtocolSession::handleReady(const BackendMessage& message)
{
	handleReady(message.readyForQuery());
}


void ProtocolSession::handleReady(char status)
{
	_readyAt.update();      // the ParameterStatus values in front of it (in_hot_standby) are current now
	_roleFromProbe = false; // the probe's own ReadyForQuery comes before probeRole() sets it
	_ranSinceReset = true;  // a command ran (reset(), the role probes and refreshRole() put back what they found)
	switch (status)
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
			// Bounded: PostgreSQL reports about 15 names; a hostile server inventing new ones forever
			// must not grow the client without limit (doc/reliability.md).
			auto known = _parameters.find(parameter.first);
			if (known != _parameters.end()) known->second = parameter.second;
			else if (_parameters.size() < MAX_PARAMETER_NAMES || isReportedByPostgreSQL(parameter.first))
				_parameters.emplace(parameter.first, parameter.second);
			if (_role != ServerRole::Unknown && (parameter.first == "in_hot_standby" || parameter.first == "default_transaction_read_only"))
			{
				ServerRole role = parameterRole();
				if (role != ServerRole::Unknown && role != _role)
				{
					// The server changed role under this session (a promotion, a read-only switch): the
					// lease's own answer may come from a server its target would not accept. Say so
					// (role(), roleChangeSuspected()) and let the lease's return re-learn the endpoint.
					_role = role;
					_roleChangeSuspected = true;
				}
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
					transportLogger().warning("the notice handler threw an exception; ignored");
				}
			}
			else
			{
				std::string text = _endpoint.toString() + ": " + notice.severity + ": " + notice.message;
				if (!notice.sqlState.empty()) text += " (SQLSTATE " + notice.sqlState + ")";
				if (!notice.detail.empty()) text += "; DETAIL: " + notice.detail;
				if (!notice.hint.empty()) text += "; HINT: " + notice.hint;
				if (notice.severity == "WARNING") transportLogger().warning(text);
				else transportLogger().information(text);
			}
		}
		return true;
	case 'A':
		queueNotification(message);
		return true;
	default:
		return false;
	}
}


void ProtocolSession::handleBufferedAsync()
{
	try
	{
		BackendMessage message;
		for (;;)
		{
			const char type = _reader.nextType();
			if ((type != 'N' && type != 'A' && type != 'S') || !_reader.complete()) return;
			_reader.next(message);
			handleAsync(message);
		}
	}
	catch (BlueTuskProtocolException&)
	{
		markBroken();
		closeSocket();
		throw;
	}
}


BlueTuskServerException::Fields ProtocolSession::errorOrFatal(const BackendMessage& message)
{
	BlueTuskServerException::Fields fields = message.errorFields();
	if (fields.severity == "FATAL" || fields.severity == "PANIC")
	{
		_brokenBy = fields.severity + " " + fields.sqlState + " " + fields.message;
		markBroken();
		closeSocket();
		throw BlueTuskServerException(fields, false);
	}
	// Server Pooling=session set by hand in front of a transaction pooler: say so (auto would have switched).
	if (!_autoPooling && !_transactionPooling && !_peerIsServer && Detail::isTransactionPoolerSign(fields))
		Detail::hintTransactionPooler(fields, _endpoint.toString());
	if (fields.sqlState == "25006")
	{
		// read_only_sql_transaction on a session believed writable: the server (or what a proxy connects
		// it to) changed role under it. Forget the role so it is probed again (doc/high-availability.md).
		const ServerRole known = _role != ServerRole::Unknown ? _role : parameterRole();
		if (known == ServerRole::Primary)
		{
			_role = ServerRole::Unknown;
			_roleChangeSuspected = true;
		}
	}
	return fields;
}


BackendMessage ProtocolSession::receiveInCycle()
{
	BackendMessage message;
	receiveInCycle(message);
	return message;
}


void ProtocolSession::receiveInCycle(BackendMessage& message)
{
	awaitInCycle();
	_reader.next(message);
}


void ProtocolSession::awaitInCycle()
{
	for (;;)
	{
		try
		{
			if (_reader.complete()) return;   // already buffered: no timeout to set, nothing to wait for
			if (_commandExpiryArmed && !_deadline) awaitBeforeExpiry();
			else
			{
				while (!_reader.complete())
				{
					// Under a deadline every read waits only for what is left of it: a server trickling its
					// answer a byte at a time must not stretch it (finding 3, on the startup's and BlueTusk's
					// own round trips).
					if (_deadline) setReceiveTimeout(_deadline->socketTimeout());
					if (!_reader.receiveSome(_socket))
						throw BlueTuskSessionBrokenException("the server closed the connection unexpectedly", AddressAttempt::CLOSED);
				}
			}
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
			const Poco::Timespan grace = std::min(std::max(Poco::Timespan(_commandTimeout.totalMicroseconds() / 4), MIN_CANCEL_GRACE), MAX_CANCEL_GRACE);
			Poco::Clock cancelling;
			try
			{
				sendCancel(grace);
			}
			catch (Poco::Exception& exc)
			{
				transportLogger().warning("command timeout on %s: %s", where(), exc.displayText());
			}
			const Poco::Timespan left(grace.totalMicroseconds() - cancelling.elapsed());
			setReceiveTimeout(left.totalMicroseconds() > 1000 ? left : Poco::Timespan(1000));
			if (_commandExpiryArmed)
			{
				_commandExpiry.update();
				_commandExpiry += std::max<Poco::Clock::ClockDiff>(left.totalMicroseconds(), 1000);
			}
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


void ProtocolSession::sendWriter()
{
	sendWriter(_writer.size());
}


void ProtocolSession::applySocketTimeouts()
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
}


void ProtocolSession::sendWriter(std::size_t end)
{
	try
	{
		applySocketTimeouts();
		_writer.send(_socket, end);
	}
	catch (Poco::Exception& exc)
	{
		sendFailed(exc);
	}
}


void ProtocolSession::sendFailed(const Poco::Exception& exc)
{
	_writer.clear();
	_discardInFlight = false;
	_resetPipelined = false;
	markBroken();
	closeSocket();
	if (_deadline) throw;
	throw BlueTuskSessionBrokenException("connection to " + where() + " lost while sending: " + Dialer::errorText(exc, _address), Dialer::classify(exc));
}


void ProtocolSession::sendWriterReading(std::size_t end)
{
	if (_socket.impl()->secure())
	{
		sendWriter(end);
		return;
	}
	try
	{
		// What the socket does not take at once waits for room, and the answers that arrive meanwhile
		// are read into the reader (later reads find them there), so a server blocked on its answers
		// can go on reading: libpq does the same (pqSendSome() reads when a write would block).
		applySocketTimeouts();   // for the reads that follow (a deadline of an earlier round trip may be set)
		const Poco::Timespan timeout = _deadline ? _deadline->socketTimeout() : _commandTimeout;
		const int waitMilliseconds = timeout.totalMicroseconds() == 0 ? -1 : static_cast<int>(std::max<Poco::Timespan::TimeDiff>(timeout.totalMilliseconds(), 1));
		while (_writer.sendAhead(_socket, end) > 0)
		{
			pollfd descriptor{_socket.impl()->sockfd(), POLLIN | POLLOUT, 0};
			const int ready = ::poll(&descriptor, 1, waitMilliseconds);
			if (ready < 0 && errno == EINTR) continue;
			if (ready < 0) throw Poco::IOException("poll() failed while sending", std::strerror(errno));
			if (ready == 0) throw Poco::TimeoutException("no room to send within the command timeout while the server did not read");
			if ((descriptor.revents & (POLLIN | POLLHUP | POLLERR)) != 0 && !_reader.receiveSome(_socket))
				throw Poco::Net::ConnectionResetException("the server closed the connection");
		}
		if (end == _writer.size()) _writer.clear();
	}
	catch (Poco::Exception& exc)
	{
		sendFailed(exc);
	}
}


void ProtocolSession::awaitBeforeExpiry()
{
	while (!_reader.complete())
	{
		const Poco::Clock::ClockDiff left = _commandExpiry - Poco::Clock();
		if (left <= 0) throw Poco::TimeoutException("command timeout");
		setReceiveTimeout(Poco::Timespan(std::max<Poco::Clock::ClockDiff>(left, 1000)));
		if (!_reader.receiveSome(_socket))
			throw BlueTuskSessionBrokenException("the server closed the connection unexpectedly", AddressAttempt::CLOSED);
	}
}


std::vector<QueryResult> ProtocolSession::runCycle(const std::vector<ColumnDescription>* columns)
{
	std::vector<QueryResult> results;
	runCycle(results, columns);
	return results;
}


QueryResult ProtocolSession::runCycleForOne(const std::vector<ColumnDescription>* columns)
{
	runCycle(_cycleResults, columns);
	if (_cycleResults.empty()) return QueryResult();
	return std::move(_cycleResults.front());   // the moved-from one is cleared with the next command
}


void ProtocolSession::runCycle(std::vector<QueryResult>& results, const std::vector<ColumnDescription>* columns)
{
	results.clear();
	_cancelSentForTimeout = false;
	sendWriter();
	// A buffered command is bounded by Command Timeout as a whole, however its answer trickles in
	// (doc/transport.md, "Command timeout"); streams (queryEach, copyOut) bound each wait instead.
	struct Armed
	{
		bool& flag;
		std::size_t& rowsHint;   // for this command only (hintRows())
		~Armed() { flag = false; rowsHint = 0; }
	} armed{_commandExpiryArmed, _rowsHint};
	if (_commandTimeout.totalMicroseconds() > 0 && !_deadline)
	{
		_commandExpiry.update();
		_commandExpiry += _commandTimeout.totalMicroseconds();
		_commandExpiryArmed = true;
	}

	if (!_discardInFlight)
	{
		readCycle(results, columns);
		return;
	}
	readAfterDeferredReset(results, columns);   // DeferredReset.cpp
}


std::vector<QueryResult> ProtocolSession::readCycle(const std::vector<ColumnDescription>* columns)
{
	std::vector<QueryResult> results;
	readCycle(results, columns);
	return results;
}


void ProtocolSession::readCycle(std::vector<QueryResult>& results, const std::vector<ColumnDescription>* columns)
{
	results.clear();
	bool open = false;      // a RowDescription started a result set
	bool copyOut = false;   // discarding a COPY TO STDOUT
	std::unique_ptr<BlueTuskServerException> error;
	BackendMessage message;   // reused: its body keeps its capacity across messages (doc/performance.md, R6)
	if (columns)
	{
		// A prepared statement executed without Describe: its rows arrive without a RowDescription.
		results.emplace_back();
		results.back().columns = *columns;
		open = true;
	}
	// The hot messages are decoded in the reader's buffer, without a copy.
	readToReady("while waiting for a result", [&](const MessageReader::View& view)
	{
		switch (view.type)
		{
		case 'T':
			results.emplace_back();
			results.back().columns = Detail::decodeRowDescription(view.type, view.body, view.length);
			if (_rowsHint > 0 && results.size() == 1) results.back().rows.reserve(_rowsHint);
			open = true;
			return true;
		case 'D':
			if (!open) throw BlueTuskProtocolException("DataRow without RowDescription from " + where());
			results.back().rows.appendDataRow(view.body, view.length, results.back().columns.size());
			return true;
		case 'C':
			if (!open) results.emplace_back();
			Detail::decodeCommandComplete(view.type, view.body, view.length, results.back().commandTag);
			if (Detail::changesSchema(results.back().commandTag)) noteSchemaChange(results.back().commandTag);
			if (_rowsHint > 0 && results.size() == 1 && results.back().rows.capacity() / 2 > results.back().rows.size())
				results.back().rows.shrinkToFit();   // fewer rows than last time: no reserve kept unused
			open = false;
			copyOut = false;
			return true;
		case '1': // ParseComplete
		case '2': // BindComplete
		case '3': // CloseComplete
		case 'n': // NoData
			return true;
		case 'I': // EmptyQueryResponse
		case 's': // PortalSuspended
			open = false;
			return true;
		case 't': // ParameterDescription
			_parameterDescription = Detail::copyOf(view, message).parameterDescription();
			return true;
		case 'E':
			{
				BlueTuskServerException::Fields fields = errorOrFatal(Detail::copyOf(view, message));
				if (!error) error.reset(new BlueTuskServerException(fields, true));
				open = false;
			}
			return true;
		case 'G': // CopyInResponse: refuse, the server then reports an error
			try
			{
				_writer.begin('f');
				_writer.putCString("COPY FROM STDIN runs through Session::copyIn(), not as a query");
				_writer.end();
				_writer.send(_socket);
			}
			catch (BlueTuskProtocolException&)
			{
				throw;   // readToReady() breaks the session
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
			return true;
		case 'H': // CopyOutResponse: discard the data, report an error at the end
			copyOut = true;
			if (!error)
			{
				BlueTuskServerException::Fields fields;
				fields.severity = "ERROR";
				fields.sqlState = "0A000";
				fields.message = "COPY TO STDOUT runs through Session::copyOut(), not as a query; the data was discarded";
				error.reset(new BlueTuskServerException(fields, true));
			}
			return true;
		case 'd':
		case 'c':
			if (!copyOut) throw BlueTuskProtocolException("unexpected " + Detail::copyOf(view, message).typeName() + " from " + where());
			return true;
		default:
			return false;   // the asynchronous messages
		}
	});
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
}

} // namespace BlueTusk
