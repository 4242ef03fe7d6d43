//
// Pipeline.cpp
//
// Library: BlueTusk/Transport
//
// Pipelining (PostgreSQL docs 55.2.4): the builder, and ProtocolSession::executePipeline(), which writes
// the statements in chunks (Flush between them, Sync at the sync points and the end) and reads their
// answers in order. After an error the server sends nothing for the statements up to the next Sync:
// those are reported as skipped without reading.
//

#include "BlueTusk/Pipeline.h"
#include "ProtocolSession.h"
#include "ReadyReader.h"
#include "StatementInvalidation.h"

namespace BlueTusk {

namespace {

const std::size_t CHUNK_STATEMENTS = 256;
const std::size_t SEND_AHEAD_EVERY = 32;   // answers read between two tries to send the next chunk ahead

} // namespace


std::string PipelineResult::describe() const
{
	switch (status)
	{
	case Status::Ok: return "ok: " + result.commandTag;
	case Status::Failed: return "failed: " + (error ? error->message() : std::string("(no error)"));
	default: return "skipped because of an earlier error in the pipeline (statement " + std::to_string(failedIndex + 1) + ")";
	}
}


Pipeline::Pipeline(Session& session): _session(session)
{
}


std::size_t Pipeline::add(const std::string& sql, const Parameters& parameters)
{
	return add(sql, Parameters(parameters));
}


std::size_t Pipeline::add(const std::string& sql, Parameters&& parameters)
{
	PipelineCommand command;   // built first: a failed copy leaves nothing queued
	command.sql = sql;
	command.parameters = std::move(parameters);
	_commands.push_back(std::move(command));
	return _statements++;
}


std::size_t Pipeline::add(const PreparedStatement& statement, const Parameters& parameters)
{
	return add(statement, Parameters(parameters));
}


std::size_t Pipeline::add(const PreparedStatement& statement, Parameters&& parameters)
{
	// The text stays in the statement's description: writePipelineCommand() sends it from there with
	// the unnamed statement when the statement was closed or evicted in the meantime.
	if (!statement.description()) throw BlueTuskUsageException("the PreparedStatement handle is empty; obtain one from Session::prepare()");
	PipelineCommand command;
	command.statement = statement;
	command.parameters = std::move(parameters);
	_commands.push_back(std::move(command));
	return _statements++;
}


void Pipeline::sync()
{
	if (!_commands.empty() && !_commands.back().isSync)
	{
		PipelineCommand command;
		command.isSync = true;
		_commands.push_back(std::move(command));
	}
}


std::size_t Pipeline::size() const
{
	return _statements;
}


std::vector<PipelineResult> Pipeline::run()
{
	sync();
	std::vector<PipelineCommand> commands;
	commands.swap(_commands);
	_statements = 0;
	if (commands.empty()) return {};
	return _session.executePipeline(commands);
}


void ProtocolSession::writePipelineCommand(const PipelineCommand& command)
{
	static const std::vector<Poco::Int16> TEXT_RESULTS;
	if (command.isSync)
	{
		_writer.sync();
		return;
	}
	if (command.statement.isValid())
	{
		const PreparedStatement::Description& statement = *command.statement.description();
		writeStatementBind(statement, command.parameters, statement.resultFormats);
	}
	else
	{
		std::vector<Poco::UInt32> types;
		for (const Parameter& parameter: command.parameters) types.push_back(parameter.naturalOid());
		// a prepared statement closed or evicted since add() runs as its text, like SQL added as text
		const auto& closed = command.statement.description();
		_writer.parse(std::string(), closed ? closed->sql : command.sql, types);
		_writer.bind(std::string(), std::string(), command.parameters, types, TEXT_RESULTS);
		_writer.describePortal(std::string());
	}
	_writer.execute(std::string(), 0);
}


bool ProtocolSession::readPipelineStatement(const PipelineCommand& command, PipelineResult& result)
{
	// result is new (executePipeline()): nothing to clear
	if (command.statement.isValid()) result.result.columns = command.statement.columns();
	BackendMessage message;
	for (;;)
	{
		receiveInCycle(message);
		try
		{
			switch (message.type)
			{
			case 'T':
				result.result.columns = message.rowDescription();
				break;
			case 'D':
				result.result.rows.appendDataRow(message.body.data(), message.body.size(), result.result.columns.size());
				break;
			case 'C':
				result.result.commandTag = message.commandComplete();
				if (Detail::changesSchema(result.result.commandTag)) noteSchemaChange(result.result.commandTag);
				result.status = PipelineResult::Status::Ok;
				return true;
			case 'I':
				result.status = PipelineResult::Status::Ok;
				return true;
			case '1': case '2': case '3': case 'n': case 't': case 's':
				break;
			case 'E':
				{
					BlueTuskServerException::Fields fields = errorOrFatal(message);
					result.status = PipelineResult::Status::Failed;
					result.error = std::make_shared<BlueTuskServerException>(fields, true);
					return false;
				}
			default:
				if (!handleAsync(message))
					throw BlueTuskProtocolException("unexpected " + message.typeName() + " from " + where() + " in a pipeline");
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
}


std::vector<PipelineResult> ProtocolSession::executePipeline(const std::vector<PipelineCommand>& commands)
{
	ensureUsable();
	for (const PipelineCommand& command: commands)
	{
		if (!command.isSync && !command.statement.isValid())   // text, or a closed statement's text
			refuseBehindPooler(command.statement.description() ? command.statement.description()->sql : command.sql);
		if (command.isSync || !command.statement.isValid()) continue;
		checkOwned(command.statement.description());
		const PreparedStatement::Description& statement = *command.statement.description();
		if (statement.needsReprepare) reprepare(*command.statement.description());
		if (command.parameters.size() != statement.parameterTypes.size())
			throw BlueTuskUsageException("the statement has " + std::to_string(statement.parameterTypes.size()) + " parameters but " +
				std::to_string(command.parameters.size()) + " values were given: \"" + statement.sql + "\"");
	}
	if (_discardPending) reset(true);
	// Every statement is encoded before any is sent, each value once: a value that cannot be sent
	// throws here with nothing sent. The chunks (a Flush after each, a Sync at the sync points) are then
	// sent in order.
	struct Chunk
	{
		std::size_t end;        /// the writer's size after it
		std::size_t commands;   /// the index after its last command
	};
	std::vector<Chunk> chunks;
	std::vector<PipelineResult> results;
	results.reserve(commands.size());   // the statements and the sync points: a few more than needed
	try
	{
		writePendingCloses();
		std::size_t statements = 0;
		for (std::size_t i = 0; i < commands.size(); ++i)
		{
			writePipelineCommand(commands[i]);
			if (!commands[i].isSync) ++statements;
			if (statements == CHUNK_STATEMENTS || i + 1 == commands.size())
			{
				if (!commands[i].isSync) _writer.flush();
				chunks.push_back({_writer.size(), i + 1});
				statements = 0;
			}
		}
	}
	catch (...)
	{
		abandonWrite();
		throw;
	}
	_closesInFlight.clear();
	std::size_t failedIndex = 0;
	bool segmentFailed = false;
	std::size_t statementIndex = 0;
	_cancelSentForTimeout = false;
	std::size_t next = 0;
	const bool outside = _transactionStatus == TransactionStatus::Idle;
	auto sendAhead = [this](std::size_t end)
		/// true while bytes up to end are left to send; a failed socket breaks the session
	{
		try
		{
			return _writer.sendAhead(_socket, end) > 0;
		}
		catch (Poco::Exception& exc)
		{
			sendFailed(exc);
		}
	};
	try
	{
		for (std::size_t c = 0; c < chunks.size(); ++c)
		{
			const Chunk& chunk = chunks[c];
			// The rest of this chunk goes out reading the answers that arrive meanwhile (plain sockets:
			// a server blocked on answers nobody reads would stop reading). While its answers are read,
			// the next chunk goes out as far as the socket takes it without waiting (tried every
			// SEND_AHEAD_EVERY answers: the send buffer frees up as the server reads), so that the
			// server finds it queued when it is done with this one. On TLS both are plain sends.
			sendWriterReading(chunk.end);
			const bool last = c + 1 == chunks.size();
			bool ahead = !last && !_socket.impl()->secure();   // bytes of the next chunk left to send ahead
			std::size_t answers = 0;
			for (; next < chunk.commands; ++next)
			{
				if (ahead && answers++ % SEND_AHEAD_EVERY == 0) ahead = sendAhead(chunks[c + 1].end);
				const PipelineCommand& command = commands[next];
				if (command.isSync)
				{
					readPipelineSync();
					segmentFailed = false;
					continue;
				}
				results.emplace_back();
				PipelineResult& result = results.back();
				if (segmentFailed)
				{
					result.status = PipelineResult::Status::Skipped;
					result.failedIndex = failedIndex;
				}
				else if (!readPipelineStatement(command, result))
				{
					segmentFailed = true;
					failedIndex = statementIndex;
				}
				++statementIndex;
			}
		}
	}
	catch (...)
	{
		// Chunks not sent yet (and the final Sync among them) must not go out with the next command, and
		// a part of one may be on the wire already (sent ahead): without the rest and the Sync the server
		// cannot continue, so the session is broken (every error that ends the reading here breaks it already).
		if (!_writer.empty())
		{
			markBroken();
			closeSocket();
		}
		_writer.clear();
		throw;
	}
	if (pipelineMetPooler(commands, results, outside)) return executePipeline(commands);   // as unnamed statements now
	return results;
}


void ProtocolSession::readPipelineSync()
{
	// up to this Sync's ReadyForQuery: a CloseComplete of a pending Close, the asynchronous messages
	readToReady("at a pipeline sync point", [](const MessageReader::View& view) { return view.type == '3'; });
}

} // namespace BlueTusk
