//
// FakeBackendStartup.cpp
//
// Library: BlueTusk test peers
//
// A FakeBackend connection's start-up: SSLRequest, StartupMessage, authentication (PostgreSQL docs 55.2.1
// "Start-up" and 55.3 "SASL Authentication"), the script's start-up actions.
//

#include "FakeBackendSupport.h"
#include "PeerTls.h"
#include "ScramServer.h"
#include "Poco/Net/SecureStreamSocket.h"
#include "Poco/String.h"
#include <algorithm>
#include <thread>

using Poco::Net::StreamSocket;

namespace BlueTusk {
namespace Test {

using namespace FakeBackendSupport;


void FakeBackend::serveStartup(Connection& connection, const BackendScript& script)
{
	auto abort = [&] { return aborted(connection); };
	if (script.directTls)
	{
		// direct TLS (PostgreSQL 17, docs 54.2.10): the first bytes are a ClientHello
		try
		{
			Poco::Net::SecureStreamSocket secure = Poco::Net::SecureStreamSocket::attach(connection.socket, peerServerContext(script.directTlsAlpn));
			secure.setReceiveTimeout(Poco::Timespan(5, 0));
			if (secure.completeHandshake() != 1) return;
			connection.socket = secure;
			++_directTlsSessions;
		}
		catch (Poco::Exception&)
		{
			return;
		}
	}
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
			const std::string secretKey = reader.bytes(reader.remaining()); // 4 bytes in 3.0, up to 256 in 3.2
			handleCancel(processId, secretKey);
			return;
		}
		if ((code >> 16) != 3)
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
			_lastProtocolMinor = code & 0xffff;
		}
		// NegotiateProtocolVersion before anything else, as PostgreSQL does (docs 54.2.1)
		const int requested = code & 0xffff;
		if (requested > script.protocolMinor || !script.unsupportedOptions.empty() || script.negotiateOffer >= 0)
		{
			Wire::MessageWriter negotiate('v');
			// the whole version (3 << 16 | minor), as PostgreSQL sends it
			negotiate.int32((3 << 16) | (script.negotiateOffer >= 0 ? script.negotiateOffer : std::min(requested, script.protocolMinor)));
			negotiate.int32(static_cast<Poco::Int32>(script.unsupportedOptions.size()));
			for (const std::string& option: script.unsupportedOptions) negotiate.cstring(option);
			if (!send(connection, negotiate.finish())) return;
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
		connection.reported[parameter.first] = value;
	}
	{
		std::lock_guard<std::mutex> lock(_mutex);
		connection.processId = _nextProcessId++;
		connection.secretKey = randomBytes(static_cast<std::size_t>(script.cancelKeyLength));
	}
	out += Wire::MessageWriter('K').int32(connection.processId).bytes(connection.secretKey).finish();
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

} } // namespace BlueTusk::Test
