//
// PercentDecoder.h
//
// Library: BlueTusk/Foundation
//
// Percent-decoding of one URL component (RFC 3986 section 2.1), with positions in error messages.
//

#ifndef BlueTusk_Detail_PercentDecoder_INCLUDED
#define BlueTusk_Detail_PercentDecoder_INCLUDED

#include <cstddef>
#include <string>

namespace BlueTusk {
namespace Detail {

std::string percentDecode(const std::string& text, std::size_t offset);
	/// Replaces every "%XY" (two hex digits, either case) with the byte it names; '+' stays '+' (libpq
	/// does not decode it either). offset is where text starts in the whole connection string.
	/// Throws BlueTuskConnectionStringException naming the position for a '%' not followed by two hex
	/// digits, and for "%00" (a NUL byte cannot be part of any setting). The escape itself is not
	/// quoted in the message (it may be part of a password).

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_PercentDecoder_INCLUDED
