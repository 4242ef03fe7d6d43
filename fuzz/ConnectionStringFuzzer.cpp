//
// ConnectionStringFuzzer.cpp
//
// libFuzzer target: ConnectionSettings::parse() on arbitrary bytes (all three forms). It may only throw
// BlueTuskConnectionStringException with a message; a string that parses must print (toString()) without
// any of the secrets its redactor knows, and parse back (unless a secret was masked inside a value). toString() prints numbers (ports, timeouts) and
// enumeration names as they are, so a secret made of digits and punctuation alone may match a port by
// coincidence ("5432" left of an '@' in a broken URL): only secrets with a letter are checked, and only
// against the printed values (keyword names removed).
//

#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/ConnectionSettings.h"
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <string>

using namespace BlueTusk;


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
		return 0;
	}
	const std::string printed = settings.toString();
	// The keyword names toString() writes are not values: a short candidate ("Tim" between a ':' and an
	// '@') may match one of them by coincidence. They are masked with a marker; since the input may hold
	// the marker itself (a candidate "r;\x01=;\x01=" matched "prefer;<name>;<name>"), the check runs with
	// two different markers and only a secret found with both is a leak.
	const SecretRedactor redactor = settings.redactor();
	auto leaksWith = [&](const std::string& marker)
	{
		std::string values = printed;
		for (const char* name: {"Host=", "Port=", "Database=", "Username=", "Password=", "Application Name=",
			"Target Session Attributes=", "Host Order=", "Timeout=", "SSL Mode=", "Root Certificate=", "Passfile=",
			"Require Auth=", "Channel Binding=", "Failover Timeout=", "Host Recheck Seconds=", "Pooling=",
			"Minimum Pool Size=", "Maximum Pool Size=", "Connection Idle Lifetime=", "Connection Lifetime=",
			"Checkout Timeout=", "No Reset On Close=", "Eviction Policy=", "Plugin Path=", "Command Timeout=",
			"Max Auto Prepare=", "Auto Prepare Min Usages=", "Keepalive=", "Tcp User Timeout=", "Failover Poll Milliseconds=",
			"Read Your Writes=", "Read Your Writes Timeout=", "Max Standby Lag="})
		{
			for (std::size_t at = values.find(name); at != std::string::npos; at = values.find(name, at + marker.size()))
				values.replace(at, std::char_traits<char>::length(name), marker);
		}
		// The printed host list is what the input gave as hosts; a broken URL's password candidates are
		// fragments of the same text (a tail after an '@' may repeat the host list), so a candidate found
		// only as part of the host list (its ';' being toString()'s separator) is not a leak.
		const std::size_t hostAt = printed.find("Host=");
		const std::string hostField = hostAt == std::string::npos ? std::string() :
			printed.substr(hostAt + 5, printed.find(';', hostAt) - hostAt - 5);
		std::string outsideHosts = values;
		const std::size_t hostValue = outsideHosts.find(marker + hostField + ";");
		if (hostValue != std::string::npos) outsideHosts.replace(hostValue, marker.size() + hostField.size() + 1, marker + ";");
		for (const std::string& secret: redactor.secrets())
		{
			const bool hasLetter = std::any_of(secret.begin(), secret.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; });
			if (!hasLetter || values.find(secret) == std::string::npos) continue;
			std::string stripped = secret;
			while (!stripped.empty() && stripped.back() == ';') stripped.pop_back();
			const bool onlyInHosts = !stripped.empty() && hostField.find(stripped) != std::string::npos && outsideHosts.find(secret) == std::string::npos;
			if (!onlyInHosts) return true;
		}
		return false;
	};
	if (leaksWith("\x01=") && leaksWith("\x02=")) std::abort();
	// A value in which a secret was masked does not round-trip (ConnectionSettings::toString()); every
	// other printed form must parse.
	const std::size_t password = printed.find("Password=***;");
	std::string rest = printed;
	if (password != std::string::npos) rest.erase(password, 13);
	if (rest.find("***") != std::string::npos) return 0;
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
