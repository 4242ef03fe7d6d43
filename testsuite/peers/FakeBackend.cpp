//
// FakeBackend.cpp
//
// Library: BlueTusk test peers
//
// Message flows follow PostgreSQL docs 55.2 "Message Flow" (start-up, simple query, extended query,
// canceling requests, termination) and 55.3 "SASL Authentication".
//

#include "FakeBackend.h"
#include "ScramServer.h"
#include "Poco/DigestEngine.h"
#include "Poco/MD5Engine.h"
#include "Poco/RandomStream.h"
#include "Poco/String.h"
#include <chrono>
#include <sys/socket.h>
#include <thread>

using Poco::Net::StreamSocket;

namespace BlueTusk {
namespace Test {


struct FakeBackend::Connection
{
	int id = 0;
	StreamSocket socket;
	std::atomic<bool> kill{false};
	std::atomic<bool> reset{false};
	std::atomic<bool> cancelled{false};
	Poco::Int32 processId = 0;
	Poco::Int32 secretKey = 0;
	char status = 'I';
	std::string user;
	std::map<std::string, std::string> startup;
	std::map<std::string, std::string> statements;
	std::map<std::string, std::string> portals;
};


namespace
{
	const int MAX_MESSAGE_LENGTH = 1 << 20;

	std::string randomBytes(std::size_t count)
	{
		Poco::RandomInputStream random;
		std::string bytes(count, '\0');
		random.read(&bytes[0], static_cast<std::streamsize>(count));
		return bytes;
	}

	std::string md5Hex(const std::string& data)
	{
		Poco::MD5Engine md5;
		md5.update(data);
		return Poco::DigestEngine::digestToHex(md5.digest());
	}

	std::string firstWord(const std::string& lowered)
	{
		std::size_t end = 0;
		while (end < lowered.size() && (std::isalpha(static_cast<unsigned char>(lowered[end])) || lowered[end] == '_')) ++end;
		return lowered.substr(0, end);
	}

	std::string normalize(const std::string& sql)
	{
		std::string text = Detail::trim(sql);
		while (!text.empty() && text.back() == ';')
		{
			text.pop_back();
			text = Detail::trim(text);
		}
		return text;
	}

	std::vector<std::string> splitStatements(const std::string& sql)
		/// Splits at ';' outside quotes; keeps empty statements out unless the whole text is empty.
	{
		std::vector<std::string> statements;
		std::string current;
		char quote = 0;
		for (char c: sql)
		{
			if (quote)
			{
				if (c == quote) quote = 0;
				current.push_back(c);
			}
			else if (c == '\'' || c == '"')
			{
				quote = c;
				current.push_back(c);
			}
			else if (c == ';')
			{
				if (!Detail::trim(current).empty()) statements.push_back(current);
				current.clear();
			}
			else current.push_back(c);
		}
		if (!Detail::trim(current).empty()) statements.push_back(current);
		return statements;
	}

	int countParameters(const std::string& sql)
	{
		int highest = 0;
		for (std::size_t i = 0; i < sql.size(); ++i)
		{
			if (sql[i] == '$' && i + 1 < sql.size() && std::isdigit(static_cast<unsigned char>(sql[i + 1])))
			{
				int n = 0;
				std::size_t j = i + 1;
				while (j < sql.size() && std::isdigit(static_cast<unsigned char>(sql[j]))) n = n * 10 + (sql[j++] - '0');
				if (n > highest) highest = n;
			}
		}
		return highest;
	}

	Wire::ErrorFields fatal(const std::string& sqlState, const std::string& message)
	{
		Wire::ErrorFields fields;
		fields.severity = "FATAL";
		fields.sqlState = sqlState;
		fields.message = message;
		return fields;
	}

