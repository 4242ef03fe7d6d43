//
// ConnectionKeywordLookup.cpp
//
// Library: BlueTusk/Foundation
//
// ConnectionKeywords' use of the keyword table: finding a keyword as written, applying a value, deriving the
// endpoints and defaults, the nearest keyword for hints.
//

#include "ConnectionKeywords.h"
#include "HostList.h"
#include "ValueText.h"
#include "BlueTusk/LocalUser.h"
#include <algorithm>

namespace BlueTusk {
namespace Detail {

const ConnectionKeywords::Keyword* ConnectionKeywords::find(const std::string& written)
{
	const std::string wanted = asciiLower(trim(written));
	if (wanted.empty()) return nullptr;
	for (const Keyword& keyword: all())
	{
		const std::string canonical = asciiLower(keyword.name);
		std::string compact;
		for (char c: canonical)
		{
			if (c != ' ') compact += c;
		}
		if (wanted == canonical || wanted == compact) return &keyword;
		if (keyword.libpqName && wanted == keyword.libpqName) return &keyword;
	}
	return nullptr;
}


void ConnectionKeywords::apply(ConnectionSettings& settings, const Keyword& keyword, const std::string& value, const std::string& source)
{
	keyword.field.apply(settings, value, source);
	if (keyword.secret) settings._secrets.push_back(value);
}


std::string ConnectionKeywords::settingOf(const Keyword& keyword)
{
	return keyword.setting ? keyword.setting : keyword.name;
}


void ConnectionKeywords::finish(ConnectionSettings& settings, bool deriveEndpoints, bool libpqDefaults)
{
	if (deriveEndpoints)
	{
		const bool addresses = !trim(settings._hostAddressList).empty();
		std::vector<HostElement> hosts;
		if (!trim(settings._hostList).empty())
		{
			// an empty element is allowed only where a hostaddr fills it in (applyHostAddresses checks)
			hosts = parseHostList(settings._hostList, settings._hostSource.empty() ? std::string("Host") : settings._hostSource, addresses);
		}
		else
		{
			// endpoints filled in by a program (no Host text): a new Port applies to their hosts
			for (const auto& endpoint: settings.endpoints) hosts.push_back(HostElement{endpoint.host(), 0, endpoint.address()});
		}
		if (addresses)
			applyHostAddresses(hosts, parseHostAddressList(settings._hostAddressList, "hostaddr"), settings._hostSource.empty() ? std::string("Host") : settings._hostSource);
		if (hosts.empty() && libpqDefaults)
			hosts.push_back(HostElement{defaultSocketDirectory(), 0, std::string()}); // libpq: no host means the local socket
		const std::vector<Poco::UInt16> ports = settings._portList.empty() ? std::vector<Poco::UInt16>() : parsePortList(settings._portList, "Port");
		settings.endpoints = resolveEndpoints(hosts, ports);
	}
	if (libpqDefaults && settings.username.empty())
		settings.username = LocalUser::name(); // libpq: the operating-system user's name

	// Database defaults to the user name, and keeps following it while it was not set explicitly.
	const bool defaulted = !settings._defaultDatabase.empty() && settings.database == settings._defaultDatabase;
	if (settings.database.empty() || defaulted)
	{
		settings.database = settings.username;
		settings._defaultDatabase = settings.username;
	}
}


namespace {

std::size_t editDistance(const std::string& a, const std::string& b)
	/// Levenshtein distance, for "nearest keyword" hints (keywords are short: O(n*m) is fine).
{
	std::vector<std::size_t> row(b.size() + 1);
	for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
	for (std::size_t i = 1; i <= a.size(); ++i)
	{
		std::size_t diagonal = row[0];
		row[0] = i;
		for (std::size_t j = 1; j <= b.size(); ++j)
		{
			const std::size_t above = row[j];
			row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0u : 1u)});
			diagonal = above;
		}
	}
	return row[b.size()];
}

} // namespace


const ConnectionKeywords::Keyword* ConnectionKeywords::nearest(const std::string& written)
{
	const std::string wanted = asciiLower(trim(written));
	const Keyword* best = nullptr;
	std::size_t bestDistance = 0;
	for (const Keyword& keyword: all())
	{
		std::string canonical = asciiLower(keyword.name);
		std::string compact = canonical;
		compact.erase(std::remove(compact.begin(), compact.end(), ' '), compact.end());
		std::vector<std::string> spellings = {canonical, compact};
		if (keyword.libpqName) spellings.push_back(keyword.libpqName);
		for (const std::string& spelling: spellings)
		{
			const std::size_t distance = editDistance(wanted, spelling);
			if (!best || distance < bestDistance)
			{
				best = &keyword;
				bestDistance = distance;
			}
		}
	}
	return best;
}


std::string ConnectionKeywords::serviceOf(const ConnectionSettings& settings)
{
	return settings._service;
}


std::string ConnectionKeywords::serviceFileOf(const ConnectionSettings& settings)
{
	return settings._serviceFile;
}

} } // namespace BlueTusk::Detail
