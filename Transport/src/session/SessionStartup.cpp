//
// SessionStartup.cpp
//
// Library: BlueTusk/Transport
//
// The start of a ProtocolSession: SSL Mode handling, StartupMessage, authentication, until the first
// ReadyForQuery (PostgreSQL docs 55.2.1 "Start-up", 55.2.10 "SSL Session Encryption", 55.3 "SASL").
//

#include "ProtocolSession.h"
#include "PoolerDetection.h"
#include "PoolerRefusals.h"
#include "connect/CancellationWatch.h"
#include "connect/Dialer.h"
#include "connect/Md5Password.h"
#include "connect/PasswordFile.h"
#include "connect/ScramClient.h"
#include "connect/TlsUpgrade.h"
#include "connect/AuthenticationPolicy.h"
#include "connect/GssClient.h"
#include "protocol/SigpipeGuard.h"
#include "connect/StartupParameters.h"
#include "Poco/Logger.h"
#include "Poco/NumberFormatter.h"
#include "Poco/Net/NetException.h"
#include "Poco/Net/SSLException.h"
#include <algorithm>
#include <openssl/crypto.h>

namespace BlueTusk {

namespace {

Poco::Logger& startupLogger()
{
	static Poco::Logger& instance = Poco::Logger::get("BlueTusk.Transport");
	return instance;
}


void wipe(std::string& secret)
{
	if (!secret.empty()) OPENSSL_cleanse(&secret[0], secret.size());
	secret.clear();
}


class DeadlineScope
	/// Points the session at the startup deadline for the duration of startup().
{
public:
	DeadlineScope(const Deadline*& slot, const Deadline& deadline): _slot(slot)
	{
		_slot = &deadline;
	}

	~DeadlineScope()
	{
		_slot = nullptr;
	}

private:
	const Deadline*& _slot;
};


Poco::Net::SSLException directTlsFailure(const Poco::Exception& exc)
	/// A direct TLS handshake that failed: a server before PostgreSQL 17 reads the ClientHello as a startup
	/// packet of impossible length and closes the connection (libpq 17 fails the same way).
{
	return Poco::Net::SSLException("the direct TLS handshake (SSL Negotiation=direct) failed: " + exc.displayText() +
		"; the server may not support direct TLS, which needs PostgreSQL 17 or later (use sslnegotiation=postgres)");
}


bool isUnixSocket(const Poco::Net::SocketAddress& address)
{
	return address.family() == Poco::Net::SocketAddress::UNIX_LOCAL;
}


std::string authenticationName(Poco::Int32 code)
{
	switch (code)
	{
	case 2: return "Kerberos V5";
	case 6: return "SCM credentials";
	case 7: return "GSSAPI";
	case 8: return "GSSAPI";
	case 9: return "SSPI";
	default: return "request code " + std::to_string(code);
	}
}

} // namespace


void ProtocolSession::startup(Poco::Net::StreamSocket& socket, const Poco::Net::SocketAddress& address, const ConnectionSettings& settings, const Deadline& deadline)
{
	DeadlineScope scope(_deadline, deadline);
	{
		Poco::FastMutex::ScopedLock lock(_cancelMutex);
		_address = address;
	}
	_commandTimeout = settings.commandTimeout.totalMicroseconds() > 0 ? settings.commandTimeout : Poco::Timespan(0);
	_defaultCommandTimeout = _commandTimeout;
	_maintenanceTimeout = settings.connectTimeout.totalMicroseconds() > 0 ? settings.connectTimeout : Poco::Timespan(0);
	_autoPooling = settings.serverPooling == ServerPooling::Auto;
	_poolerGeneration = Detail::transactionPoolerGeneration();
	_transactionPooling = settings.serverPooling == ServerPooling::Transaction ||
		(_autoPooling && Detail::isTransactionPooler(_endpoint.toString()));
	configureStatementCache(static_cast<std::size_t>(std::max(settings.maxAutoPrepare, 0)), static_cast<std::size_t>(std::max(settings.autoPrepareMinUsages, 1)));
	// TLS is not used over Unix-domain sockets (as libpq: the server does not offer it there).
	const bool unixSocket = address.family() == Poco::Net::SocketAddress::UNIX_LOCAL;
	const SslMode mode = unixSocket ? SslMode::Disable : settings.sslMode;
	try
	{
		switch (mode)
		{
		case SslMode::Disable:
			negotiate(socket, settings, mode, false);
			break;
		case SslMode::Allow:
			try
			{
				negotiate(socket, settings, mode, false);
			}
			catch (BlueTuskAuthenticationException& exc)
			{
				const BlueTuskServerException* server = dynamic_cast<const BlueTuskServerException*>(exc.nested());
				if (!server || server->sqlState() != "28000") throw;
				if (startupLogger().debug()) startupLogger().debug("%s: the server rejected a session without TLS (SSL Mode=allow); retrying with TLS", where());
				reconnect(socket);
				negotiate(socket, settings, mode, true);
			}
			break;
		case SslMode::Prefer:
			try
			{
				negotiate(socket, settings, mode, true);
			}
			catch (Poco::Net::SSLException& exc)
			{
				if (!_tlsHandshakeFailed) throw;
				if (startupLogger().debug()) startupLogger().debug("%s: TLS handshake failed (%s); retrying without TLS (SSL Mode=prefer)", where(), exc.displayText());
				reconnect(socket);
				negotiate(socket, settings, mode, false);
			}
			break;
		default:
			negotiate(socket, settings, mode, true);
			break;
		}
		if (settings.targetSessionAttributes != TargetSessionAttributes::Any) probeRole(false);
		_ranSinceReset = false;   // a new session is what every reset returns to (ranSinceReset())
		// Leave the cancellation watch: from here on the socket belongs to the session alone.
		if (deadline.watch() && deadline.watch()->remove(_socket))
			throw Poco::Net::NetException("connection attempt cancelled");
	}
	catch (Poco::TimeoutException& exc)
	{
		_broken = true;
		// the SCRAM key derivation's own timeout says what took the time; any other is the server's silence
		if (exc.message().compare(0, 5, "SCRAM") == 0) throw;
		throw Poco::TimeoutException("no answer within the connect timeout of " + Poco::NumberFormatter::format(deadline.timeout().totalMilliseconds()) +
			" ms, during " + _phase);
	}
	catch (BlueTuskException& exc)
	{
		_broken = true;
		// SCRAM's errors and the server's own ErrorResponse do not know the endpoint: name it (a hostile
		// or broken server must be identifiable, doc/reliability.md)
		if (exc.message().find(_endpoint.toString()) == std::string::npos &&
			(dynamic_cast<BlueTuskAuthenticationException*>(&exc) || dynamic_cast<BlueTuskServerException*>(&exc)))
		{
			exc.addContext("server " + _endpoint.toString());
		}
		throw;
	}
	catch (...)
	{
		_broken = true;
		throw;
	}
	_reader.setMaxLength(MessageReader::DEFAULT_MAX_LENGTH);
	_createdAt.update();
	_receiveTimeoutSet = false;
	_sendTimeoutSet = false;
}


void ProtocolSession::reconnect(Poco::Net::StreamSocket& socket)
{
	if (_deadline->watch()) _deadline->watch()->remove(socket);
	try
	{
		Detail::SigpipeGuard guard;
		socket.close();
	}
	catch (...)
	{
	}
	_phase = "reconnect";
	socket = Dialer::connect(_address, *_deadline);
}


void ProtocolSession::startTls(Poco::Net::StreamSocket& socket, const ConnectionSettings& settings, SslMode mode)
{
	const Deadline& deadline = *_deadline;
	// The context (root certificate, client certificate and key) is built outside the handshake:
	// a file that cannot be used is an error in every SSL Mode, never a reason for prefer to go on
	// without TLS (libpq: pqsecure_initialize() failing ends the attempt).
	const TlsUpgrade::Options options = TlsUpgrade::Options::from(settings, mode);
	const Poco::Net::Context::Ptr context = TlsUpgrade::context(options);
	// Not default-constructed: that would build Poco's default client context (doc/performance.md, R7).
	Poco::Net::SecureStreamSocket secure = [&]()
	{
		try
		{
			return TlsUpgrade::handshake(_socket, _endpoint, options, context, deadline);
		}
		catch (Poco::Net::CertificateValidationException&)
		{
			_tlsHandshakeFailed = true;
			throw;
		}
		catch (Poco::Net::SSLException& exc)
		{
			_tlsHandshakeFailed = true;
			if (options.direct && exc.message().find("ALPN") == std::string::npos) throw directTlsFailure(exc);
			throw;
		}
		catch (Poco::Net::NetException& exc)
		{
			if (!options.direct) throw;
			_tlsHandshakeFailed = true;
			throw directTlsFailure(exc);
		}
	}();
	if (deadline.watch()) deadline.watch()->add(secure);
	TlsUpgrade::checkCertificateMode(options, context, _endpoint);
	_channelBinding = TlsUpgrade::tlsServerEndPoint(secure);
	socket = secure;
	_socket = socket;
	_receiveTimeoutSet = false;
	_tls = true;
}


void ProtocolSession::negotiate(Poco::Net::StreamSocket& socket, const ConnectionSettings& settings, SslMode mode, bool tls)
{
	_socket = socket;
	_reader.clear();
	_writer.clear();
	_parameters.clear();
	_tls = false;
	_tlsHandshakeFailed = false;
	_ready = false;
	_broken = true;
	_receiveTimeoutSet = false;
	_sendTimeoutSet = false;
	_authenticationMethod = "trust";
	_channelBinding.clear();
	_scram.reset();
	_gss.reset();
	_scramVerified = false;
	{
		Poco::FastMutex::ScopedLock lock(_cancelMutex);
		_processId = 0;
		_secretKey.clear();
	}
	const Deadline& deadline = *_deadline;
	_socket.setSendTimeout(deadline.socketTimeout());
	if (tls && settings.sslNegotiation == SslNegotiation::Direct)
	{
		// PostgreSQL 17's direct TLS (docs 54.2.10): no SSLRequest, the handshake at once with ALPN
		_phase = "TLS handshake (direct)";
		startTls(socket, settings, mode);
	}
	else if (tls)
	{
		_phase = "TLS negotiation";
		_writer.sslRequest();
		_writer.send(_socket);
		setReceiveTimeout(deadline.socketTimeout());
		const char answer = _reader.receiveByte(_socket);
		if (answer == 'S')
		{
			_phase = "TLS handshake";
			startTls(socket, settings, mode);
		}
		else if (answer == 'N')
		{
			if (mode != SslMode::Prefer)
			{
				throw Poco::Net::SSLException("the server refused TLS (it answered 'N' to SSLRequest), but SSL Mode=" + toString(mode) +
					" requires it; turn ssl on in the server or use SSL Mode=prefer or disable");
			}
		}
		else if (answer == 'E')
		{
			throw BlueTuskProtocolException("the server answered SSLRequest with an error message (it does not speak protocol 3.0)");
		}
		else
		{
			throw BlueTuskProtocolException("invalid answer to SSLRequest from the server");
		}
	}

	if (!_tls && settings.sslCertMode == SslCertMode::Require)
	{
		// libpq 16 fails such a session at AuthenticationOk ("server accepted connection without a valid
		// SSL certificate"); without TLS no certificate can be sent, so BlueTusk stops before the startup
		throw Poco::Net::SSLException("SSL Certificate Mode=require (sslcertmode) needs a TLS session with a client certificate, but the session to " +
			where() + " does not use TLS (SSL Mode=" + toString(mode) + (isUnixSocket(_address) ? ", a Unix-domain socket" : "") + ")");
	}

	_phase = "startup";
	_username = settings.username; // an error before any authentication request names the configured user too
	_protocolVersion = settings.requestedProtocolVersion();
	_writer.startupMessage(Detail::startupParameters(settings), _protocolVersion);
	_socket.setSendTimeout(deadline.socketTimeout());
	_writer.send(_socket);

	for (;;)
	{
		setReceiveTimeout(deadline.socketTimeout());
		BackendMessage message = _reader.receive(_socket);
		switch (message.type)
		{
		case 'R':
			authenticate(message, settings);
			break;
		case 'E':
			startupError(message);
			break;
		case 'K':
			backendKey(message);
			break;
		case 'v':
			negotiateProtocolVersion(message, settings);
			break;
		case 'Z':
			if (_scram && !_scramVerified)
				throw BlueTuskAuthenticationException("the server ended SCRAM authentication without proving it knows the password");
			handleReady(message);
			{
				Poco::FastMutex::ScopedLock lock(_cancelMutex);
				_ready = true;
			}
			_broken = false;
			_scram.reset();
			_phase = "role probe";
			return;
		default:
			if (!handleAsync(message))
				throw BlueTuskProtocolException("unexpected " + message.typeName() + " from the server during " + _phase);
			break;
		}
	}
}


void ProtocolSession::negotiateProtocolVersion(const BackendMessage& message, const ConnectionSettings& settings)
{
	// PostgreSQL docs 54.2.1 and 54.7 "NegotiateProtocolVersion": a server that does not support the minor
	// version asked for names the newest one it does, and lists the _pq_ options it does not know. BlueTusk
	// sends no _pq_ options, so a list that names any is as invalid as a "downgrade" to a higher version
	// (libpq 18 refuses both the same way).
	// The version is sent whole (major << 16 | minor), as in the StartupMessage (PostgreSQL sends its
	// FrontendProtocol; libpq compares whole versions).
	const std::pair<Poco::Int32, std::vector<std::string>> whole = message.negotiateProtocolVersion();
	if ((whole.first >> 16) != 3)
		throw BlueTuskProtocolException("invalid NegotiateProtocolVersion from the server: it offers protocol " +
			std::to_string(whole.first >> 16) + "." + std::to_string(whole.first & 0xffff) + ", but 3." + std::to_string(_protocolVersion) + " was requested");
	const std::pair<Poco::Int32, std::vector<std::string>> offer(whole.first & 0xffff, whole.second);
	if (offer.first >= _protocolVersion)
		throw BlueTuskProtocolException("invalid NegotiateProtocolVersion from the server: it offers protocol 3." + std::to_string(offer.first) +
			", but 3." + std::to_string(_protocolVersion) + " was requested (a server may only offer a lower version)");
	if (!offer.second.empty())
		throw BlueTuskProtocolException("invalid NegotiateProtocolVersion from the server: it reports the protocol option \"" + offer.second.front() +
			"\" as unsupported, which BlueTusk did not request (" + std::to_string(offer.second.size()) + " option(s) listed)");
	if (offer.first < settings.minProtocolVersion)
		// (the address is named by the attempt that carries this message)
		throw BlueTuskProtocolException("the server supports protocol version 3." + std::to_string(offer.first) +
			" at most, but Min Protocol Version (min_protocol_version) is 3." + std::to_string(settings.minProtocolVersion) +
			" (PostgreSQL 18 speaks 3.2; use min_protocol_version=3.0 for older servers)");
	if (offer.first != 0 && offer.first != 2)
		throw BlueTuskProtocolException("the server offers protocol version 3." + std::to_string(offer.first) +
			", which BlueTusk does not speak (it speaks 3.0 and 3.2)");
	if (startupLogger().debug()) startupLogger().debug("%s: the server speaks protocol 3.%d (3.%d requested)", where(), static_cast<int>(offer.first), _protocolVersion);
	_protocolVersion = offer.first;
}


void ProtocolSession::backendKey(const BackendMessage& message)
{
	std::pair<Poco::Int32, std::string> key = message.backendKey();
	// protocol 3.0: exactly 4 bytes; 3.2: 4 to 256 (PostgreSQL docs 54.7 "BackendKeyData"; libpq 18 checks the same)
	if (_protocolVersion == 0 && key.second.size() != 4)
		throw BlueTuskProtocolException("invalid BackendKeyData from the server: a cancel key of " + std::to_string(key.second.size()) +
			" bytes is not allowed in protocol version 3.0 (it must be 4 bytes)");
	if (key.second.size() < 4 || key.second.size() > 256)
		throw BlueTuskProtocolException("invalid BackendKeyData from the server: a cancel key of " + std::to_string(key.second.size()) +
			" bytes (protocol 3.2 allows 4 to 256)");
	Poco::FastMutex::ScopedLock lock(_cancelMutex);
	_processId = key.first;
	_secretKey = std::move(key.second);
}


void ProtocolSession::startupError(const BackendMessage& message)
{
	BlueTuskServerException::Fields fields = message.errorFields();
	fields.message += Detail::startupParameterHint(fields.message);   // a pooler's refusal of Options / Search Path
	BlueTuskServerException error(fields, false);
	_broken = true;
	if (fields.sqlState.compare(0, 2, "28") == 0)
		throw BlueTuskAuthenticationException("the server rejected the session for user \"" + _username + "\" at " + where() + ": " + error.message(), error);
	if (fields.sqlState.empty() && _phase == "authentication")
		throw BlueTuskAuthenticationException("authentication failed at " + where() + ": " + error.message(), error);
	throw error;
}


std::string ProtocolSession::password(const ConnectionSettings& settings, const std::string& method) const
{
	if (!settings.password.empty()) return settings.password;
	std::optional<std::string> fromFile = PasswordFile::passwordFor(_endpoint, settings);
	if (fromFile) return *fromFile;
	const std::string file = PasswordFile::pathFor(settings);
	throw BlueTuskAuthenticationException("the server at " + where() + " asked for a password (" + method +
		" authentication) but none was given: set Password, or add a line for this host, port, database and user to the password file" +
		(file.empty() ? std::string() : " \"" + file + "\""));
}


void ProtocolSession::authenticate(const BackendMessage& message, const ConnectionSettings& settings)
{
	_phase = "authentication";
	_username = settings.username;
	const Poco::Int32 code = message.authenticationCode();
	switch (code)
	{
	case 0: // AuthenticationOk
		if (_scram && !_scramVerified)
			throw BlueTuskAuthenticationException("the server ended SCRAM authentication without proving it knows the password");
		Detail::AuthenticationPolicy::completed(settings, where(), _authenticationMethod);
		_phase = "startup";
		return;
	case 3: // AuthenticationCleartextPassword
		{
			Detail::AuthenticationPolicy::request(settings, where(), code, _authenticationMethod);
			_authenticationMethod = "cleartext";
			std::string secret = password(settings, "cleartext password");
			_writer.passwordMessage(secret);
			wipe(secret);
		}
		break;
	case 5: // AuthenticationMD5Password
		{
			Detail::AuthenticationPolicy::request(settings, where(), code, _authenticationMethod);
			_authenticationMethod = "MD5";
			std::string salt = message.authenticationData();
			if (salt.size() != 4) throw BlueTuskProtocolException("malformed AuthenticationMD5Password from the server");
			std::string secret = password(settings, "MD5");
			std::string response = Md5Password::response(settings.username, secret, salt);
			_writer.passwordMessage(response);
			wipe(secret);
			wipe(response);
		}
		break;
	case 10: // AuthenticationSASL
		{
			if (_scram) throw BlueTuskProtocolException("the server restarted SASL authentication");
			Detail::AuthenticationPolicy::request(settings, where(), code, _authenticationMethod);
			const std::vector<std::string> mechanisms = message.saslMechanisms();
			const bool offersPlain = std::find(mechanisms.begin(), mechanisms.end(), "SCRAM-SHA-256") != mechanisms.end();
			const bool offersPlus = std::find(mechanisms.begin(), mechanisms.end(), "SCRAM-SHA-256-PLUS") != mechanisms.end();
			const ScramClient::ChannelBinding binding = Detail::AuthenticationPolicy::binding(settings, where(), _tls, offersPlus, !_channelBinding.empty());
			if (binding != ScramClient::TLS_SERVER_END_POINT && !offersPlain)
			{
				std::string offered;
				for (const auto& name: mechanisms) offered += (offered.empty() ? "" : ", ") + name;
				throw BlueTuskAuthenticationException("the server at " + where() + " offers only the SASL mechanisms " + offered +
					", which BlueTusk does not support (it supports SCRAM-SHA-256 and, over TLS, SCRAM-SHA-256-PLUS)");
			}
			std::string secret = password(settings, "SCRAM-SHA-256");
			_scram.reset(new ScramClient(secret, binding, binding == ScramClient::TLS_SERVER_END_POINT ? _channelBinding : std::string()));
			wipe(secret);
			_authenticationMethod = _scram->mechanism();
			_writer.saslInitialResponse(_scram->mechanism(), _scram->clientFirstMessage());
		}
		break;
	case 11: // AuthenticationSASLContinue
		if (!_scram) throw BlueTuskProtocolException("AuthenticationSASLContinue without a SASL exchange");
		_writer.saslResponse(_scram->clientFinalMessage(message.authenticationData(), _deadline));
		break;
	case 12: // AuthenticationSASLFinal
		if (!_scram) throw BlueTuskProtocolException("AuthenticationSASLFinal without a SASL exchange");
		_scram->verifyServerFinal(message.authenticationData());
		_scramVerified = true;
		return;
	case 7: // AuthenticationGSS (PostgreSQL docs 55.2.1): the first token of a GSSAPI exchange
		{
			if (_gss) throw BlueTuskProtocolException("the server restarted GSSAPI authentication");
			Detail::AuthenticationPolicy::request(settings, where(), code, _authenticationMethod);
			_authenticationMethod = "GSSAPI";
			// the host as written (libpq uses the host name, not the address); krbsrvname names the service
			_gss = std::make_shared<Detail::GssClient>(settings.kerberosServiceName, _endpoint.host(), settings.gssDelegation);
			const std::string token = _gss->step(std::string());
			if (token.empty()) throw BlueTuskAuthenticationException("GSSAPI: no initial token to send to the server at " + where());
			_writer.saslResponse(token); // GSSResponse: 'p' with the token's bytes
		}
		break;
	case 8: // AuthenticationGSSContinue: the server's token; answer while the context needs more
		{
			if (!_gss) throw BlueTuskProtocolException("AuthenticationGSSContinue without a GSSAPI exchange");
			const std::string token = _gss->step(message.authenticationData());
			if (token.empty()) return; // established: AuthenticationOk follows
			_writer.saslResponse(token);
		}
		break;
	case 2:
	case 6:
	case 9:
		throw BlueTuskAuthenticationException("the server at " + where() + " asked for " + authenticationName(code) +
			" authentication, which BlueTusk does not support (it supports trust, password, md5, scram-sha-256 and gss in pg_hba.conf)");
	default:
		throw BlueTuskAuthenticationException("the server at " + where() + " asked for an unknown authentication method (" + authenticationName(code) + ")");
	}
	_socket.setSendTimeout(_deadline->socketTimeout());
	_writer.send(_socket);
}

} // namespace BlueTusk
