//
// KeywordValue.h
//
// Library: BlueTusk/Foundation
//
// One keyword/value pair as a tokenizer found it in a connection string (private to Foundation).
//

#ifndef BlueTusk_Detail_KeywordValue_INCLUDED
#define BlueTusk_Detail_KeywordValue_INCLUDED

#include <cstddef>
#include <string>
#include <vector>

namespace BlueTusk {
namespace Detail {

struct KeywordValue
	/// A keyword as written (trimmed, not yet looked up) and its unquoted, unescaped value.
{
	std::string keyword;
	std::string value;
	std::size_t position = 0; /// 0-based offset of the keyword in the connection string, for messages
};

using KeywordValueList = std::vector<KeywordValue>;
	/// In the order written; a later pair for the same keyword overrides an earlier one.

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_KeywordValue_INCLUDED
