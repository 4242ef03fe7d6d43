//
// RowStream.cpp
//
// Library: BlueTusk/Transport
//
// queryEach(): each row handed to the caller as it is parsed, none kept.
//

#include "ProtocolSession.h"
#include "ReadyReader.h"
#include "SessionSupport.h"

namespace BlueTusk {

namespace {

const Poco::Timespan STOP_CANCEL_TIMEOUT(5, 0);

} // namespace


void ProtocolSession::drainToReady()
{
	BackendMessage message;
	readToReady("", [&](const MessageReader::View& view)
	{
		switch (view.type)
		{
		case 'E':
			errorOrFatal(Detail::copyOf(view, message));   // a FATAL one throws, an ERROR is dropped
			break;
		case 'G':   // an unexpected COPY FROM STDIN: refuse it
			_writer.begin('f');
			_writer.putCString("not expected by the client");
			_writer.end();
			sendWriter();
			break;
		default:
			handleAsync(Detail::copyOf(view, message));   // anything else is dropped
			break;
		}
		return true;
	});
}


Poco::UInt64 ProtocolSession::queryEach(const std::string& sql, const Parameters& parameters, const std::function<bool(const RowView&)>& onRow)
{
	ensureUsable();
	refuseBehindPooler(sql);
	if (_discardPending) reset(true);   // its answer would come first: do it now
	const bool cached = _statementCache.maxPrepared() > 0;
	StatementPtr statement;
	if (cached)
	{
		statement = prepareCached(sql).description();
		if (parameters.size() != statement->parameterTypes.size())
			throw BlueTuskUsageException("the statement has " + std::to_string(statement->parameterTypes.size()) + " parameters but " +
				std::to_string(parameters.size()) + " values were given: \"" + sql + "\"");
	}
	std::vector<ColumnDescription> columns;
	try
	{
		writePendingCloses();
		if (cached)
		{
			writeStatementBind(*statement, parameters, statement->resultFormats);
			columns = statement->columns;
		}
		else
		{
			std::vector<Poco::UInt32> types;
			for (const Parameter& parameter: parameters) types.push_back(parameter.naturalOid());
			_writer.parse(std::string(), sql, types);
			_writer.bind(std::string(), std::string(), parameters, types, {});
			_writer.describePortal(std::string());
		}
		_writer.execute(std::string(), 0);
		_writer.sync();
	}
	catch (...)
	{
		abandonWrite();
		throw;
	}
	_closesInFlight.clear();
	_cancelSentForTimeout = false;
	const bool outside = _transactionStatus == TransactionStatus::Idle;
	sendWriter();

	Poco::UInt64 delivered = 0;
	bool stopped = false;
	std::exception_ptr failure;
	std::unique_ptr<BlueTuskServerException> error;
	BackendMessage message;
	Row row;
	auto stop = [&]
	{
		stopped = true;
		try
		{
			sendCancel(STOP_CANCEL_TIMEOUT);
		}
		catch (Poco::Exception& exc)
		{
			Detail::transportLogger().warning("%s: stopping a row stream: %s; reading the rest", where(), exc.displayText());
		}
	};
	readToReady("while streaming rows", [&](const MessageReader::View& view)
	{
		switch (view.type)
		{
		case 'T':
			columns = Detail::decodeRowDescription(view.type, view.body, view.length);
			return true;
		case 'D':
			if (stopped) return true;
			row = Detail::decodeDataRow(view.type, view.body, view.length, columns.size());
			++delivered;
			try
			{
				if (!onRow(RowView(columns, row))) stop();
			}
			catch (...)
			{
				failure = std::current_exception();
				stop();
			}
			return true;
		case 'C': case 'I': case 's': case '1': case '2': case '3': case 'n': case 't':
			return true;
		case 'E':
			{
				BlueTuskServerException::Fields fields = errorOrFatal(Detail::copyOf(view, message));
				if (!(stopped && fields.sqlState == "57014") && !error) error.reset(new BlueTuskServerException(fields, true));
			}
			return true;
		default:
			return false;   // the asynchronous messages
		}
	});
	// After the reading: the callback's exception, whatever its type, leaves the session usable.
	if (failure) std::rethrow_exception(failure);
	if (error && noticeTransactionPooler(*error))
	{
		// Server Pooling=auto met a transaction pooler: the Bind of a cached statement failed, no row came.
		if (!outside || _transactionStatus != TransactionStatus::Idle) throwPoolerInTransaction(*error);
		return queryEach(sql, parameters, onRow);   // as the unnamed statement now
	}
	if (error) error->rethrow();
	return delivered;
}

} // namespace BlueTusk
