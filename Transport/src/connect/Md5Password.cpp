//
// Md5Password.cpp
//
// Library: BlueTusk/Transport
//

#include "Md5Password.h"
#include "Poco/DigestEngine.h"
#include "Poco/Exception.h"
#include "Poco/MD5Engine.h"

namespace BlueTusk {

std::string Md5Password::response(const std::string& user, const std::string& password, const std::string& salt)
{
	if (salt.size() != 4) throw Poco::InvalidArgumentException("the MD5 salt must be 4 bytes");
	Poco::MD5Engine inner;
	inner.update(password);
	inner.update(user);
	std::string innerHex = Poco::DigestEngine::digestToHex(inner.digest());
	Poco::MD5Engine outer;
	outer.update(innerHex);
	outer.update(salt);
	std::fill(innerHex.begin(), innerHex.end(), '\0');
	return "md5" + Poco::DigestEngine::digestToHex(outer.digest());
}

} // namespace BlueTusk
