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
#include "BlueTusk/ProtocolSession.h"

namespace BlueTusk {

namespace {

const std::size_t CHUNK_STATEMENTS = 256;

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
	PipelineCommand command;
	command.sql = sql;
	command.parameters = parameters;
	_commands.push_back(std::move(command));
	return _statements++;
}


std::size_t Pipeline::add(const PreparedStatement& statement, const Parameters& parameters)
{
	PipelineCommand command;
	command.statement = statement;
	command.sql = statement.sql();
	command.parameters = parameters;
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
		_writer.bind(std::string(), statement.name, command.parameters, statement.parameterTypes, statement.resultFormats);
	}
	else
	{
		std::vector<Poco::UInt32> types;
		for (const Parameter& parameter: command.parameters) types.push_back(parameter.naturalOid());
		_writer.parse(std::string(), command.sql, types);
		_writer.bind(std::string(), std::string(), command.parameters, types, TEXT_RESULTS);
		_writer.describePortal(std::string());
	}
	_writer.execute(std::string(), 0);
}


bool ProtocolSession::readPipelineStatement(const PipelineCommand& command, PipelineResult& result)
{
	result.result = QueryResult();
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
				result.result.rows.push_back(message.dataRow(result.result.columns.size()));
				break;
			case 'C':
				result.result.commandTag = message.commandComplete();
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
	// Check every statement before anything is sent: a refusal later could only end a segment early.
	std::string scratch;
	for (const PipelineCommand& command: commands)
	{
		if (command.isSync) continue;
		if (command.statement.isValid())
		{
			checkOwned(command.statement.description());
			const PreparedStatement::Description& statement = *command.statement.description();
			if (statement.needsReprepare) reprepare(*command.statement.description());
			if (command.parameters.size() != statement.parameterTypes.size())
				throw BlueTuskUsageException("the statement has " + std::to_string(statement.parameterTypes.size()) + " parameters but " +
					std::to_string(command.parameters.size()) + " values were given: \"" + statement.sql + "\"");
			for (std::size_t p = 0; p < command.parameters.size(); ++p)
			{
				scratch.clear();
				command.parameters[p].encode(statement.parameterTypes[p], p, scratch);
			}
		}
	}
	if (_discardPending) reset(true);
	std::vector<PipelineResult> results;
	std::size_t failedIndex = 0;
	bool segmentFailed = false;
	std::size_t next = 0;
	std::size_t statementIndex = 0;
	_cancelSentForTimeout = false;
	while (next < commands.size())
	{
		// write one chunk: up to CHUNK_STATEMENTS statements, or to the end
		const std::size_t first = next;
		std::size_t statements = 0;
		try
		{
			if (first == 0) writePendingCloses();
			while (next < commands.size() && statements < CHUNK_STATEMENTS)
			{
				writePipelineCommand(commands[next]);
				if (!commands[next].isSync) ++statements;
				++next;
			}
			if (!commands[next - 1].isSync) _writer.flush();
		}
		catch (...)
		{
			abandonWrite();
			throw;
		}
		_closesInFlight.clear();
		sendWriter();
		for (std::size_t i = first; i < next; ++i)
		{
			const PipelineCommand& command = commands[i];
			if (command.isSync)
			{
				BackendMessage message;
				for (;;)   // up to this Sync's ReadyForQuery
				{
					receiveInCycle(message);
					if (message.type == 'Z')
					{
						handleReady(message);
						break;
					}
					if (!handleAsync(message) && message.type != '3')
					{
						markBroken();
						closeSocket();
						throw BlueTuskProtocolException("unexpected " + message.typeName() + " from " + where() + " at a pipeline sync point");
					}
				}
				segmentFailed = false;
				continue;
			}
			PipelineResult result;
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
			results.push_back(std::move(result));
			++statementIndex;
		}
	}
	return results;
}

} // namespace BlueTusk
