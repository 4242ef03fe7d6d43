//
// TextSafety.h
//
// BlueTusk samples: text from a server (or from the command line) made safe for strict JSON readers
// and for terminals (doc/reliability.md).
//

#ifndef BlueTusk_Samples_TextSafety_INCLUDED
#define BlueTusk_Samples_TextSafety_INCLUDED

#include <string>

namespace BlueTusk {
namespace Samples {

std::string validUtf8(const std::string& text);
	/// text with every byte that does not belong to a well-formed UTF-8 sequence (RFC 3629: no overlong
	/// forms, no surrogates, nothing above U+10FFFF, no truncated sequence) replaced by U+FFFD, one per
	/// invalid byte. Valid text is returned unchanged.

std::string terminalSafe(const std::string& text, bool keepNewlines = false);
	/// validUtf8(text) with the C0 control characters, DEL and the C1 controls (U+0080..U+009F) written
	/// as "\xNN" (ESC, BEL, CR, ... cannot act on the terminal); with keepNewlines '\n' stays as it is.
	/// A backslash stays as it is.

} } // namespace BlueTusk::Samples

#endif // BlueTusk_Samples_TextSafety_INCLUDED
