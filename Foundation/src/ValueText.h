//
// ValueText.h
//
// Library: BlueTusk/Foundation
//
// Small text helpers shared by the connection string parser (private to the Foundation library).
//

#ifndef BlueTusk_Detail_ValueText_INCLUDED
#define BlueTusk_Detail_ValueText_INCLUDED

#include <cstddef>
#include <string>
#include <vector>

namespace BlueTusk {
namespace Detail {

char asciiLower(char c);
	/// c in lower case if it is an ASCII letter; other bytes unchanged (no locale involved).

std::string asciiLower(const std::string& text);

bool isSpace(char c);
	/// ASCII white space: space, tab, CR, LF, VT, FF.

std::size_t skipSpace(const std::string& text, std::size_t pos);
	/// The first position at or after pos that is not ASCII white space (text.size() if none).

std::string trim(const std::string& text);
	/// text without leading and trailing ASCII white space.

std::vector<std::string> split(const std::string& text, char separator);
	/// Splits at every separator; "a,,b" gives {"a", "", "b"}, "" gives {""}.

std::string join(const std::vector<std::string>& items, const std::string& separator);

std::string quoted(const std::string& value);
	/// value in double quotes for a message, shortened to 64 characters ('"aaa..." (120000 characters)':
	/// the quote closes after the "...", the length follows) and with control characters shown as \xNN.
	/// Never call it with a password.

const std::size_t maximumMessageLength = 1024;
	/// The longest connection string error message (boundedMessage()); doc/connection-strings.md, "Limits".

std::string boundedMessage(const std::string& message, std::size_t limit = maximumMessageLength);
	/// message, or its first limit characters and "... (cut: N characters in all)" when longer. Apply it
	/// after redaction (a cut must not keep the start of a secret that redaction would have masked).

std::string position(std::size_t offset);
	/// "position N" with N = offset + 1 (1-based character position, as PostgreSQL reports positions).

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_ValueText_INCLUDED
