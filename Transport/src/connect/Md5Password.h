//
// Md5Password.h
//
// Library: BlueTusk/Transport
//
// The response to AuthenticationMD5Password.
//

#ifndef BlueTusk_Md5Password_INCLUDED
#define BlueTusk_Md5Password_INCLUDED

#include "BlueTusk/Foundation.h"
#include <string>

namespace BlueTusk {

class BlueTusk_Transport_API Md5Password
	/// PostgreSQL's MD5 password response (PostgreSQL docs 55.3.2 and 55.7 AuthenticationMD5Password):
	/// "md5" + hex(md5(hex(md5(password + user)) + salt)). The result is a secret: never log it or put it
	/// in a message. Thread-safe (no state).
{
public:
	static std::string response(const std::string& user, const std::string& password, const std::string& salt);
		/// The 35-character response for the 4-byte salt the server sent.
		/// Throws Poco::InvalidArgumentException when salt is not 4 bytes.
};

} // namespace BlueTusk

#endif // BlueTusk_Md5Password_INCLUDED
