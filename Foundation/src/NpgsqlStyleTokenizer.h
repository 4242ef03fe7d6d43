//
// NpgsqlStyleTokenizer.h
//
// Library: BlueTusk/Foundation
//
// Splits an Npgsql-style connection string ("Host=db-a;Port=5432") into keyword/value pairs.
//

#ifndef BlueTusk_Detail_NpgsqlStyleTokenizer_INCLUDED
#define BlueTusk_Detail_NpgsqlStyleTokenizer_INCLUDED

#include "KeywordValue.h"

namespace BlueTusk {
namespace Detail {

KeywordValueList tokenizeNpgsqlStyle(const std::string& text);
	/// Pairs are separated by ';' (empty pairs are skipped). White space around keywords and values is
	/// dropped. A value that begins with " or ' runs to the matching quote; a doubled quote inside stands
	/// for one quote character, so a quoted value may hold ';' (the ADO.NET / Npgsql rules).
	/// Throws BlueTuskConnectionStringException naming the position for a pair without '=', an empty
	/// keyword, an unterminated quote or text after a closing quote. Messages never quote the text.

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_NpgsqlStyleTokenizer_INCLUDED
