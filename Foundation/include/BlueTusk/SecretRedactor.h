//
// SecretRedactor.h
//
// Library: BlueTusk/Foundation
//
// The one redaction point every message passes before it leaves BlueTusk (doc/transport.md,
// "Secrets"): it knows the secrets of one ConnectionSettings, wherever malformed input put them.
//

#ifndef BlueTusk_SecretRedactor_INCLUDED
#define BlueTusk_SecretRedactor_INCLUDED

#include "BlueTusk/Foundation.h"
#include "Poco/Exception.h"
#include <string>
#include <vector>

namespace BlueTusk {


class BlueTusk_Foundation_API SecretRedactor
	/// Replaces every known secret in a text, or in an exception and its nested chain, with "***".
	///
	/// The secrets are those ConnectionSettings::redactor() collected: the password in force, every
	/// password value given (also those a later one overrode), PGPASSWORD, and every text of the
	/// connection string that might be a password however malformed the input (a "password=" tail pasted
	/// into another value, a URL user name with an unencoded '@', a '/' in a URL password, a mistyped
	/// scheme; a '/' in a URL password counts by its parts too, because the URL breaks there).
	/// Secrets shorter than 3 characters are not replaced (replacing them would garble every message).
	///
	/// Immutable after construction; all methods are const and thread-safe.
{
public:
	SecretRedactor();
		/// A redactor that knows no secret: redact() masks only the passwords of user info ("x:y@", below).

	explicit SecretRedactor(const std::vector<std::string>& secrets, bool complete = true);
		/// A redactor for secrets (empty or short ones are ignored, duplicates kept once). complete false
		/// says that secrets lacks some (a connection string with more possible password fragments than
		/// BlueTusk collects, doc/reliability.md finding 12): redact() then masks every text whole.

	std::string redact(const std::string& text) const;
		/// text with every occurrence of every secret masked: each run of characters that some occurrence
		/// covers becomes one "***" (secrets that overlap are masked together), repeated while a secret
		/// holding a '*' is formed again by a mask and the text around it; the start of a secret that ends
		/// a value shortened for a message ('..."') is masked too. The result contains no secret, except
		/// that a secret of '*' characters alone matches every mask. Then, whatever the secrets, the password
		/// of anything shaped like a URL's user info is masked ("postgre\x01sql:/user:secret@host" ->
		/// "postgre\x01sql:/user:***@host", also "mailto:a@b" -> "mailto:***@b"): malformed input whose
		/// password BlueTusk did not recognise still shows none. An incomplete redactor (complete())
		/// returns "***" for every text that is not empty: it cannot know which part holds a secret.

	void redact(Poco::Exception& exc) const;
		/// Redacts exc in place: its message, and for a BlueTuskException whatever else it carries as data
		/// (BlueTuskException::redact()), then each nested exception the same way.

	[[noreturn]] void rethrow(const Poco::Exception& exc) const;
		/// Throws a redacted copy of exc with its dynamic type kept (Poco::Exception::clone(), rethrow()).

	[[noreturn]] void rethrowCurrent() const;
		/// For a catch (...) block: a Poco::Exception in flight is rethrown redacted (rethrow()); anything
		/// else is rethrown unchanged.

	bool reveals(const std::string& text) const;
		/// True when text contains one of the secrets (for checks and tests); for an incomplete redactor,
		/// when text is not empty.

	bool complete() const;
		/// False when the redactor was told that it does not know every secret (see the constructor).

	const std::vector<std::string>& secrets() const;
		/// The secrets, longest first.

private:
	std::vector<std::string> _secrets;
	bool _complete = true;
};


} // namespace BlueTusk

#endif // BlueTusk_SecretRedactor_INCLUDED
