//
// LibpqKeywordValues.cpp
//
// Library: BlueTusk/Foundation
//

#include "LibpqKeywordValues.h"
#include "SettingValues.h"
#include "ValueText.h"
#include "BlueTusk/BlueTuskException.h"
#include <langinfo.h>

namespace BlueTusk {
namespace Detail {

namespace {

std::string encodingKey(const std::string& name)
	/// An encoding name as PostgreSQL compares them (clean_encoding_name): letters and digits only, lower case.
{
	std::string key;
	for (char c: name)
	{
		if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z')) key += c;
		else if (c >= 'A' && c <= 'Z') key += asciiLower(c);
	}
	return key;
}


int parseBounded(const std::string& value, const std::string& keyword, int limit, const char* unit)
{
	const int number = parseCount(value, keyword);
	if (number > limit)
		throw BlueTuskConnectionStringException(keyword + ": " + quoted(trim(value)) + " is too large; at most " + std::to_string(limit) + unit);
	return number;
}

} // namespace


std::string localeCharacterSet()
{
	const char* codeset = nl_langinfo(CODESET);
	return codeset ? std::string(codeset) : std::string();
}


bool isUtf8CompatibleCharacterSet(const std::string& characterSet)
{
	const std::string key = encodingKey(characterSet);
	return key == "utf8" || key == "ansix341968" || key == "usascii" || key == "ascii";
}


void checkClientEncoding(const std::string& value, const std::string& keyword)
{
	const std::string text = trim(value);
	const std::string key = encodingKey(text);
	if (key == "utf8" || key == "unicode") return;
	if (asciiLower(text) == "auto")
	{
		const std::string characterSet = localeCharacterSet();
		if (isUtf8CompatibleCharacterSet(characterSet)) return;
		throw BlueTuskConnectionStringException(keyword + ": \"auto\" chooses the locale's character set " + quoted(characterSet) +
			", but BlueTusk decodes text as UTF-8 only; use a UTF-8 locale or client_encoding=UTF8");
	}
	throw BlueTuskConnectionStringException(keyword + ": " + quoted(text) +
		" is not supported: BlueTusk decodes every text as UTF-8; accepted values: UTF8 (also utf-8, unicode), auto (with a UTF-8 or C locale)");
}


ConnectionSettings::Keepalives parseKeepalives(const std::string& value, const std::string& keyword)
{
	const std::string text = trim(value);
	bool enabled = false;
	if (isBooleanText(text, enabled)) return enabled ? ConnectionSettings::Keepalives::On : ConnectionSettings::Keepalives::Off;
	bool digits = !text.empty();
	for (char c: text) digits = digits && c >= '0' && c <= '9';
	if (digits) return text.find_first_not_of('0') == std::string::npos ? ConnectionSettings::Keepalives::Off : ConnectionSettings::Keepalives::On;
	throw BlueTuskConnectionStringException(keyword + ": " + quoted(text) + " is not a valid value; accepted values: 1 (on), 0 (off), or a boolean");
}


Poco::Timespan parseKeepaliveSeconds(const std::string& value, const std::string& keyword)
{
	return Poco::Timespan(parseBounded(value, keyword, 32767, " seconds"), 0);
}


int parseKeepaliveCount(const std::string& value, const std::string& keyword)
{
	return parseBounded(value, keyword, 127, " probes");
}


void checkReplication(const std::string& value, const std::string& keyword)
{
	bool enabled = true;
	if (isBooleanText(value, enabled) && !enabled) return;
	refuseKeyword(keyword, "a replication connection (a walsender session speaking the streaming replication protocol,"
		" PostgreSQL docs 55.4) is not something BlueTusk opens; only replication=false (an ordinary session) is accepted");
}


void checkGssLibrary(const std::string& value, const std::string& keyword)
{
	const std::string word = asciiLower(trim(value));
	if (word == "gssapi") return;
	if (word == "sspi")
		refuseKeyword(keyword, "SSPI exists only on Windows; off Windows GSSAPI is the only library (gsslib=gssapi, which libpq disregards there)");
	throw BlueTuskConnectionStringException(keyword + ": " + quoted(trim(value)) + " is not a valid value; accepted values: gssapi (sspi only on Windows)");
}


void refuseKeyword(const std::string& keyword, const std::string& reason)
{
	throw BlueTuskConnectionStringException(keyword + ": not supported by BlueTusk: " + reason);
}

} } // namespace BlueTusk::Detail
