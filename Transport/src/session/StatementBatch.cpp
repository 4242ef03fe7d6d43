//
// StatementBatch.cpp
//
// Library: BlueTusk/Transport
//
// One prepared statement executed for many parameter rows, pipelined (PostgreSQL docs 55.2.4): Bind and
// Execute per row, written in chunks with a Flush between them and one Sync at the end, so that the batch
// runs in one implicit transaction and costs about one round trip per chunk.
//

#include "ProtocolSession.h"
#include "connect/Dialer.h"
#include "StatementInvalidation.h"

namespace BlueTusk {

namespace {

const std::size_t CHUNK_ROWS = 256;
	/// rows per write: large enough to amortise the round trip; the answers that arrive while a chunk is
	/// sent are read meanwhile on plain sockets (sendWriterReading()), so large ones cannot deadlock it

} // namespace


Poco::UInt64 ProtocolSession::executeBatch(const PreparedStatement& handle, const std::vector<Parameters>& rows)
{
	const StatementPtr& statement = handle.description();
	checkOwned(statement);
	ensureUsable();
	if (rows.empty()) throw BlueTuskUsageException("executeBatch() needs at least one row of parameters");
	if (statement->needsReprepare)
	{
		reprepare(*statement);
		return runBatch(*statement, rows);
	}
	// A batch that fails on a stale statement ran in one implicit transaction outside a transaction block
	// (all rolled back), so it can be run again as a whole (StatementInvalidation.h).
	return retryIfStale(*statement, [&] { return runBatch(*statement, rows); });
}


Poco::UInt64 ProtocolSession::runBatch(PreparedStatement::Description& statement, const std::vector<Parameters>& rows)
{
	const std::size_t expected = statement.parameterTypes.size();
	for (std::size_t i = 0; i < rows.size(); ++i)
	{
		if (rows[i].size() != expected)
			throw BlueTuskUsageException("row " + std::to_string(i + 1) + " of the batch has " + std::to_string(rows[i].size()) +
				" values but the statement has " + std::to_string(expected) + " parameters: \"" + statement.sql + "\"");
	}
	if (rows.size() > CHUNK_ROWS)
	{
		// Once a chunk has been sent, a value that cannot be encoded could only be refused by ending the
		// implicit transaction, which would commit the chunks before it: check every value first.
		std::string scratch;
		for (const Parameters& row: rows)
		{
			for (std::size_t p = 0; p < row.size(); ++p)
			{
				scratch.clear();
				row[p].encode(statement.parameterTypes[p], p, scratch);
			}
		}
	}
	if (_discardPending) reset(true);   // a deferred reset needs its own answer first: do it now

	_cancelSentForTimeout = false;
	const bool outside = _transactionStatus == TransactionStatus::Idle;
	Poco::UInt64 affected = 0;
	std::unique_ptr<BlueTuskServerException> error;
	static const std::vector<Poco::Int16> NO_RESULTS;
	for (std::size_t first = 0; first < rows.size() && !error; first += CHUNK_ROWS)
	{
		const std::size_t count = std::min(CHUNK_ROWS, rows.size() - first);
		const bool last = first + count == rows.size();
		try
		{
			if (first == 0) writePendingCloses();
			// An unnamed statement is parsed once per batch: its Bind messages all follow that one Parse.
			if (first == 0 && isUnnamed(statement)) _writer.parse(std::string(), statement.sql, statement.parameterTypes);
			for (std::size_t i = first; i < first + count; ++i)
			{
				_writer.bind(std::string(), serverName(statement), rows[i], statement.parameterTypes, NO_RESULTS);
				_writer.execute(std::string(), 0);
			}
			if (last) _writer.sync();
			else _writer.flush();
		}
		catch (...)
		{
			abandonWrite();
			// Values were checked above, so a later chunk fails only on what no check foresees (a message
			// over 2 GiB, memory): the chunks before it went out without a Sync, and the session cannot go on.
			if (first != 0)
			{
				markBroken();
				closeSocket();
			}
			throw;
		}
		_closesInFlight.clear();
		sendWriterReading(_writer.size());   // reads the answers that arrive meanwhile: no deadlock on large ones
		affected += readBatchChunk(count, first, outside, error);
		if (error && !last)
		{
			// The server skips everything up to the next Sync after an error: end the batch there.
			_writer.sync();
			sendWriter();
		}
	}
	readCycle();   // up to ReadyForQuery
	if (error) error->rethrow();
	return affected;
}


Poco::UInt64 ProtocolSession::readBatchChunk(std::size_t executions, std::size_t firstRow, bool outsideTransaction,
	std::unique_ptr<BlueTuskServerException>& error)
{
	Poco::UInt64 affected = 0;
	std::size_t completed = 0;
	BackendMessage message;
	while (completed < executions)
	{
		receiveInCycle(message);
		try
		{
			switch (message.type)
			{
			case 'C':
				{
					QueryResult tag;
					tag.commandTag = message.commandComplete();
					if (Detail::changesSchema(tag.commandTag)) noteSchemaChange(tag.commandTag);
					affected += tag.rowsAffected();
					++completed;
				}
				break;
			case 'I': // EmptyQueryResponse
				++completed;
				break;
			case '1': case '2': case '3': case 'n': case 't': case 'T': case 'D':
				break;
			case 'E':
				{
					BlueTuskServerException::Fields fields = errorOrFatal(message);
					fields.message += " (row " + std::to_string(firstRow + completed + 1) + " of the batch; " +
						(outsideTransaction ? "the whole batch was rolled back)" : "the transaction is aborted)");
					error.reset(new BlueTuskServerException(fields, true));
				}
				return affected;
			default:
				if (!handleAsync(message))
					throw BlueTuskProtocolException("unexpected " + message.typeName() + " from " + where() + " during a batch");
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
	return affected;
}

} // namespace BlueTusk