	Wire::ErrorFields error(const std::string& sqlState, const std::string& message)
	{
		Wire::ErrorFields fields = fatal(sqlState, message);
		fields.severity = "ERROR";
		return fields;
	}
}


FakeBackend::FakeBackend(const BackendScript& script, const std::string& host, Poco::UInt16 port):
	_server(Detail::listenOn(Poco::Net::SocketAddress(host, port), 64)),
	_address(_server.address()),
	_script(script),
	_nextProcessId(script.processIdBase ? script.processIdBase : 4000)
{
	_acceptor = std::thread([this] { acceptLoop(); });
}


FakeBackend::~FakeBackend()
{
	_stop.request();
	if (_acceptor.joinable()) _acceptor.join();
	_threads.joinAll();
	Detail::closeQuietly(_server);
}


void FakeBackend::setScript(const BackendScript& script)
{
	std::lock_guard<std::mutex> lock(_mutex);
	_script = script;
}


BackendScript FakeBackend::script() const
{
	std::lock_guard<std::mutex> lock(_mutex);
	return _script;
}


Poco::Net::SocketAddress FakeBackend::address() const
{
	return _address;
}


std::string FakeBackend::host() const
{
	return _address.host().toString();
}


Poco::UInt16 FakeBackend::port() const
{
	return _address.port();
}


std::string FakeBackend::hostAndPort() const
{
	return _address.toString();
}


BlueTuskHostEndpoint FakeBackend::endpoint() const
{
	return BlueTuskHostEndpoint(host(), port());
}


int FakeBackend::connectionsAccepted() const { return _accepted; }
int FakeBackend::startupMessages() const { return _startups; }
int FakeBackend::sslRequests() const { return _sslRequests; }
int FakeBackend::sessionsReady() const { return _ready; }
int FakeBackend::passwordsReceived() const { return _passwords; }
int FakeBackend::cancelRequests() const { return _cancels; }
int FakeBackend::terminates() const { return _terminates; }
int FakeBackend::activeConnections() const { return _active; }


std::vector<std::string> FakeBackend::queries() const
{
	std::lock_guard<std::mutex> lock(_mutex);
	return _queries;
}


int FakeBackend::queryCount() const
{
	std::lock_guard<std::mutex> lock(_mutex);
	return static_cast<int>(_queries.size());
}


std::map<std::string, std::string> FakeBackend::lastStartupParameters() const
{
	std::lock_guard<std::mutex> lock(_mutex);
	return _lastStartup;
}


bool waitUntil(const std::function<bool()>& condition, const Poco::Timespan& timeout)
{
	auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(timeout.totalMicroseconds());
	for (;;)
	{
		if (condition()) return true;
		if (std::chrono::steady_clock::now() >= deadline) return false;
		std::this_thread::sleep_for(std::chrono::milliseconds(2));
	}
}


bool FakeBackend::waitForActiveConnections(int count, const Poco::Timespan& timeout) const
{
	return waitUntil([&] { return _active == count; }, timeout);
}


bool FakeBackend::waitForConnectionsAccepted(int count, const Poco::Timespan& timeout) const
{
	return waitUntil([&] { return _accepted >= count; }, timeout);
}


void FakeBackend::closeAllConnections(bool reset)
{
	{
		std::lock_guard<std::mutex> lock(_mutex);
		for (auto& entry: _connections)
		{
			entry.second->reset = reset;
			entry.second->kill = true;
		}
	}
	_stop.notifyAll();
}


void FakeBackend::resetCounters()
{
	_accepted = 0;
	_startups = 0;
	_sslRequests = 0;
	_ready = 0;
	_passwords = 0;
	_cancels = 0;
	_terminates = 0;
	std::lock_guard<std::mutex> lock(_mutex);
	_queries.clear();
	_lastStartup.clear();
}


void FakeBackend::acceptLoop()
{
	while (!_stop.requested())
	{
		_threads.reap();
		try
		{
			if (!_server.poll(Poco::Timespan(0, Detail::POLL_INTERVAL_MS * 1000), Poco::Net::Socket::SELECT_READ)) continue;
			StreamSocket socket = _server.acceptConnection();
			socket.setBlocking(true);
			socket.setNoDelay(true);
			socket.setSendTimeout(Poco::Timespan(2, 0));
			auto connection = std::make_shared<Connection>();
			connection->socket = socket;
			{
				std::lock_guard<std::mutex> lock(_mutex);
				connection->id = ++_nextId;
				_connections[connection->id] = connection;
			}
			++_active;
			++_accepted;
			_threads.start([this, connection] { serve(connection); });
		}
		catch (Poco::Exception&)
		{
			// EAGAIN after a vanished client, or a failed setsockopt: keep accepting
		}
	}
}


void FakeBackend::serve(std::shared_ptr<Connection> connection)
{
	BackendScript script = this->script();
	try
	{
		if (script.action == BackendScript::Action::CloseOnAccept)
		{
			// FIN at once, then wait for the client to go (so unread client bytes never turn it into RST).
			try
			{
				connection->socket.shutdownSend();
			}
			catch (Poco::Exception&)
			{
			}
			char buffer[256];
			auto abort = [&] { return aborted(*connection); };
			for (int i = 0; i < 50 && Detail::waitReadable(connection->socket, abort, 1000); ++i)
			{
				int n = 0;
				try
				{
					n = connection->socket.receiveBytes(buffer, sizeof(buffer));
				}
				catch (Poco::Exception&)
				{
				}
				if (n <= 0) break;
			}
		}
		else
		{
			serveStartup(*connection, script);
		}
	}
	catch (std::exception&)
	{
	}
	Detail::closeQuietly(connection->socket, connection->reset);
	{
		std::lock_guard<std::mutex> lock(_mutex);
		_connections.erase(connection->id);
	}
	--_active;
}


bool FakeBackend::aborted(const Connection& connection) const
{
	return connection.kill || _stop.requested();
}


bool FakeBackend::send(Connection& connection, const std::string& bytes)
{
	if (aborted(connection)) return false;
	return Detail::sendAll(connection.socket, bytes);
}


bool FakeBackend::pause(Connection& connection, int milliseconds, bool cancellable)
	/// Waits milliseconds (negative: until aborted). Returns false when the peer is stopping, the connection
	/// was killed or the client closed it; true when the time ran out or (cancellable) a cancel arrived.
{
	auto start = std::chrono::steady_clock::now();
	for (;;)
	{
		if (aborted(connection)) return false;
		if (cancellable && connection.cancelled) return true;
		int slice = Detail::POLL_INTERVAL_MS;
		if (milliseconds >= 0)
		{
			auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
			if (elapsed >= milliseconds) return true;
			slice = static_cast<int>(std::min<long long>(slice, milliseconds - elapsed));
		}
		bool readable = false;
		try
		{
			readable = connection.socket.poll(Poco::Timespan(0, slice * 1000), Poco::Net::Socket::SELECT_READ);
		}
		catch (Poco::Exception&)
		{
			return false;
		}
		if (readable)
		{
			char byte;
			int n = 0;
			try
			{
				n = connection.socket.receiveBytes(&byte, 1, MSG_PEEK);
			}
			catch (Poco::Exception&)
			{
				return false;
			}
			if (n <= 0) return false; // the client went away
			std::this_thread::sleep_for(std::chrono::milliseconds(slice)); // data waits for later
		}
	}
}


bool FakeBackend::readMessage(Connection& connection, char& type, std::string& body)
{
	char header[5];
	auto abort = [&] { return aborted(connection); };
	if (!Detail::readExact(connection.socket, header, sizeof(header), abort)) return false;
	type = header[0];
	Poco::Int32 length = Wire::MessageReader(std::string(header + 1, 4)).int32();
	if (length < 4 || length > MAX_MESSAGE_LENGTH)
	{
		send(connection, Wire::errorResponse(fatal("08P01", "invalid message length")));
		return false;
	}
	body.assign(static_cast<std::size_t>(length - 4), '\0');
	return body.empty() || Detail::readExact(connection.socket, &body[0], body.size(), abort);
}


void FakeBackend::handleCancel(Poco::Int32 processId, Poco::Int32 secretKey)
{
	{
		std::lock_guard<std::mutex> lock(_mutex);
		for (auto& entry: _connections)
		{
			if (entry.second->processId == processId && entry.second->secretKey == secretKey)
				entry.second->cancelled = true;
		}
	}
	_stop.notifyAll();
}


void FakeBackend::serveStartup(Connection& connection, const BackendScript& script)
{
	auto abort = [&] { return aborted(connection); };
	for (;;)
	{
		char lengthBytes[4];
		if (!Detail::readExact(connection.socket, lengthBytes, 4, abort)) return;
		Poco::Int32 length = Wire::MessageReader(std::string(lengthBytes, 4)).int32();
		if (length < 8 || length > 10000) return; // not a startup packet: PostgreSQL closes silently
		std::string body(static_cast<std::size_t>(length - 4), '\0');
		if (!Detail::readExact(connection.socket, &body[0], body.size(), abort)) return;
		Wire::MessageReader reader(body);
		Poco::Int32 code = reader.int32();
		if (code == Wire::SSL_REQUEST_CODE || code == Wire::GSSENC_REQUEST_CODE)
		{
			++_sslRequests;
			if (script.stallTls && code == Wire::SSL_REQUEST_CODE)
			{
				if (!send(connection, "S")) return;
				// the ClientHello is read and never answered, until the client goes away
				char discard[512];
				while (!abort())
				{
					try
					{
						if (!connection.socket.poll(Poco::Timespan(0, Detail::POLL_INTERVAL_MS * 1000), Poco::Net::Socket::SELECT_READ)) continue;
						if (connection.socket.receiveBytes(discard, sizeof(discard)) <= 0) return;
					}
					catch (Poco::Exception&)
					{
						return;
					}
				}
				return;
			}
			if (!send(connection, "N")) return;
			continue;
		}
		if (code == Wire::CANCEL_REQUEST_CODE)
		{
			++_cancels;
			Poco::Int32 processId = reader.int32();
			Poco::Int32 secretKey = reader.int32();
			handleCancel(processId, secretKey);
			return;
		}
		if (code != Wire::PROTOCOL_3_0)
		{
			send(connection, Wire::errorResponse(fatal("0A000", "unsupported frontend protocol " +
				std::to_string(code >> 16) + "." + std::to_string(code & 0xffff) + ": server supports 3.0 to 3.0")));
			return;
		}
		while (!reader.atEnd())
		{
			std::string name = reader.cstring();
			if (name.empty()) break;
			connection.startup[name] = reader.cstring();
		}
		++_startups;
		{
			std::lock_guard<std::mutex> lock(_mutex);
			_lastStartup = connection.startup;
		}
		break;
	}
	connection.user = connection.startup["user"];

	using Action = BackendScript::Action;
	if (script.action == Action::CloseAfterStartup) return;
	if (script.action == Action::ResetAfterStartup)
	{
		connection.reset = true;
		return;
	}
	if (script.startupDelayMs > 0 && !pause(connection, script.startupDelayMs, false)) return;
	switch (script.action)
	{
	case Action::Garbage:
		send(connection, script.garbageBytes);
		return;
	case Action::Hang:
		pause(connection, -1, false);
		return;
	case Action::StartupError:
		if (!script.errorAfterAuthentication)
		{
			send(connection, Wire::errorResponse(script.error));
			return;
		}
		break;
	default:
		break;
	}

	if (!authenticate(connection, script, connection.user)) return;
	if (script.action == Action::StartupError)
	{
		send(connection, Wire::errorResponse(script.error));
		return;
	}

	std::string out;
	for (const auto& parameter: script.parameters)
	{
		std::string value = parameter.second;
		if (value.empty() && parameter.first == "application_name") value = connection.startup["application_name"];
		if (value.empty() && parameter.first == "session_authorization") value = connection.user;
		out += Wire::parameterStatus(parameter.first, value);
	}
	{
		std::lock_guard<std::mutex> lock(_mutex);
		connection.processId = _nextProcessId++;
		connection.secretKey = Wire::MessageReader(randomBytes(4)).int32();
	}
	out += Wire::backendKeyData(connection.processId, connection.secretKey);
	out += Wire::readyForQuery('I');
	++_ready; // counted before the client can see ReadyForQuery, so a test never reads a stale count
	if (!send(connection, out)) return;
	serveQueries(connection);
}


bool FakeBackend::authenticate(Connection& connection, const BackendScript& script, const std::string& user)
{
	using Auth = BackendScript::Authentication;
	bool ok = true;
	char type = 0;
	std::string body;
	const std::string mechanisms("SCRAM-SHA-256\0\0", 15);
	auto downgrade = [&]()
		/// The script's second request after a first round; the client's answer (if any) is accepted.
	{
		const std::string request = script.downgradeTo == Auth::Cleartext ? Wire::authentication(3) :
			script.downgradeTo == Auth::Md5 ? Wire::authentication(5, randomBytes(4)) : Wire::authentication(10, mechanisms);
		if (!send(connection, request) || !readMessage(connection, type, body) || type != 'p') return false;
		++_passwords;
		return send(connection, Wire::authentication(0));
	};
	switch (script.authentication)
	{
	case Auth::Trust:
		break;
	case Auth::Cleartext:
	{
		if (!send(connection, Wire::authentication(3))) return false;
		if (!readMessage(connection, type, body) || type != 'p') return false;
		++_passwords;
		std::string password = Wire::MessageReader(body).cstring();
		if (script.downgradeTo != Auth::Trust) return downgrade();
		ok = !script.rejectPassword && password == script.password;
		break;
	}
	case Auth::Md5:
	{
		std::string salt = randomBytes(4);
		if (!send(connection, Wire::authentication(5, salt))) return false;
		if (!readMessage(connection, type, body) || type != 'p') return false;
		++_passwords;
		std::string answer = Wire::MessageReader(body).cstring();
		if (script.downgradeTo != Auth::Trust) return downgrade();
		ok = !script.rejectPassword && answer == "md5" + md5Hex(md5Hex(script.password + user) + salt);
		break;
	}
	case Auth::ScramSha256:
	{
		if (!send(connection, Wire::authentication(10, mechanisms))) return false;
		if (!readMessage(connection, type, body) || type != 'p') return false;
		Wire::MessageReader initial(body);
		std::string mechanism = initial.cstring();
		if (mechanism != "SCRAM-SHA-256")
		{
			send(connection, Wire::errorResponse(fatal("08P01", "client selected an invalid SASL authentication mechanism")));
			return false;
		}
		Poco::Int32 length = initial.int32();
		std::string clientFirst = length > 0 ? initial.bytes(static_cast<std::size_t>(length)) : "";
		if (script.downgradeTo != Auth::Trust) return downgrade();
		Detail::ScramServer scram(script.password, script.scramIterations);
		std::string serverFirst;
		try
		{
			serverFirst = scram.serverFirst(clientFirst);
		}
		catch (std::runtime_error&)
		{
			send(connection, Wire::errorResponse(fatal("08P01", "malformed SCRAM message")));
			return false;
		}
		if (!send(connection, Wire::authentication(11, serverFirst))) return false;
		if (!readMessage(connection, type, body) || type != 'p') return false;
		++_passwords;
		ok = !script.rejectPassword && scram.verifyClientFinal(body);
		if (ok && !send(connection, Wire::authentication(12, scram.serverFinal(script.corruptServerSignature)))) return false;
		break;
	}
	}
	if (!ok)
	{
		send(connection, Wire::errorResponse(fatal("28P01", "password authentication failed for user \"" + user + "\"")));
		return false;
	}
	return send(connection, Wire::authentication(0));
}


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
				std::vector<std::string> statements = splitStatements(sql);
				if (statements.empty())
				{
					if (!send(connection, Wire::emptyQueryResponse())) return;
				}
				for (const auto& statement: statements)
				{
					int result = answerStatement(connection, statement, true);
					if (result < 0) return;
					if (result == 0) break;
				}
				if (!send(connection, Wire::readyForQuery(connection.status))) return;
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
				QueryAnswer answer = resolve(sql);
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
				skipToSync = false;
				if (!send(connection, Wire::readyForQuery(connection.status))) return;
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

	QueryAnswer answer = resolve(sql);
	if (answer.delayMs > 0)
	{
		if (!pause(connection, answer.delayMs, true)) return -1;
		if (connection.cancelled)
		{
			connection.cancelled = false;
			if (connection.status == 'T') connection.status = 'E';
			if (!send(connection, Wire::errorResponse(error("57014", "canceling statement due to user request")))) return -1;
			return 0;
		}
	}
	if (answer.disconnect) return -1;
	if (!answer.errorSqlState.empty())
	{
		if (connection.status == 'T') connection.status = 'E';
		if (!send(connection, Wire::errorResponse(error(answer.errorSqlState, answer.errorMessage)))) return -1;
		return 0;
	}

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
	if (!send(connection, out)) return -1;

	if (word == "begin" || word == "start") connection.status = 'T';
	else if (ends) connection.status = 'I';
	return 1;
}


QueryAnswer FakeBackend::resolve(const std::string& sql) const
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
