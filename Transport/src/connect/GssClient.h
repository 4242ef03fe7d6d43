//
// GssClient.h
//
// Library: BlueTusk/Transport
//
// The client side of GSSAPI (Kerberos) authentication through the system GSS-API library (RFC 2743/2744;
// PostgreSQL docs 55.2.1 AuthenticationGSS / AuthenticationGSSContinue, 21.6 "GSSAPI Authentication").
//

#ifndef BlueTusk_Detail_GssClient_INCLUDED
#define BlueTusk_Detail_GssClient_INCLUDED

#include <memory>
#include <string>

namespace BlueTusk {
namespace Detail {

class GssClient
	/// One security context towards "<service>@<host>" (GSS_C_NT_HOSTBASED_SERVICE, as libpq), with mutual
	/// authentication, and credential delegation when asked (GSS Delegation). Uses the default credential
	/// cache (KRB5CCNAME) of the process. Not thread-safe; one per authentication exchange.
{
public:
	static bool available();
		/// Whether BlueTusk was built with the system GSS-API library (BLUETUSK_HAVE_GSSAPI).

	GssClient(const std::string& service, const std::string& host, bool delegate);
		/// Throws BlueTuskAuthenticationException when built without GSS-API or the name cannot be imported.
	~GssClient();

	std::string step(const std::string& input);
		/// Runs gss_init_sec_context with the server's token (empty the first time) and returns the token to
		/// send (possibly empty). Throws BlueTuskAuthenticationException with the GSS-API's major and minor
		/// status texts ("No Kerberos credentials available ...") when the context cannot be established.

	bool complete() const;
		/// Whether the context is established (GSS_S_COMPLETE).

private:
	GssClient(const GssClient&) = delete;
	GssClient& operator = (const GssClient&) = delete;

	struct State;
	std::unique_ptr<State> _state;
	bool _complete = false;
	bool _delegate = false;
	std::string _target;
};

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_GssClient_INCLUDED
