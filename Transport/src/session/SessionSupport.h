//
// SessionSupport.h
//
// Library: BlueTusk/Transport
//
// Small helpers the ProtocolSession source files share.
//

#ifndef BlueTusk_Detail_SessionSupport_INCLUDED
#define BlueTusk_Detail_SessionSupport_INCLUDED

#include "Poco/Logger.h"
#include "Poco/NumberFormatter.h"
#include "Poco/Timespan.h"
#include <string>

namespace BlueTusk {
namespace Detail {

inline Poco::Logger& transportLogger()
	/// Poco::Logger "BlueTusk.Transport".
{
	static Poco::Logger& instance = Poco::Logger::get("BlueTusk.Transport");
	return instance;
}


inline std::string milliseconds(const Poco::Timespan& span)
	/// "250 ms".
{
	return Poco::NumberFormatter::format(span.totalMilliseconds()) + " ms";
}

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_SessionSupport_INCLUDED
