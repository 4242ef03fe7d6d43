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

#include <cstddef>
#include <string>
#include <vector>

namespace BlueTusk {
namespace Detail {

const std::size_t maximumPasswordCandidates = 1024;
	/// passwordCandidates() collects no more texts than this.

const std::size_t maximumPasswordCandidateBytes = 1 << 20;
	/// passwordCandidates() collects no more bytes of texts than this (1 MiB).

struct PasswordCandidates
	/// What passwordCandidates() found.
{
	std::vector<std::string> texts;
	std::size_t bytes = 0;  /// the size of texts, summed
	bool complete = true;   /// false when the bounds stopped the collection: texts lacks some candidates
};

PasswordCandidates passwordCandidates(const std::string& connectionString);
	/// Every text that might be a password in connectionString, whatever its form or how malformed:
	/// after each "password" (any letter case) followed by '=', the value up to each possible end
	/// (';', '&', white space, a quote, the end), unquoted both the Npgsql way (doubled quotes) and the
	/// libpq way (backslashes), each also percent-decoded; and, when the text has "://" or begins with a
	/// mistyped scheme ("postgresql:/"), the text between any ':' and a later '@' with no '@' or '?'
	/// between (a URL's user info password, also one with an unencoded '/').
	/// Each ':' before an '@' and each "password=" starts a candidate as long as the text after it, so
	/// a string of n such characters has n^2 bytes of them (60,000 ":a" in a URL's user info took 12 s,
	/// 200,000 ran out of memory: doc/reliability.md, finding 12). The collection stops at
	/// maximumPasswordCandidates texts or maximumPasswordCandidateBytes and says so (complete false);
	/// the string is not refused for it, because a printed form (ConnectionSettings::toString()) can
	/// hold more candidates than the input it came from, and it must parse back. A redactor built from
	/// incomplete candidates masks every text whole (SecretRedactor).

std::string redactSecrets(const std::string& message, const std::vector<std::string>& secrets);
	/// message with every occurrence of every secret of 3 or more characters masked (each run of covered
	/// characters becomes "***", again while a mask forms a secret holding a '*'), and the start of a
	/// secret (3 characters or more) that ends a value shortened for the message ('..."') too. Shorter
	/// secrets are left alone: replacing them would garble the message.

std::string maskUserInfo(const std::string& text);
	/// text with the password of every URL-like user info masked, whatever the input looked like: for each
	/// '@', the run of characters before it up to white space, a quote or another '@' is taken as
	/// "[scheme:/[/]]user:password"; when it has a ':' after the scheme's slashes, what follows that ':'
	/// up to the '@' becomes "***" ("postgre\x01sql:/user:secret@host" -> "postgre\x01sql:/user:***@host").
	/// The generic net under the known secrets: a mangled string whose passwords BlueTusk did not
	/// recognise as such still shows none in a message. "mailto:a@b" becomes "mailto:***@b".

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_SecretRedaction_INCLUDED
