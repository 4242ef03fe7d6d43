//
// ConnectionStringForm.h
//
// Library: BlueTusk/Foundation
//
// Tells the three connection string forms apart and hands the text to the matching tokenizer.
//

#ifndef BlueTusk_Detail_ConnectionStringForm_INCLUDED
#define BlueTusk_Detail_ConnectionStringForm_INCLUDED

#include "KeywordValue.h"

namespace BlueTusk {
namespace Detail {

enum class ConnectionStringForm
{
	NpgsqlStyle, /// "Host=db-a;Port=5432"
	LibpqStyle,  /// "host=db-a port=5432"
	Url          /// "postgresql://db-a:5432/app"
};

ConnectionStringForm detectForm(const std::string& text);
	/// Url when the text begins with postgresql:// or postgres://. Otherwise NpgsqlStyle when the first
	/// keyword (the text before the first '=') has white space inside it ("Target Session Attributes=any"),
	/// or when, read by libpq's rules, the text holds a ';' outside a single-quoted value, or is not valid
	/// libpq text and holds a ';' anywhere; else LibpqStyle. So a single pair without ';' ("Host=db-a") is
	/// read in the libpq form: only its quoting differs. A text ending in ';' is always NpgsqlStyle.

KeywordValueList tokenize(const std::string& text);
	/// The pairs of text in its form. Throws BlueTuskConnectionStringException (see the tokenizers).

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_ConnectionStringForm_INCLUDED
