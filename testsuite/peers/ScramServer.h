//
// ScramServer.h
//
// Library: BlueTusk test peers
//
// The server side of SCRAM-SHA-256 (RFC 5802, RFC 7677) as PostgreSQL runs it (PostgreSQL docs 55.3.1
// "SCRAM-SHA-256 Authentication"): used by FakeBackend so fault tests can exercise the client's SCRAM code,
// including a server signature that does not verify. Implementation detail of the peers.
//

#ifndef BlueTusk_ScramServer_INCLUDED
#define BlueTusk_ScramServer_INCLUDED

#include <string>

namespace BlueTusk {
namespace Test {
namespace Detail {

class ScramServer
	/// One SCRAM-SHA-256 exchange for a known password. Not thread-safe (one per connection).
{
public:
	explicit ScramServer(const std::string& password, int iterations = 4096);

	std::string serverFirst(const std::string& clientFirstMessage);
		/// Takes "n,,n=,r=<client nonce>" (gs2 header "n", "y" or "p=..."), returns
		/// "r=<client nonce><server nonce>,s=<salt>,i=<iterations>". Throws std::runtime_error when malformed.

	bool verifyClientFinal(const std::string& clientFinalMessage);
		/// Takes "c=<binding>,r=<nonce>,p=<proof>"; true when the nonce matches and the proof verifies.

	std::string serverFinal(bool corrupt = false) const;
		/// "v=<server signature>" (after a successful verifyClientFinal); a wrong signature when corrupt.

	static std::string base64(const std::string& bytes);
	static std::string unbase64(const std::string& text);

private:
	std::string _password;
	int _iterations;
	std::string _salt;
	std::string _clientFirstBare;
	std::string _serverFirst;
	std::string _nonce;
	std::string _authMessage;
	std::string _serverSignature;
};

} } } // namespace BlueTusk::Test::Detail

#endif // BlueTusk_ScramServer_INCLUDED
