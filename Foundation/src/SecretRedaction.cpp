//
// SecretRedaction.cpp
//
// Library: BlueTusk/Foundation
//

#include "SecretRedaction.h"
#include "PercentDecoder.h"
#include "ValueText.h"
#include "UrlTokenizer.h"
#include "Poco/Exception.h"
#include <algorithm>

namespace BlueTusk {
namespace Detail {

namespace {

const std::size_t minimumSecretLength = 3;


void addCandidate(PasswordCandidates& candidates, const std::string& text)
	/// Keeps text and its percent-decoded form, unless the bound is reached: then nothing more is
	/// collected and candidates.complete is false.
{
	if (text.size() < minimumSecretLength || !candidates.complete) return;
	if (candidates.texts.size() + 2 > maximumPasswordCandidates || candidates.bytes + 2 * text.size() > maximumPasswordCandidateBytes)
	{
		candidates.complete = false;
		return;
	}
	candidates.texts.push_back(text);
	candidates.bytes += text.size();
	try
	{
		candidates.texts.push_back(percentDecode(text, 0));
		candidates.bytes += candidates.texts.back().size();
	}
	catch (Poco::Exception&)
	{
		// not decodable: the raw text is the candidate
	}
}


std::string unquoteDoubled(const std::string& text, std::size_t start, char quote)
	/// The Npgsql reading of a quoted value starting after its opening quote.
{
	std::string value;
	for (std::size_t pos = start; pos < text.size(); ++pos)
	{
		if (text[pos] == quote)
		{
			if (pos + 1 < text.size() && text[pos + 1] == quote)
			{
				value += quote;
				++pos;
				continue;
			}
			break;
		}
		value += text[pos];
	}
	return value;
}


std::string unescapeBackslashes(const std::string& text, std::size_t start, bool quoted)
	/// The libpq reading of a value starting at start (after the opening quote when quoted).
{
	std::string value;
	for (std::size_t pos = start; pos < text.size(); ++pos)
	{
		const char c = text[pos];
		if (quoted ? c == '\'' : isSpace(c)) break;
		if (c == '\\' && pos + 1 < text.size()) value += text[++pos];
		else value += c;
	}
	return value;
}


void addValueCandidates(PasswordCandidates& candidates, const std::string& text, std::size_t start)
{
	std::size_t pos = start;
	while (pos < text.size() && isSpace(text[pos])) ++pos;
	if (pos < text.size() && (text[pos] == '"' || text[pos] == '\''))
	{
		const char quote = text[pos];
		const std::size_t close = text.find(quote, pos + 1);
		addCandidate(candidates, text.substr(pos + 1, close == std::string::npos ? std::string::npos : close - pos - 1));
		addCandidate(candidates, unquoteDoubled(text, pos + 1, quote));
		if (quote == '\'') addCandidate(candidates, unescapeBackslashes(text, pos + 1, true));
		return;
	}
	static const char* const terminators[] = {";", "&", " \t\r\n\v\f", ";&'\" \t\r\n\v\f", ""};
	for (const char* terminator: terminators)
	{
		const std::size_t end = *terminator ? text.find_first_of(terminator, pos) : std::string::npos;
		addCandidate(candidates, text.substr(pos, end == std::string::npos ? std::string::npos : end - pos));
	}
	addCandidate(candidates, unescapeBackslashes(text, pos, false));
}


void addUrlPasswordCandidates(PasswordCandidates& candidates, const std::string& text)
	/// In a text with "://" (or a mistyped scheme), every ":<text>@" that crosses no '@' or '?' may be a
	/// URL's user info password (malformed URLs included: a '/' in the password), from each ':' before
	/// the '@'; an '@' behind the first '/' counts only when no '@' came before that '/'.
{
	if (text.find("://") == std::string::npos && !looksLikeMistypedUrl(text) && nearMissUrlScheme(text).empty()) return;
	const std::size_t scheme = text.find(":/");
	const std::size_t authority = scheme == std::string::npos ? 0 : text.find_first_not_of('/', scheme + 1);
	const std::size_t firstSlash = authority == std::string::npos ? std::string::npos : text.find('/', authority);
	const std::size_t firstAt = text.find('@', authority == std::string::npos ? 0 : authority);
	const bool userInfoFound = firstAt != std::string::npos && (firstSlash == std::string::npos || firstAt < firstSlash);
	for (std::size_t at = text.find('@'); at != std::string::npos; at = text.find('@', at + 1))
	{
		// an '@' after the first '/' is a password's only when that '/' broke the user info (no '@' before it)
		if (userInfoFound && firstSlash != std::string::npos && at > firstSlash) break;
		for (std::size_t pos = at; pos > 0 && text[pos - 1] != '@' && text[pos - 1] != '?' && candidates.complete; --pos)
		{
			if (text[pos - 1] != ':' || text[pos] == '/') continue; // "postgresql:/" is the scheme's colon
			const std::string password = text.substr(pos, at - pos);
			addCandidate(candidates, password);
			// a '/' in the password breaks the URL there: a message may show either part
			for (const std::string& part: split(password, '/'))
			{
				if (part.size() < password.size()) addCandidate(candidates, part);
			}
		}
	}
}

} // namespace


PasswordCandidates passwordCandidates(const std::string& connectionString)
{
	PasswordCandidates candidates;
	const std::string lower = asciiLower(connectionString);
	for (std::size_t found = lower.find("password"); found != std::string::npos && candidates.complete; found = lower.find("password", found + 1))
	{
		std::size_t pos = found + 8;
		while (pos < lower.size() && isSpace(lower[pos])) ++pos;
		if (pos < lower.size() && lower[pos] == '=') addValueCandidates(candidates, connectionString, pos + 1);
	}
	addUrlPasswordCandidates(candidates, connectionString);
	return candidates;
}


std::string maskUserInfo(const std::string& text)
{
	if (text.find('@') == std::string::npos) return text;
	std::string result;
	std::size_t copied = 0;   // text before this is in result
	for (std::size_t at = text.find('@'); at != std::string::npos; at = text.find('@', at + 1))
	{
		std::size_t start = at;
		// A backquote does not end the run: a password may hold one (ConnectionStringFuzzer found
		// "host:\x01`0l@corp" masked only from the '`' on, which held no ':').
		while (start > copied && !isSpace(text[start - 1]) && text[start - 1] != '"' && text[start - 1] != '\'' &&
			text[start - 1] != '@')
			--start;
		if (start == at) continue;
		// the authority begins after "scheme:/" or "scheme://", when the run has one
		std::size_t authority = start;
		const std::size_t scheme = text.find(":/", start);
		if (scheme != std::string::npos && scheme < at)
		{
			authority = scheme + 2;
			while (authority < at && text[authority] == '/') ++authority;
		}
		const std::size_t colon = text.find(':', authority);
		if (colon == std::string::npos || colon + 1 >= at) continue;
		if (text.compare(colon + 1, at - colon - 1, "***") == 0) continue;   // masked already
		result.append(text, copied, colon + 1 - copied);
		result += "***";
		copied = at;
	}
	if (copied == 0) return text;
	result.append(text, copied, std::string::npos);
	return result;
}


std::string redactSecrets(const std::string& message, const std::vector<std::string>& secrets)
{
	std::vector<std::string> ordered;
	for (const std::string& secret: secrets)
	{
		if (secret.size() >= minimumSecretLength) ordered.push_back(secret);
	}
	std::sort(ordered.begin(), ordered.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
	// Every occurrence of every secret is found in the text as it stands, and each run of covered
	// characters becomes one mask: secrets that overlap ("abcd" and "cdef" in "abcdef") are masked
	// together. Replacing one secret after another could leave a secret behind that the masks themselves
	// form: "Pas" + "***" (another secret's mask) holds the secret "as*" (found by ConnectionStringFuzzer).
	// So while a secret with a '*' still occurs and holds a character that is not a mask's, its
	// occurrences are masked again; each round masks at least one more character of the text, and a
	// secret of '*' alone (which every mask matches) is not chased. A text built to chain masks round
	// after round (a hostile server's message made of a starred secret's letters) would cost a pass per
	// character: after maxRounds the whole text is masked instead.
	static const int maxRounds = 16;
	const bool starred = std::any_of(ordered.begin(), ordered.end(), [](const std::string& secret) { return secret.find('*') != std::string::npos; });
	std::string result = message;
	std::vector<bool> isMask(result.size(), false);
	for (int round = 0;; ++round)
	{
		std::vector<bool> covered(result.size(), false);
		bool found = false;
		if (round == 0)
		{
			// A value shortened for the message (Detail::quoted: '..."') may end in the first part of a
			// secret: that part is masked too, in the first round, so that the rounds after it see its mask.
			static const std::string cut = "...\"";
			for (std::size_t at = result.find(cut); at != std::string::npos; at = result.find(cut, at + cut.size()))
			{
				for (const std::string& secret: ordered)
				{
					std::size_t length = std::min(secret.size() - 1, at);
					while (length >= minimumSecretLength && result.compare(at - length, length, secret, 0, length) != 0) --length;
					if (length < minimumSecretLength) continue;
					std::fill(covered.begin() + static_cast<std::ptrdiff_t>(at - length), covered.begin() + static_cast<std::ptrdiff_t>(at), true);
					found = true;
				}
			}
		}
		for (const std::string& secret: ordered)
		{
			for (std::size_t at = result.find(secret); at != std::string::npos; at = result.find(secret, at + 1))
			{
				const auto from = isMask.begin() + static_cast<std::ptrdiff_t>(at);
				const auto to = from + static_cast<std::ptrdiff_t>(secret.size());
				if (std::find(from, to, false) == to) continue;   // masks alone: a secret of '*'
				std::fill(covered.begin() + static_cast<std::ptrdiff_t>(at), covered.begin() + static_cast<std::ptrdiff_t>(at + secret.size()), true);
				found = true;
			}
		}
		if (!found) break;
		if (round == maxRounds) return "***";
		std::string masked;
		std::vector<bool> maskedIsMask;
		masked.reserve(result.size());
		for (std::size_t i = 0; i < result.size();)
		{
			if (!covered[i])
			{
				masked += result[i];
				maskedIsMask.push_back(isMask[i]);
				++i;
				continue;
			}
			while (i < result.size() && covered[i]) ++i;
			masked += "***";
			maskedIsMask.insert(maskedIsMask.end(), 3, true);
		}
		result.swap(masked);
		isMask.swap(maskedIsMask);
		if (!starred) break;
	}
	return result;
}

} } // namespace BlueTusk::Detail
