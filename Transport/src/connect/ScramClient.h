//
// ScramClient.h
//
// Library: BlueTusk/Transport
//
// The client side of SCRAM-SHA-256 and SCRAM-SHA-256-PLUS (RFC 5802, RFC 7677, RFC 5929).
//

#ifndef BlueTusk_ScramClient_INCLUDED
#define BlueTusk_ScramClient_INCLUDED

#include "BlueTusk/Foundation.h"
#include "Deadline.h"
#include <string>

namespace BlueTusk {

class BlueTusk_Transport_API ScramClient
	/// One SCRAM-SHA-256 exchange (PostgreSQL docs 55.3.1 "SCRAM-SHA-256 Authentication"):
	///   clientFirstMessage()  -> sent in SASLInitialResponse
	///   clientFinalMessage(serverFirst) -> sent in SASLResponse (checks the server nonce, salt, iterations)
	///   verifyServerFinal(serverFinal)  -> checks the server signature (AuthenticationSASLFinal)
	/// The salted password (PBKDF2-HMAC-SHA-256, OpenSSL PKCS5_PBKDF2_HMAC) is cached process-wide per
	/// (password, salt, iterations) so reconnects skip the 4096 iterations; the cache is keyed by a
	/// SHA-256 digest, holds at most 64 entries and is thread-safe.
	///
	/// The user name sent is empty ("n=,r=...") unless given, as PostgreSQL ignores it and takes the
	/// StartupMessage user. Channel binding: NONE sends gs2 header "n,," (no TLS), SUPPORTED "y,," (TLS, but
	/// the server offered no -PLUS), TLS_SERVER_END_POINT "p=tls-server-end-point,," with the certificate
	/// hash (SCRAM-SHA-256-PLUS).
	///
	/// Errors are BlueTuskAuthenticationException; their messages never contain the password, nonces,
	/// salt, proof or signatures. Every secret held is overwritten on destruction. Not thread-safe (one
	/// exchange, one thread).
{
public:
	enum ChannelBinding
	{
		NONE,                /// the client does not do channel binding (no TLS)
		SUPPORTED,           /// the client could, but the server did not offer SCRAM-SHA-256-PLUS
		TLS_SERVER_END_POINT /// SCRAM-SHA-256-PLUS with tls-server-end-point (RFC 5929 section 4)
	};

	ScramClient(const std::string& password, ChannelBinding binding = NONE, const std::string& channelBindingData = std::string());
		/// Prepares an exchange with a random 18-byte client nonce. channelBindingData is the
		/// tls-server-end-point certificate hash for TLS_SERVER_END_POINT.

	ScramClient(const std::string& password, ChannelBinding binding, const std::string& channelBindingData, const std::string& user, const std::string& clientNonce);
		/// For tests (RFC 7677 vector): a fixed user name and client nonce.

	~ScramClient();

	std::string mechanism() const;
		/// "SCRAM-SHA-256-PLUS" for TLS_SERVER_END_POINT, else "SCRAM-SHA-256".

	std::string clientFirstMessage() const;
		/// gs2 header + "n=<user>,r=<client nonce>".

	std::string clientFinalMessage(const std::string& serverFirstMessage, const Deadline* deadline = nullptr);
		/// Parses "r=<nonce>,s=<salt>,i=<iterations>" (the nonce must extend the client nonce; the iteration
		/// count must be 1..10000000), computes the proof and returns "c=<binding>,r=<nonce>,p=<proof>".
		/// The key derivation keeps within deadline (see saltedPassword()).

	void verifyServerFinal(const std::string& serverFinalMessage) const;
		/// Checks "v=<server signature>" in constant time; "e=<error>" or a wrong signature throws
		/// BlueTuskAuthenticationException.

	static std::string saltedPassword(const std::string& password, const std::string& salt, int iterations,
		const Deadline* deadline = nullptr);
		/// Hi(Normalize(password), salt, i) of RFC 5802 (32 bytes), from the process-wide cache when
		/// possible. The password is used as given (SASLprep's mapping and normalization are identity for
		/// ASCII; see doc/transport.md). The derivation checks deadline (null: none) every 1024 iterations
		/// (about 0.2 ms) and throws Poco::TimeoutException once it has passed, so a server asking for
		/// 10,000,000 iterations cannot hold the open beyond its Timeout; Poco::Net::NetException when the
		/// deadline's open was cancelled.

	static void clearCache();
		/// Empties the salted-password cache (tests, or after a password change).

	static std::size_t cacheSize();
		/// Entries in the salted-password cache.

private:
	std::string gs2Header() const;

	std::string _password;
	ChannelBinding _binding;
	std::string _channelBindingData;
	std::string _user;
	std::string _clientNonce;
	std::string _clientFirstBare;
	std::string _expectedServerSignature;
};

} // namespace BlueTusk

#endif // BlueTusk_ScramClient_INCLUDED
