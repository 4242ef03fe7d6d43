//
// RowStream.cpp
//
// Library: BlueTusk/Transport
//
// queryEach(): each row handed to the caller as it is parsed, none kept.
//

#include "BlueTusk/ProtocolSession.h"
#include "SessionSupport.h"

namespace BlueTusk {

namespace {

const Poco::Timespan STOP_CANCEL_TIMEOUT(5, 0);

} // namespace


void ProtocolSession::drainToReady()
{
	BackendMessage message;
	for (;;)
	{
		receiveInCycle(message);
		switch (message.type)
		{
		case 'Z':
			handleReady(message);
			return;
		case 'E':
			{
				BlueTuskServerException::Fields fields = errorOrFatal(message);
			}
			break;
		case 'G':   // an unexpected COPY FROM STDIN: refuse it
			_writer.begin('f');
			_writer.putCString("not expected by the client");
			_writer.end();
			sendWriter();
			break;
		default:
			handleAsync(message);
			break;
		}
	}
}


Poco::UInt64 ProtocolSession::queryEach(const std::string& sql, const Parameters& parameters, const std::function<bool(const RowView&)>& onRow)
{
	ensureUsable();
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
			_writer.bind(std::string(), statement->name, parameters, statement->parameterTypes, statement->resultFormats);
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
	bool ready = false;
	while (!ready)
	{
		receiveInCycle(message);
		try
		{
			switch (message.type)
			{
			case 'T':
				columns = message.rowDescription();
				break;
			case 'D':
				if (stopped) break;
				row = message.dataRow(columns.size());
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
				break;
			case 'C': case 'I': case 's': case '1': case '2': case '3': case 'n': case 't':
				break;
			case 'E':
				{
					BlueTuskServerException::Fields fields = errorOrFatal(message);
					if (!(stopped && fields.sqlState == "57014") && !error) error.reset(new BlueTuskServerException(fields, true));
				}
				break;
			case 'Z':
				handleReady(message);
				ready = true;
				break;
			default:
				if (!handleAsync(message))
					throw BlueTuskProtocolException("unexpected " + message.typeName() + " from " + where() + " while streaming rows");
				break;
			}
		}
		catch (BlueTuskProtocolException&)
		{
			markBroken();
			closeSocket();
			throw;
		}
	}
	// Outside the try: the callback's exception, whatever its type, leaves the session usable.
	if (failure) std::rethrow_exception(failure);
	if (error) error->rethrow();
	return delivered;
}

} // namespace BlueTusk
