//
// ConnectionStringFuzzer.cpp
//
// libFuzzer target: ConnectionSettings::parse() on arbitrary bytes (all three forms). It may only throw
// BlueTuskConnectionStringException with a message; a string that parses must print (toString()) without
// any of the secrets its redactor knows in a free-text value (the Password as "***"), and parse back
// (unless a secret was masked inside a value). toString() prints numbers (ports, timeouts) and
// enumeration names as they are; those fields are not checked, and only secrets with a letter are (a
// secret of digits and punctuation alone, "5432" left of an '@' in a broken URL, matches a number by
// coincidence).
//

#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/ConnectionSettings.h"
#include "BlueTusk/SecretRedactor.h"
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

using namespace BlueTusk;


static bool showsUserInfoPassword(const std::string& message)
	/// True when message has ":<text>@" with text of characters a masked one ("***") or a scheme's slashes
	/// ("postgresql://") cannot hold: an unmasked user info password. Independent of SecretRedactor.
{
	for (std::size_t colon = message.find(':'); colon != std::string::npos; colon = message.find(':', colon + 1))
	{
		std::size_t end = colon + 1;
		while (end < message.size() && std::string(" \t\r\n\v\f\"'@:/*").find(message[end]) == std::string::npos) ++end;
		if (end > colon + 1 && end < message.size() && message[end] == '@') return true;
	}
	return false;
}


extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
	const std::string input(reinterpret_cast<const char*>(data), size);
	ConnectionSettings settings;
	try
	{
		settings = ConnectionSettings::parse(input, {});
	}
	catch (BlueTuskConnectionStringException& exc)
	{
		if (exc.message().empty()) std::abort();
		// No error message shows a user info password ("x:y@" however mangled the URL around it):
		// masking it again changes nothing. And every message is bounded (doc/connection-strings.md, "Limits").
		if (SecretRedactor().redact(exc.message()) != exc.message() || showsUserInfoPassword(exc.message()))
		{
			std::cerr << "user info password in [" << exc.message() << "]\n";
			std::abort();
		}
		if (exc.message().size() > 2048) std::abort();
		return 0;
	}
	const std::string printed = settings.toString();
	// The printed form is toString()'s own Npgsql form: Name=value; pairs, a value in double quotes
	// (doubled inside) when it needs them. It is split back into unquoted values, so a secret is looked
	// for in what a value says, not in its quoting (a candidate 'b!"""' matches the doubled quotes of
	// another value) nor across a ';' or in a keyword name ("Tim" in "Timeout").
	std::vector<std::pair<std::string, std::string>> fields;
	for (std::size_t at = 0; at < printed.size();)
	{
		const std::size_t equals = printed.find('=', at);
		if (equals == std::string::npos) std::abort(); // toString() always writes Name=value;
		std::string value;
		std::size_t next = equals + 1;
		if (next < printed.size() && printed[next] == '"')
		{
			for (++next; next < printed.size(); ++next)
			{
				if (printed[next] == '"' && (next + 1 >= printed.size() || printed[next + 1] != '"')) break;
				if (printed[next] == '"') ++next;
				value += printed[next];
			}
			++next; // the closing quote
		}
		else
		{
			const std::size_t semicolon = printed.find(';', next);
			value = printed.substr(next, semicolon - next);
			next = semicolon == std::string::npos ? printed.size() : semicolon;
		}
		if (next < printed.size() && printed[next] != ';') std::abort();
		fields.emplace_back(printed.substr(at, equals - at), value);
		at = next + 1;
	}
	// Only free-text values can carry input text; numbers and enumeration names are printed from a fixed
	// vocabulary ("prefer", "read-write", "true"), in which a short password candidate ("ref" from a
	// broken URL's ":ref@") may match by coincidence. The printed host list is what the input gave as
	// hosts; a broken URL's password candidates are fragments of the same text (a tail after an '@' may
	// repeat the host list), so a candidate found in the host list alone is not a leak.
	static const std::set<std::string> freeText = {"Database", "Username", "Application Name", "Host Order",
		"Root Certificate", "Passfile", "Eviction Policy", "Plugin Path"};
	const SecretRedactor redactor = settings.redactor(); // secrets() refers into it
	for (const std::string& secret: redactor.secrets())
	{
		const bool hasLetter = std::any_of(secret.begin(), secret.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; });
		if (!hasLetter) continue;
		for (const auto& [name, value]: fields)
		{
			if (name == "Password" && value != "***") std::abort();
			if (freeText.count(name) != 0 && value.find(secret) != std::string::npos)
			{
				std::cerr << "secret [" << secret << "] printed in " << name << " [" << value << "] of [" << printed << "]\n";
				std::abort();
			}
		}
	}
	// A value in which a secret was masked does not round-trip (ConnectionSettings::toString()); every
	// other printed form must parse. Looked for in the unquoted values, not the raw text: a host list that
	// held "...;Password=<secret>;..." prints as "...;Password=***;..." inside the Host value, which a
	// search for the Password field's own text mistook for it (CI, seed 1), and the masked host list then
	// split into fewer hosts than its ports.
	for (const auto& [name, value]: fields)
	{
		if (name != "Password" && value.find("***") != std::string::npos) return 0;
	}
	try
	{
		ConnectionSettings::parse(printed, {});
	}
	catch (BlueTuskConnectionStringException&)
	{
		std::abort(); // the printed form must always parse
	}
	return 0;
}
