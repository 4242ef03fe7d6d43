//
// ConnectionKeywords.h
//
// Library: BlueTusk/Foundation
//
// The keyword table of doc/connection-strings.md: every accepted spelling of every keyword, its environment
// variable, how its value is parsed, printed and compared, and whether it is a secret.
//

#ifndef BlueTusk_Detail_ConnectionKeywords_INCLUDED
#define BlueTusk_Detail_ConnectionKeywords_INCLUDED

#include "BlueTusk/ConnectionSettings.h"
#include "KeywordFields.h"
#include <string>
#include <vector>

namespace BlueTusk {
namespace Detail {

enum class Printing
	/// When toString() writes a keyword that has a format.
{
	Always,           /// every time (the keywords with an environment variable: the text then means the same in any environment)
	WhenTextChanged,  /// when its printed text differs from the default's
	WhenValueChanged  /// when its member differs from the default (compared with the row's same)
};


struct ConnectionKeywords
	/// The keyword table: one row per keyword drives parsing (every spelling, the environment fallback, the
	/// service file), ConnectionSettings::toString(), operator ==, the redactor's secrets and the check of
	/// doc/connection-strings.md's keyword tables. Friend of ConnectionSettings: its rows set private members.
{
	struct Keyword
	{
		const char* name;        /// canonical (Npgsql style) name, e.g. "Target Session Attributes"
		const char* libpqName;   /// libpq synonym (or the 2016 proposal's name), e.g. "target_session_attrs", or nullptr
		const char* environment; /// the environment variable used when the setting is not given, or nullptr
		KeywordField field;      /// its parser, formatter and comparison (KeywordFields.h)
		Printing printing;       /// when toString() writes it (with a field.format)
		const char* example;     /// a valid value that differs from the default, for the table's own test; nullptr when no value stands alone (a refused keyword; Service, which needs a service file)
		const char* setting = nullptr;
			/// the canonical name of the keyword whose setting this one sets too (readonly: "Target Session
			/// Attributes"; Load Balance Hosts: "Host Order"), or nullptr for its own. Keywords of one setting are
			/// one keyword for the "last one wins" rule, the service file and the environment fallback.
		bool secret = false;
			/// a secret (Password, SSL Password): every value given is known to the redactor, toString() prints
			/// "***" in its place, and the environment variable's value is masked in parse errors
	};

	static const std::vector<Keyword>& all();
		/// Every keyword, in the order toString() prints them; the keywords it never prints (synonyms,
		/// ignored and refused ones) next to those they belong with. The order also breaks ties in nearest()
		/// and is the order in which environment variables are applied.

	static const Keyword* find(const std::string& written);
		/// The keyword written (trimmed, any letter case) as its canonical name, the canonical name without
		/// spaces ("TargetSessionAttributes") or its libpq name; nullptr if none.

	static void apply(ConnectionSettings& settings, const Keyword& keyword, const std::string& value, const std::string& source);
		/// Parses value and stores it; source (the keyword as written, or "PGPORT (environment)") names the
		/// value in messages. Throws BlueTuskConnectionStringException for an invalid value. Host and
		/// Port are validated and kept as text; finish() derives the endpoints. The value of a secret
		/// keyword is known to the redactor afterwards.

	static void finish(ConnectionSettings& settings, bool deriveEndpoints, bool libpqDefaults = false);
		/// When deriveEndpoints, derives the endpoints from the Host, hostaddr and Port text in force (or,
		/// without Host text, from the hosts of the endpoints already there; with libpqDefaults and neither,
		/// the default Unix-socket directory). With libpqDefaults an empty user name becomes the operating
		/// system user's (LocalUser::name()), as in libpq. Then defaults the database to the user name.
		/// Throws BlueTuskConnectionStringException for a port or hostaddr count mismatch.

	static std::string settingOf(const Keyword& keyword);
		/// The setting keyword sets: the canonical name of the keyword that owns it (keyword.setting, or its own
		/// name).

	static std::string serviceOf(const ConnectionSettings& settings);
		/// The Service given to settings (trimmed), or "".

	static std::string serviceFileOf(const ConnectionSettings& settings);
		/// The Service File given to settings, or "".

	static const Keyword* nearest(const std::string& written);
		/// The keyword whose spelling (libpq name, canonical name, or canonical name without spaces) is the
		/// fewest edits away from written (case-insensitive); for "did you mean" hints. Never nullptr.

};

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_ConnectionKeywords_INCLUDED
