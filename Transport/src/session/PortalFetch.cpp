//
// PortalFetch.cpp
//
// Library: BlueTusk/Transport
//
// Reading a prepared statement's result in pieces: Bind, then Execute with a row limit and Flush, repeated
// while the server answers PortalSuspended (PostgreSQL docs 55.2.3); one Sync at the end.
//

#include "ProtocolSession.h"
#include "StatementInvalidation.h"

namespace BlueTusk {

QueryResult ProtocolSession::beginFetch(const PreparedStatement& handle, const Parameters& parameters, std::size_t rows)
{
	const StatementPtr& statement = handle.description();
	checkOwned(statement);
	endFetch();   // a previous fetch's rest is not wanted any more
	ensureUsable();
	const bool fresh = statement->needsReprepare;
	if (fresh) reprepare(*statement);
	if (parameters.size() != statement->parameterTypes.size()) refuseParameterCount(*statement, parameters);
	if (rows == 0 || rows > 0x7FFFFFFF) throw BlueTuskUsageException("beginFetch() needs a row count between 1 and 2^31-1");
	auto begin = [&]
	{
		if (_discardPending) reset(true);   // its answer must come before the portal's
		try
		{
			writePendingCloses();
			writeStatementBind(*statement, parameters, statement->resultFormats);
			_writer.execute(std::string(), static_cast<Poco::Int32>(rows));
			_writer.flush();
		}
		catch (...)
		{
			abandonWrite();
			throw;
		}
		_closesInFlight.clear();
		++_fetchId;
		_fetchColumns = statement->columns;
		_fetchAhead = QueryResult();
		_fetchAheadNext = 0;
		_cancelSentForTimeout = false;
		sendWriter();
		_portalOpen = true;
		return readPortal(rows);
	};
	// An error of the Bind or of the first rows ends the portal with a Sync (readPortal()): a stale
	// statement can then be prepared again and the fetch begun once more (StatementInvalidation.h).
	return fresh ? begin() : retryIfStale(*statement, begin);
}


QueryResult ProtocolSession::fetch(std::size_t rows)
{
	if (rows == 0 || rows > 0x7FFFFFFF) throw BlueTuskUsageException("fetch() needs a row count between 1 and 2^31-1");
	if (_fetchAheadNext < _fetchAhead.rows.size()) return takeAhead(rows);
	if (!_portalOpen)
	{
		if (_fetchId == 0) throw BlueTuskUsageException("fetch() without beginFetch()");
		QueryResult done;
		done.columns = _fetchColumns;
		return done;
	}
	if (_closed || _broken) ensureUsable();
	_writer.execute(std::string(), static_cast<Poco::Int32>(rows));
	_writer.flush();
	_cancelSentForTimeout = false;
	sendWriter();
	return readPortal(rows);
}


bool ProtocolSession::isFetching() const
{
	return _portalOpen || _fetchAheadNext < _fetchAhead.rows.size();
}


Poco::UInt64 ProtocolSession::fetchId() const
{
	return _fetchId;
}


void ProtocolSession::endFetch()
{
	// Rows not read yet are dropped: a new fetchId() tells a reader holding the old one (Poco::Data's
	// paged statement) that its rest is gone, rather than letting fetch() report a quiet end.
	if (isFetching()) ++_fetchId;
	_fetchAhead = QueryResult();
	_fetchAheadNext = 0;
	if (_portalOpen && !_broken) finishPortal(false);
	_portalOpen = false;
}


QueryResult ProtocolSession::takeAhead(std::size_t rows)
{
	QueryResult piece;
	piece.columns = _fetchColumns;
	const std::size_t end = std::min(_fetchAhead.rows.size(), _fetchAheadNext + rows);
	if (_fetchAheadNext == 0 && end == _fetchAhead.rows.size())
	{
		piece.rows = std::move(_fetchAhead.rows);   // all of it: its arena moves along
		_fetchAheadNext = end;
		piece.commandTag = _fetchAhead.commandTag;
		_fetchAhead = QueryResult();
		_fetchAheadNext = 0;
		return piece;
	}
	piece.rows.reserve(end - _fetchAheadNext);
	for (; _fetchAheadNext < end; ++_fetchAheadNext) piece.rows.append(_fetchAhead.rows[_fetchAheadNext]);
	if (_fetchAheadNext == _fetchAhead.rows.size())
	{
		piece.commandTag = _fetchAhead.commandTag;
		_fetchAhead = QueryResult();
		_fetchAheadNext = 0;
	}
	return piece;
}


void ProtocolSession::finishPortal(bool keepRest)
{
	_portalOpen = false;
	if (keepRest)
	{
		_writer.execute(std::string(), 0);
		_writer.sync();
		sendWriter();
		std::vector<QueryResult> rest = readCycle(&_fetchColumns);
		if (!rest.empty()) _fetchAhead = std::move(rest.front());
		_fetchAheadNext = 0;
		return;
	}
	_writer.sync();
	sendWriter();
	readCycle();
}


QueryResult ProtocolSession::readPortal(std::size_t rows)
{
	QueryResult piece;
	piece.columns = _fetchColumns;
	piece.rows.reserve(std::min<std::size_t>(rows, 4096));
	BackendMessage message;
	for (;;)
	{
		receiveInCycle(message);
		try
		{
			switch (message.type)
			{
			case 'D':
				piece.rows.appendDataRow(message.body.data(), message.body.size(), piece.columns.size());
				break;
			case 's': // PortalSuspended: more rows wait
				return piece;
			case 'C':
			case 'I':
				if (message.type == 'C') piece.commandTag = message.commandComplete();
				_portalOpen = false;
				_writer.sync();
				sendWriter();
				readCycle();
				return piece;
			case '1': case '2': case '3': case 'n': case 't':
				break;
			case 'E':
				{
					_portalOpen = false;
					BlueTuskServerException::Fields fields = errorOrFatal(message);
					_writer.sync();
					sendWriter();
					readCycle();
					throw BlueTuskServerException(fields, true);
				}
			default:
				if (!handleAsync(message))
					throw BlueTuskProtocolException("unexpected " + message.typeName() + " from " + where() + " while fetching rows");
				break;
			}
		}
		catch (BlueTuskProtocolException&)
		{
			_portalOpen = false;
			markBroken();
			closeSocket();
			throw;
		}
	}
}

} // namespace BlueTusk
