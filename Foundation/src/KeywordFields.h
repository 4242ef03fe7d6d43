//
// KeywordFields.h
//
// Library: BlueTusk/Foundation
//
// How one row of the keyword table (ConnectionKeywords) reaches its ConnectionSettings member: the parser
// that stores a value, the formatter toString() prints, the comparison operator == uses. Built from a
// member pointer and a parse / format function pair, so a row names its member once.
//

#ifndef BlueTusk_Detail_KeywordFields_INCLUDED
#define BlueTusk_Detail_KeywordFields_INCLUDED

#include "BlueTusk/ConnectionSettings.h"
#include <string>

namespace BlueTusk {
namespace Detail {

struct KeywordField
	/// What a keyword does with ConnectionSettings. A null format means the keyword is never printed (a
	/// synonym, or a keyword BlueTusk ignores or refuses); a null same means it adds nothing to operator ==
	/// (a synonym, or a keyword whose member another row compares, as Port's endpoints are Host's).
{
	using Apply = void (*)(ConnectionSettings& settings, const std::string& value, const std::string& source);
	using Format = std::string (*)(const ConnectionSettings& settings);
	using Same = bool (*)(const ConnectionSettings& a, const ConnectionSettings& b);

	Apply apply = nullptr;   /// parses value and stores it; source names the value in messages; throws BlueTuskConnectionStringException
	Format format = nullptr; /// the value as toString() prints it (canonical, before redaction), or nullptr
	Same same = nullptr;     /// whether a and b agree on what this keyword sets, or nullptr
	bool freeText = false;   /// printed through the settings' redactor (free text could hold a password)
};


// ---- value formats: the inverses of the parsers (SettingValues.h, TargetSessionAttributes.h) ----

inline std::string formatText(const std::string& value) { return value; }
inline std::string keepText(const std::string& value, const std::string&) { return value; }
inline std::string formatBoolean(bool value) { return value ? "true" : "false"; }
inline std::string formatCount(int value) { return std::to_string(value); }
inline std::string formatWholeSeconds(const Poco::Timespan& span) { return std::to_string(span.totalSeconds()); }
inline std::string formatMilliseconds(const Poco::Timespan& span) { return std::to_string(span.totalMilliseconds()); }
template <typename T> std::string formatName(const T& value) { return BlueTusk::toString(value); }


template <auto Member, auto Parse, auto Format>
KeywordField field(bool freeText = false)
	/// The usual row: settings.*Member = Parse(value, source); printed as Format(settings.*Member);
	/// compared with ==.
{
	return KeywordField{
		[](ConnectionSettings& s, const std::string& v, const std::string& source) { s.*Member = Parse(v, source); },
		[](const ConnectionSettings& s) { return std::string(Format(s.*Member)); },
		[](const ConnectionSettings& a, const ConnectionSettings& b) { return a.*Member == b.*Member; },
		freeText};
}


template <auto Member>
KeywordField textField()
	/// Free text stored as written (file names, names, options): redacted when printed.
{
	return field<Member, keepText, formatText>(true);
}


template <auto Member>
bool sameMember(const ConnectionSettings& a, const ConnectionSettings& b)
	/// For a row with its own parser and formatter: compares settings.*Member.
{
	return a.*Member == b.*Member;
}

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_KeywordFields_INCLUDED
