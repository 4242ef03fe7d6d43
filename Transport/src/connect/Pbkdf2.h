//
// Pbkdf2.h
//
// Library: BlueTusk/Transport
//
// PBKDF2-HMAC-SHA-256 for SCRAM's Hi() that keeps within a Deadline (doc/reliability.md).
//

#ifndef BlueTusk_Detail_Pbkdf2_INCLUDED
#define BlueTusk_Detail_Pbkdf2_INCLUDED

#include "Deadline.h"
#include <string>

namespace BlueTusk {
namespace Detail {

std::string pbkdf2Sha256(const std::string& password, const std::string& salt, int iterations, const Deadline* deadline);
	/// PBKDF2-HMAC-SHA-256 with a 32-byte result (RFC 5802 Hi(), one block), computed with OpenSSL's
	/// digests in chunks of CHECK_INTERVAL iterations. Between chunks it checks deadline (null: none): when
	/// the deadline has passed it throws Poco::TimeoutException ("SCRAM key derivation: ... iterations
	/// ..."), when its open was cancelled Poco::Net::NetException. A chunk costs about 0.2 ms on a 2020s
	/// core, which bounds the overrun. Throws BlueTuskAuthenticationException when OpenSSL fails.
	/// Thread-safe.

const int PBKDF2_CHECK_INTERVAL = 1024;

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_Pbkdf2_INCLUDED
