//
// AuthenticationPolicy.h
//
// Library: BlueTusk/Transport
//
// What the client lets a server ask for during authentication (doc/reliability.md): no change of method
// in the middle of an exchange, libpq 16's require_auth, and channel_binding.
//

#ifndef BlueTusk_Detail_AuthenticationPolicy_INCLUDED
#define BlueTusk_Detail_AuthenticationPolicy_INCLUDED

#include "BlueTusk/ConnectionSettings.h"
#include "ScramClient.h"
#include "Poco/Types.h"
#include <string>

namespace BlueTusk {
namespace Detail {

struct AuthenticationPolicy
	/// Checks the authentication requests of one startup against the settings. begun is the method of
	/// the exchange so far as ProtocolSession records it ("trust" before any request, "cleartext", "MD5",
	/// "SCRAM-SHA-256", "SCRAM-SHA-256-PLUS"); where names the server ("db-a:5432 (10.0.0.1:5432)") in
	/// messages. Every refusal throws BlueTuskAuthenticationException, which stops a multi-host open like
	/// a rejected password. Stateless; thread-safe.
{
	static void request(const ConnectionSettings& settings, const std::string& where, Poco::Int32 code, const std::string& begun);
		/// Before answering the authentication request code (3 cleartext, 5 MD5, 10 SASL): refuses it when
		/// another method has already begun in this exchange (a SCRAM exchange, or an MD5 or cleartext
		/// password sent), when require_auth does not allow it, and, for cleartext and MD5, when Channel
		/// Binding=require.

	static ScramClient::ChannelBinding binding(const ConnectionSettings& settings, const std::string& where, bool tls,
		bool offersPlus, bool haveCertificateHash);
		/// The SCRAM channel binding for an AuthenticationSASL: TLS_SERVER_END_POINT when the session uses
		/// TLS, the server offers SCRAM-SHA-256-PLUS and Channel Binding is not disable; otherwise SUPPORTED
		/// over TLS (the client could bind: a stripped PLUS offer is detected by the server) or NONE.
		/// Throws when Channel Binding=require and SCRAM-SHA-256-PLUS cannot be used.

	static void completed(const ConnectionSettings& settings, const std::string& where, const std::string& begun);
		/// At AuthenticationOk: refuses a server that authenticated the client without asking when
		/// require_auth does not allow "none", and any method but SCRAM-SHA-256-PLUS when Channel
		/// Binding=require.
};

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_AuthenticationPolicy_INCLUDED
