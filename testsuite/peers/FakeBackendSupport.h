//
// FakeBackendSupport.h
//
// Library: BlueTusk test peers
//
// What FakeBackend's source files share: the per-connection state and the small text and message helpers.
//

#ifndef BlueTusk_FakeBackendSupport_INCLUDED
#define BlueTusk_FakeBackendSupport_INCLUDED

#include "FakeBackend.h"
#include "Poco/DigestEngine.h"
#include "Poco/MD5Engine.h"
#include "Poco/RandomStream.h"
#include <atomic>
#include <map>
#include <string>
#include <vector>

namespace BlueTusk {
namespace Test {


struct FakeBackend::Connection
{
	int id = 0;
	Poco::Net::StreamSocket socket;
	std::atomic<bool> kill{false};
	std::atomic<bool> reset{false};
	std::atomic<bool> cancelled{false};
	Poco::Int32 processId = 0;
	std::string secretKey;                         /// BackendKeyData's secret key bytes
	char status = 'I';
	std::string user;
	std::map<std::string, std::string> startup;
	std::map<std::string, std::string> statements;
	std::map<std::string, std::string> portals;
	std::map<std::string, std::string> reported;   /// role ParameterStatus values this session was sent
};


namespace FakeBackendSupport {

constexpr int MAX_MESSAGE_LENGTH = 1 << 20;

inline std::string randomBytes(std::size_t count)
{
	Poco::RandomInputStream random;
	std::string bytes(count, '\0');
	random.read(&bytes[0], static_cast<std::streamsize>(count));
	return bytes;
}

inline std::string md5Hex(const std::string& data)
{
	Poco::MD5Engine md5;
	md5.update(data);
	return Poco::DigestEngine::digestToHex(md5.digest());
}

inline std::string firstWord(const std::string& lowered)
{
	std::size_t end = 0;
	while (end < lowered.size() && (std::isalpha(static_cast<unsigned char>(lowered[end])) || lowered[end] == '_')) ++end;
	return lowered.substr(0, end);
}

inline std::string normalize(const std::string& sql)
{
	std::string text = Detail::trim(sql);
	while (!text.empty() && text.back() == ';')
	{
		text.pop_back();
		text = Detail::trim(text);
	}
	return text;
}

inline std::vector<std::string> splitStatements(const std::string& sql)
	/// Splits at ';' outside quotes; keeps empty statements out unless the whole text is empty.
{
	std::vector<std::string> statements;
	std::string current;
	char quote = 0;
	for (char c: sql)
	{
		if (quote)
		{
			if (c == quote) quote = 0;
			current.push_back(c);
		}
		else if (c == '\'' || c == '"')
		{
			quote = c;
			current.push_back(c);
		}
		else if (c == ';')
		{
			if (!Detail::trim(current).empty()) statements.push_back(current);
			current.clear();
		}
		else current.push_back(c);
	}
	if (!Detail::trim(current).empty()) statements.push_back(current);
	return statements;
}

inline int countParameters(const std::string& sql)
{
	int highest = 0;
	for (std::size_t i = 0; i < sql.size(); ++i)
	{
		if (sql[i] == '$' && i + 1 < sql.size() && std::isdigit(static_cast<unsigned char>(sql[i + 1])))
		{
			int n = 0;
			std::size_t j = i + 1;
			while (j < sql.size() && std::isdigit(static_cast<unsigned char>(sql[j]))) n = n * 10 + (sql[j++] - '0');
			if (n > highest) highest = n;
		}
	}
	return highest;
}

inline Wire::ErrorFields fatal(const std::string& sqlState, const std::string& message)
{
	Wire::ErrorFields fields;
	fields.severity = "FATAL";
	fields.sqlState = sqlState;
	fields.message = message;
	return fields;
}

inline Wire::ErrorFields error(const std::string& sqlState, const std::string& message)
{
	Wire::ErrorFields fields = fatal(sqlState, message);
	fields.severity = "ERROR";
	return fields;
}

} // namespace FakeBackendSupport

} } // namespace BlueTusk::Test

#endif // BlueTusk_FakeBackendSupport_INCLUDED
