//
// FleetErrors.cpp
//
// Classifying the fleet's failures by kind (FleetErrors.h).
//

#include "FleetErrors.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/HostAttemptsException.h"
#include <cctype>
#include <cstdio>

namespace BlueTusk {
namespace Fleet {


bool carriesSqlState(const Poco::Exception& exc, const std::string& sqlState)
{
	for (const Poco::Exception* current = &exc; current; current = current->nested())
	{
		if (auto server = dynamic_cast<const BlueTuskServerException*>(current))
		{
			if (server->sqlState() == sqlState) return true;
		}
		if (auto attempts = dynamic_cast<const HostAttemptsException*>(current))
		{
			for (const HostAttempt& attempt: attempts->attempts())
			{
				if (attempt.detail.find(sqlState) != std::string::npos || attempt.nestedText.find(sqlState) != std::string::npos)
					return true;
			}
		}
		if (current->message().find("SQLSTATE " + sqlState) != std::string::npos) return true;
	}
	return false;
}


std::string errorKind(const Poco::Exception& exc)
{
	if (carriesSqlState(exc, "53300")) return "53300";
	for (const Poco::Exception* current = &exc; current; current = current->nested())
	{
		if (auto server = dynamic_cast<const BlueTuskServerException*>(current))
		{
			if (!server->sqlState().empty()) return server->sqlState();
		}
	}
	std::string codes;
	for (const Poco::Exception* current = &exc; current; current = current->nested())
	{
		auto attempts = dynamic_cast<const HostAttemptsException*>(current);
		if (!attempts) continue;
		for (const HostAttempt& attempt: attempts->attempts())
		{
			// "57P03 the database system is starting up": an attempt's detail starts with its SQLSTATE.
			const std::string code = attempt.detail.substr(0, 5);
			const bool sqlState = code.size() == 5 && attempt.detail.size() > 5 && attempt.detail[5] == ' ' &&
				std::isdigit(static_cast<unsigned char>(code[0])) && std::isdigit(static_cast<unsigned char>(code[1]));
			if (sqlState && codes.find(code) == std::string::npos) codes += (codes.empty() ? "" : ",") + code;
		}
	}
	return codes.empty() ? std::string(exc.name()) : std::string(exc.name()) + " (" + codes + ")";
}


std::string jsonText(const std::string& text)
{
	std::string out = "\"";
	for (char c: text)
	{
		if (c == '"' || c == '\\')
		{
			out += '\\';
			out += c;
		}
		else if (static_cast<unsigned char>(c) < 0x20)
		{
			char escaped[8];
			std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned char>(c));
			out += escaped;
		}
		else out += c;
	}
	return out + "\"";
}


void ErrorCounts::add(const std::string& kind)
{
	std::lock_guard<std::mutex> lock(_mutex);
	++_counts[kind];
}


std::map<std::string, long> ErrorCounts::take()
{
	std::lock_guard<std::mutex> lock(_mutex);
	std::map<std::string, long> counts;
	counts.swap(_counts);
	return counts;
}


std::string ErrorCounts::json(const std::map<std::string, long>& counts) const
{
	std::string out = "{";
	for (const auto& entry: counts)
	{
		if (out.size() > 1) out += ",";
		out += jsonText(entry.first) + ":" + std::to_string(entry.second);
	}
	return out + "}";
}

} } // namespace BlueTusk::Fleet
