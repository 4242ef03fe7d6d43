//
// FakeBackendQueries.cpp
//
// Library: BlueTusk test peers
//
// A FakeBackend session's queries: simple and extended query protocol (PostgreSQL docs 55.2.2 and 55.2.3),
// the script's answers, the role probe.
//

#include "FakeBackendSupport.h"
#include "Poco/String.h"

using Poco::Net::StreamSocket;

namespace BlueTusk {
namespace Test {

using namespace FakeBackendSupport;


void FakeBackend::serveQueries(Connection& connection)
{
	bool skipToSync = false;
	for (;;)
	{
		char type = 0;
		std::string body;
		if (!readMessage(connection, type, body)) return;
		if (skipToSync && type != 'S' && type != 'X') continue;
		try
		{
			Wire::MessageReader reader(body);
			switch (type)
			{
			case 'X':
				++_terminates;
				return;
			case 'Q':
			{
				std::string sql = reader.cstring();
				if (connection.socket.available() > 0) ++_queriesPipelined;   // the next message came before this answer
				std::vector<std::string> statements = splitStatements(sql);
				if (statements.empty())
				{
					if (!send(connection, Wire::emptyQueryResponse())) return;
				}
				std::string afterReady;
				int afterReadyTrickleMs = 0;
				bool closeAfterReady = false;
				for (const auto& statement: statements)
				{
					int result = answerStatement(connection, statement, true);
					if (result < 0) return;
					const QueryAnswer answer = resolve(statement, connection.processId);
					closeAfterReady = closeAfterReady || answer.disconnectAfterReady;
					if (!answer.afterReady.empty())
					{
						afterReady = answer.afterReady;
						afterReadyTrickleMs = answer.afterReadyTrickleMs;
					}
					if (result == 0) break;
				}
				if (!send(connection, Wire::readyForQuery(connection.status))) return;
				if (closeAfterReady) return;
				for (char byte: afterReady)
					if (!send(connection, std::string(1, byte)) || !pause(connection, afterReadyTrickleMs, false)) return;
				break;
			}
			case 'P':
			{
				std::string name = reader.cstring();
				connection.statements[name] = reader.cstring();
				if (!send(connection, Wire::simple('1'))) return;
				break;
			}
			case 'B':
			{
				std::string portal = reader.cstring();
				std::string statement = reader.cstring();
				auto it = connection.statements.find(statement);
				if (it == connection.statements.end())
				{
					if (!send(connection, Wire::errorResponse(error("26000", "prepared statement \"" + statement + "\" does not exist")))) return;
					skipToSync = true;
					break;
				}
				connection.portals[portal] = it->second;
				if (!send(connection, Wire::simple('2'))) return;
				break;
			}
			case 'D':
			{
				char kind = reader.byte();
				std::string name = reader.cstring();
				std::string sql = kind == 'S' ? connection.statements[name] : connection.portals[name];
				std::string out;
				if (kind == 'S')
					out += Wire::parameterDescription(std::vector<Poco::UInt32>(static_cast<std::size_t>(countParameters(sql)), Wire::OID_TEXT));
				QueryAnswer answer = resolve(sql, connection.processId);
				if (answer.columns.empty() || !answer.errorSqlState.empty())
				{
					out += Wire::noData();
				}
				else
				{
					std::vector<std::pair<std::string, Poco::UInt32>> columns;
					for (std::size_t i = 0; i < answer.columns.size(); ++i)
						columns.emplace_back(answer.columns[i], i < answer.columnTypes.size() ? answer.columnTypes[i] : Wire::OID_TEXT);
					out += Wire::rowDescription(columns);
				}
				if (!send(connection, out)) return;
				break;
			}
			case 'E':
			{
				std::string portal = reader.cstring();
				int result = answerStatement(connection, connection.portals[portal], false);
				if (result < 0) return;
				if (result == 0) skipToSync = true;
				break;
			}
			case 'S':
				// PostgreSQL 14+ reports changed GUC_REPORT values (a promotion's in_hot_standby too) in front
				// of every ReadyForQuery, a bare Sync's included (postgres.c, ReportChangedGUCOptions).
				skipToSync = false;
				if (!send(connection, roleChanges(connection) + Wire::readyForQuery(connection.status))) return;
				break;
			case 'H':
				break;
			case 'C':
			{
				char kind = reader.byte();
				std::string name = reader.cstring();
				if (kind == 'S') connection.statements.erase(name);
				else connection.portals.erase(name);
				if (!send(connection, Wire::simple('3'))) return;
				break;
			}
			default:
				send(connection, Wire::errorResponse(fatal("08P01", "invalid frontend message type " + std::to_string(static_cast<int>(static_cast<unsigned char>(type))))));
				return;
			}
		}
		catch (std::runtime_error&)
		{
			send(connection, Wire::errorResponse(fatal("08P01", "invalid message format")));
			return;
		}
	}
}


std::string FakeBackend::roleChanges(Connection& connection)
{
	std::string changes;
	std::lock_guard<std::mutex> lock(_mutex);
	for (const char* name: {"in_hot_standby", "default_transaction_read_only"})
	{
		auto reported = connection.reported.find(name);
		const std::string now = _script.parameterValue(name);
		if (reported != connection.reported.end() && !now.empty() && reported->second != now)
		{
			changes += Wire::parameterStatus(name, now);
			reported->second = now;
		}
	}
	return changes;
}


int FakeBackend::answerStatement(Connection& connection, const std::string& sql, bool withRowDescription)
{
	// A CancelRequest counts from the moment the statement was read (queries() shows it), not only once
	// its delay began: clearing the flag just before the delay lost a cancel sent in between (doc/reliability.md,
	// finding 11: FakeBackendTest::testCancelRequestInterruptsDelayedQuery failed about 1 run in 15).
	connection.cancelled = false;
	{
		std::lock_guard<std::mutex> lock(_mutex);
		_queries.push_back(normalize(sql));
	}
	std::string lowered = Detail::lower(normalize(sql));
	std::string word = firstWord(lowered);
	bool ends = word == "commit" || word == "end" || word == "rollback" || word == "abort";

	if (connection.status == 'E' && !ends)
	{
		if (!send(connection, Wire::errorResponse(error("25P02", "current transaction is aborted, commands ignored until end of transaction block")))) return -1;
		return 0;
	}

	// A role change under the session (setScript) is reported before the answer, as PostgreSQL 14+
	// reports in_hot_standby and default_transaction_read_only when they change.
	const std::string changes = roleChanges(connection);
	if (!changes.empty() && !send(connection, changes)) return -1;

	QueryAnswer answer = resolve(sql, connection.processId);
	if (answer.delayMs > 0)
	{
		if (!pause(connection, answer.delayMs, !answer.ignoreCancel)) return -1;
		if (connection.cancelled)
		{
			connection.cancelled = false;
			if (connection.status == 'T') connection.status = 'E';
			if (!send(connection, Wire::errorResponse(error("57014", "canceling statement due to user request")))) return -1;
			return 0;
		}
	}
	if (answer.disconnect) return -1;
	if (!answer.rawReply.empty()) return send(connection, answer.rawReply) ? 1 : -1;
	if (!answer.errorSqlState.empty())
	{
		if (connection.status == 'T') connection.status = 'E';
		if (!send(connection, Wire::errorResponse(error(answer.errorSqlState, answer.errorMessage)))) return -1;
		return 0;
	}

	if (answer.copy != QueryAnswer::Copy::None) return answerCopy(connection, answer);

	std::string out;
	std::string tag = answer.commandTag;
	if (!answer.columns.empty())
	{
		if (withRowDescription)
		{
			std::vector<std::pair<std::string, Poco::UInt32>> columns;
			for (std::size_t i = 0; i < answer.columns.size(); ++i)
				columns.emplace_back(answer.columns[i], i < answer.columnTypes.size() ? answer.columnTypes[i] : Wire::OID_TEXT);
			out += Wire::rowDescription(columns);
		}
		for (const auto& row: answer.rows) out += Wire::dataRow(row);
		if (tag.empty()) tag = "SELECT " + std::to_string(answer.rows.size());
	}
	out += Wire::commandComplete(tag);
	if (answer.trickleMs > 0)
	{
		// A hostile server: the answer one byte at a time, a CancelRequest ignored.
		for (char byte: out)
		{
			if (!send(connection, std::string(1, byte)) || !pause(connection, answer.trickleMs, false)) return -1;
		}
	}
	else if (!send(connection, out)) return -1;

	if (word == "begin" || word == "start") connection.status = 'T';
	else if (ends) connection.status = 'I';
	return 1;
}


int FakeBackend::answerCopy(Connection& connection, const QueryAnswer& answer)
{
	const char responseType = answer.copy == QueryAnswer::Copy::In ? 'G' : 'H';
	if (!send(connection, Wire::MessageWriter(responseType).byte(0).int16(1).int16(0).finish())) return -1;
	int count = 0;
	if (answer.copy == QueryAnswer::Copy::Out)
	{
		for (const auto& chunk: answer.copyData)
		{
			if (count == answer.copyDisconnectAfter) return -1;
			if (!send(connection, Wire::MessageWriter('d').bytes(chunk).finish())) return -1;
			++count;
		}
		if (count == answer.copyDisconnectAfter) return -1;
		if (!send(connection, Wire::simple('c') + Wire::commandComplete("COPY " + std::to_string(count)))) return -1;
		return 1;
	}
	for (;;)
	{
		char type = 0;
		std::string body;
		if (!readMessage(connection, type, body)) return -1;
		switch (type)
		{
		case 'd':
			if (++count == answer.copyDisconnectAfter) return -1;
			break;
		case 'c':
			return send(connection, Wire::commandComplete("COPY " + std::to_string(count))) ? 1 : -1;
		case 'f':
			if (connection.status == 'T') connection.status = 'E';
			return send(connection, Wire::errorResponse(error("57014", "COPY from stdin failed: " + Wire::MessageReader(body).cstring()))) ? 0 : -1;
		case 'H':
		case 'S':
			break;   // Flush and Sync are ignored during COPY IN (PostgreSQL docs 55.2.6)
		default:
			send(connection, Wire::errorResponse(fatal("08P01", "unexpected message type during COPY")));
			return -1;
		}
	}
}


QueryAnswer FakeBackend::resolve(const std::string& sql, Poco::Int32 processId) const
{
	std::string key = normalize(sql);
	std::lock_guard<std::mutex> lock(_mutex);
	auto it = _script.answers.find(key);
	if (it != _script.answers.end()) return it->second;

	std::string lowered = Detail::lower(key);
	std::string word = firstWord(lowered);
	bool recovery = lowered.find("pg_is_in_recovery") != std::string::npos;
	bool readOnly = lowered.find("transaction_read_only") != std::string::npos;
	if ((word == "select" || word == "show") && (recovery || readOnly))
	{
		QueryAnswer answer;
		Wire::TextRow row;
		if (recovery)
		{
			answer.columns.push_back("pg_is_in_recovery");
			answer.columnTypes.push_back(Wire::OID_BOOL);
			row.push_back(std::string(_script.inRecovery ? "t" : "f"));
		}
		if (readOnly)
		{
			answer.columns.push_back(word == "show" ? "transaction_read_only" : "current_setting");
			answer.columnTypes.push_back(Wire::OID_TEXT);
			row.push_back(std::string(_script.transactionReadOnly ? "on" : "off"));
		}
		if (lowered.find("pg_backend_pid") != std::string::npos)
		{
			answer.columns.push_back("pg_backend_pid");
			answer.columnTypes.push_back(Wire::OID_INT4);
			row.push_back(std::to_string(processId));
		}
		answer.rows.push_back(row);
		return answer;
	}
	if (word == "select" || word == "show" || word == "values" || word == "with" || word == "table")
		return _script.defaultAnswer;
	if (word == "begin" || word == "start") return QueryAnswer::command("BEGIN");
	if (word == "commit" || word == "end") return QueryAnswer::command("COMMIT");
	if (word == "rollback" || word == "abort") return QueryAnswer::command("ROLLBACK");
	if (word == "insert") return QueryAnswer::command("INSERT 0 1");
	if (word == "update") return QueryAnswer::command("UPDATE 1");
	if (word == "delete") return QueryAnswer::command("DELETE 1");
	if (word == "discard") return QueryAnswer::command(Poco::toUpper(key));
	return QueryAnswer::command(Poco::toUpper(word));
}

} } // namespace BlueTusk::Test
