//
// LibpqStyleTokenizer.h
//
// Library: BlueTusk/Foundation
//
// Splits a libpq keyword/value connection string ("host=db-a port=5432") into keyword/value pairs.
//

#ifndef BlueTusk_Detail_LibpqStyleTokenizer_INCLUDED
#define BlueTusk_Detail_LibpqStyleTokenizer_INCLUDED

#include "KeywordValue.h"

namespace BlueTusk {
namespace Detail {

KeywordValueList tokenizeLibpqStyle(const std::string& text);
	/// The rules of libpq's conninfo parser (PostgreSQL docs 34.1.1.1 "Keyword/Value Connection Strings"):
	/// pairs "keyword = value" separated by white space, white space around '=' allowed; a value is
	/// either single-quoted or runs to the next white space; in both, a backslash takes the next
	/// character literally (\' and \\). After a closing quote, white space or the end must follow.
	/// Throws BlueTuskConnectionStringException naming the position for a keyword without '=', an empty
	/// keyword, an unterminated quote or text right after a closing quote. Messages never quote the text.

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_LibpqStyleTokenizer_INCLUDED
