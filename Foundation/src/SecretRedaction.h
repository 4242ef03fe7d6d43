//
// SecretRedaction.h
//
// Library: BlueTusk/Foundation
//
// The last line of defence that keeps a password out of connection string error messages, even when
// malformed input moved the password's text into another keyword's value.
//

#ifndef BlueTusk_Detail_SecretRedaction_INCLUDED
#define BlueTusk_Detail_SecretRedaction_INCLUDED

#include <string>
#include <vector>

namespace BlueTusk {
namespace Detail {

std::vector<std::string> passwordCandidates(const std::string& connectionString);
	/// Every text that might be a password in connectionString, whatever its form or how malformed:
	/// after each "password" (any letter case) followed by '=', the value up to each possible end
	/// (';', '&', white space, a quote, the end), unquoted both the Npgsql way (doubled quotes) and the
	/// libpq way (backslashes), each also percent-decoded; and, when the text has "://" or begins with a
	/// mistyped scheme ("postgresql:/"), the text between any ':' and a later '@' with no '@' or '?'
	/// between (a URL's user info password, also one with an unencoded '/').

std::string redactSecrets(const std::string& message, const std::vector<std::string>& secrets);
	/// message with every occurrence of every secret of 3 or more characters masked (each run of covered
	/// characters becomes "***", again while a mask forms a secret holding a '*'), and the start of a
	/// secret (3 characters or more) that ends a value shortened for the message ('..."') too. Shorter
	/// secrets are left alone: replacing them would garble the message.

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_SecretRedaction_INCLUDED
