//
// DeferredReset.cpp
//
// Library: BlueTusk/Transport
//
// The deferred reset of a pooled session (doc/pooling.md, "When a session comes back"): written in front of
// the next command and read before the command's answer. DISCARD ALL travels as an extended-protocol
// Parse/Bind/Execute with no Sync of its own, so the reset and the command are one protocol cycle (one
// ReadyForQuery, one flush by the server), and a failed reset makes the server skip the command (PostgreSQL
// docs 55.2.3: after an error the backend discards messages up to the next Sync): the command never runs on
// an unreset session. PostgreSQL runs a command that refuses a transaction block (DISCARD ALL) in such a
// pipeline only when it comes first, and commits it at once (docs 55.2.4, "Pipelining"): it always does.
//

#include "ProtocolSession.h"
#include "StatementInvalidation.h"
#include "SessionSupport.h"
#include "ReadyReader.h"

namespace BlueTusk {

using Detail::transportLogger;


bool ProtocolSession::writePendingReset()
{
	if (!_discardPending) return false;
	const std::string sql = resetSql();
	if (sql == "DISCARD ALL")
	{
		// One statement: the unnamed statement and portal (the command's own Parse replaces them).
		_writer.parse(std::string(), sql);
		_writer.bind(std::string(), std::string(), std::vector<FieldValue>());
		_writer.execute(std::string());
		_resetPipelined = true;
	}
	else
	{
		// The statement-keeping reset is several statements, which Parse refuses: its own Query (and cycle).
		_writer.query(sql);
		_resetPipelined = false;
	}
	_discardPending = false;
	_discardInFlight = true;
	return true;
}


std::string ProtocolSession::readPipelinedResetAnswer()
{
	BackendMessage message;
	MessageReader::View view;
	for (;;)
	{
		awaitInCycle();
		_reader.next(view);
		try
		{
			switch (view.type)
			{
			case '1': // ParseComplete
			case '2': // BindComplete
				continue;
			case 'C':
			{
				std::string tag;
				Detail::decodeCommandComplete(view.type, view.body, view.length, tag);
				if (Detail::changesSchema(tag)) noteSchemaChange(tag);
				return std::string();
			}
			case 'E':
			{
				const BlueTuskServerException::Fields fields = errorOrFatal(Detail::copyOf(view, message));
				return BlueTuskServerException(fields, true).displayText();
			}
			default:
				if (!handleAsync(Detail::copyOf(view, message)))
					throw BlueTuskProtocolException("unexpected " + message.typeName() + " from " + where() + " in answer to the deferred DISCARD ALL");
			}
		}
		catch (BlueTuskProtocolException&)
		{
			markBroken();
			closeSocket();
			throw;
		}
	}
}


void ProtocolSession::readAfterDeferredReset(std::vector<QueryResult>& results, const std::vector<ColumnDescription>* columns)
{
	_discardInFlight = false;
	const bool pipelined = _resetPipelined;
	_resetPipelined = false;
	std::string resetError;
	if (pipelined)
	{
		resetError = readPipelinedResetAnswer();
		if (resetError.empty())
		{
			_notifications.clear();   // what came before the reset's answer is of the last lease's channels
			readCycle(results, columns);
			return;
		}
		// The server now skips everything up to a Sync: the command did not run. The session is closed
		// rather than brought back in step (its state is the previous lease's).
		transportLogger().error("the deferred DISCARD ALL on %s failed (%s); the session is closed", where(), resetError);
		markBroken();
		closeSocket();
		throw BlueTuskSessionBrokenException("the reset of the session to " + where() + " (DISCARD ALL, deferred from its return to "
			"the pool) failed: " + resetError + "; the command did not run (the server skipped it) and the session is closed",
			AddressAttempt::CLOSED);
	}

	// The statement-keeping reset went first as its own Query: its answer, then the command's. Should the
	// reset have failed (e.g. the previous user's statement_timeout), the server still ran the command, on
	// the previous user's session state (search_path, role, settings): its result must not reach the caller
	// as if all were well. The command's answer is read (the protocol stays in step), then the session is
	// closed and the caller gets BlueTuskSessionBrokenException.
	try
	{
		readCycle();
	}
	catch (BlueTuskServerException& exc)
	{
		if (_broken) throw;
		resetError = exc.displayText();
	}
	if (resetError.empty())
	{
		_notifications.clear();
		readCycle(results, columns);
		return;
	}
	try
	{
		readCycle(results, columns);
	}
	catch (BlueTuskServerException&)
	{
		if (_broken) throw;
	}
	transportLogger().error("the deferred reset on %s failed (%s); the session is closed", where(), resetError);
	markBroken();
	closeSocket();
	throw BlueTuskSessionBrokenException("the reset of the session to " + where() + " (statement-keeping DISCARD ALL, deferred "
		"from its return to the pool) failed: " + resetError + "; the command ran on the unreset session, so its result is "
		"withheld and the session is closed", AddressAttempt::CLOSED);
}

} // namespace BlueTusk
