//
// ConnectionStringFuzzTest.cpp
//
// Feeds several thousand mutated connection strings (deterministic: fixed PRNG seed) to the parser and
// checks that only BlueTuskConnectionStringException is ever thrown, that no message contains the
// password, and that whatever parses also survives the toString() round trip.
//

#include "ConnectionStringTestHelpers.h"
#include "Poco/Environment.h"
#include "Poco/NumberParser.h"
#include <iostream>
#include <random>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

const std::string secret = "Fz7Secret-Q9x";


const std::vector<std::string>& seeds()
{
	static const std::vector<std::string> list = {
		"Host=db-a,db-b,db-c;Port=5432;Target Session Attributes=read-write;Username=u;Password=" + secret,
		"Host=db-a,db-b;Port=5432,6432;Target Session Attributes=prefer-standby;Username=u;Password=" + secret,
		"Host=[::1]:5433,/var/run/postgresql,::2;Username=\"u;x\";Password='" + secret + "';Timeout=2.5;Host Order=random",
		"Password=\"" + secret + "\";Host=db-a:6000;Username=u;Application Name=' it''s ';Minimum Pool Size=1;Maximum Pool Size=5",
		"host=db-a,db-b port=5432 target_session_attrs=read-write user=u password=" + secret,
		"host=/tmp user='a b' password='" + secret + "' application_name=x\\ y connect_timeout=3 sslmode=require",
		"postgresql://user:" + secret + "@db-a:5432,db-b:6432/app?target_session_attrs=standby",
		"postgres://u:" + secret + "@[::1]:5432,%2Ftmp:6000/my%20db?application_name=a%26b&load_balance_hosts=random&readonly=false",
		"Host=db-a;Username=u;Password=" + secret + ";Plugin Path=/opt/a,/opt/b;Eviction Policy=standard;Failover Timeout=10;Pooling=false",
	};
	return list;
}


const std::vector<std::string>& fragments()
{
	static const std::vector<std::string> list = {
		";", "=", ",", ":", "'", "\"", "\\", "[", "]", "%", "%0", "%00", "%2F", "%zz", "@", "/", "?", "&", " ", "\t", "\n",
		"Port=", "Host=", "host=", "Password=", "password=", "user=", "Username=", "postgresql://", "::", "-1", "0", "99999",
		"65536", "1.5", ".", "Timeout=", "Target Session Attributes=", "readonly=", "''", "\"\"", ";;", "==", ",,", "[::1]",
		"/tmp", "Maximum Pool Size=", "Minimum Pool Size=", "sslmode=", "dbname=", "?port=",
	};
	return list;
}


class Mutator
{
public:
	explicit Mutator(std::uint32_t seed): _random(seed)
	{
	}

	std::size_t below(std::size_t n)
	{
		return n == 0 ? 0 : std::uniform_int_distribution<std::size_t>(0, n - 1)(_random);
	}

	std::string mutate(std::string text)
	{
		const std::size_t steps = 1 + below(4);
		for (std::size_t step = 0; step < steps; ++step)
		{
			const std::size_t at = below(text.size() + 1);
			switch (below(8))
			{
			case 0: // insert a fragment
				text.insert(at, fragments()[below(fragments().size())]);
				break;
			case 1: // insert a random byte (any of 256, NUL included)
				text.insert(at, 1, static_cast<char>(below(256)));
				break;
			case 2: // delete one character
				if (at < text.size()) text.erase(at, 1);
				break;
			case 3: // delete a range
				if (at < text.size()) text.erase(at, 1 + below(12));
				break;
			case 4: // replace a character by a fragment's first character
				if (at < text.size()) text[at] = fragments()[below(fragments().size())][0];
				break;
			case 5: // duplicate a range
				if (at < text.size()) text.insert(at, text.substr(at, 1 + below(10)));
				break;
			case 6: // splice with another seed
			{
				const std::string& other = seeds()[below(seeds().size())];
				text = text.substr(0, at) + other.substr(below(other.size() + 1));
				break;
			}
			default: // truncate
				text.resize(at);
				break;
			}
		}
		return text;
	}

private:
	std::mt19937 _random;
};


std::string lower(std::string text)
{
	for (char& c: text)
	{
		if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
	}
	return text;
}


std::size_t occurrences(const std::string& text, const std::string& part)
{
	std::size_t count = 0;
	for (std::size_t found = text.find(part); found != std::string::npos; found = text.find(part, found + 1)) ++count;
	return count;
}


bool assignsSecretAsPassword(const std::string& text)
	/// Whether text still hands the secret (once, whole) to a password: Password=<secret> followed by an end
	/// of value, the same in quotes, or a URL's user info ":<secret>@".
{
	if (occurrences(text, secret) != 1) return false;
	const std::size_t at = text.find(secret);
	const std::size_t end = at + secret.size();
	const char after = end < text.size() ? text[end] : ';';
	const std::string before = lower(text.substr(0, at));
	auto endsWith = [&before](const std::string& suffix)
	{
		return before.size() >= suffix.size() && before.compare(before.size() - suffix.size(), suffix.size(), suffix) == 0;
	};
	if (endsWith("password=") && std::string(";& \t\n'\"").find(after) != std::string::npos) return true;
	if (endsWith("password='") && after == '\'') return true;
	if (endsWith("password=\"") && after == '"') return true;
	return after == '@' && endsWith(":") && before.find("://") != std::string::npos;
}

bool passwordInOtherValue(const ConnectionSettings& settings)
	/// Whether a value other than Password holds one of the settings' secrets (the password, or a text
	/// of the input that might be one: ConnectionSettings::redactor()).
{
	const SecretRedactor redactor = settings.redactor();
	std::vector<std::string> values = {settings.database, settings.username, settings.applicationName, settings.hostOrder,
		settings.rootCertificate, settings.passfile, settings.evictionPolicy};
	std::string hosts;
	for (const auto& endpoint: settings.endpoints) hosts += "[" + endpoint.host() + "],";
	values.push_back(hosts);
	std::string plugins;
	for (const auto& entry: settings.pluginPath) plugins += entry + ",";
	values.push_back(plugins);
	for (const auto& value: values)
	{
		// the printed lists may hold the password across elements ("db-a,db-b"): compare without brackets
		std::string plain;
		for (char c: value)
		{
			if (c != '[' && c != ']') plain += c;
		}
		if (redactor.reveals(plain) || redactor.reveals(value)) return true;
	}
	return false;
}

} // namespace


class ConnectionStringFuzzTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(ConnectionStringFuzzTest);
	CPPUNIT_TEST(testSeedsParse);
	CPPUNIT_TEST(testMutatedStrings);
	CPPUNIT_TEST(testMangledSchemes);
	CPPUNIT_TEST_SUITE_END();

public:
	void testSeedsParse()
	{
		for (const auto& seed: seeds())
		{
			const auto settings = parse(seed);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(seed, secret, settings.password);
			CPPUNIT_ASSERT(!contains(settings.toString(), secret));
		}
	}

	void testMangledSchemes()
		/// a URL whose scheme is mangled (a byte replaced, a slash lost, text in front) was read
		/// as keyword/value and its user info echoed in "unknown keyword". 3,000 such strings, every
		/// outcome: the password's text in no message, nor in toString().
	{
		Mutator mutator(20260312);
		const std::vector<std::string> urls = {"postgresql://user:" + secret + "@db-a:5432/app?sslmode=require",
			"postgres://app:" + secret + "@db-a,db-b/app", "postgresql://user:" + secret + "@host"};
		int rejected = 0;
		for (int i = 0; i < 3000; ++i)
		{
			std::string input = urls[mutator.below(urls.size())];
			const std::size_t schemeEnd = input.find("://");
			switch (mutator.below(4))
			{
			case 0: input[mutator.below(schemeEnd)] = static_cast<char>(mutator.below(256)); break;   // a byte of the scheme
			case 1: input.erase(schemeEnd + 1, 1); break;                                               // one slash
			case 2: input[mutator.below(schemeEnd)] = static_cast<char>(mutator.below(32)); input.erase(schemeEnd + 1, 1); break;
			default: input.insert(mutator.below(schemeEnd + 1), 1, static_cast<char>(mutator.below(256))); break;
			}
			if (mutator.below(2) == 0) input += (input.find('?') == std::string::npos ? "?" : "&") + std::string("application_name=x");
			const std::string where = "iteration " + std::to_string(i) + ": " + input;
			try
			{
				const ConnectionSettings settings = ConnectionSettings::parse(input, {});
				CPPUNIT_ASSERT_MESSAGE(where, !contains(settings.toString(), secret));
			}
			catch (BlueTuskConnectionStringException& exc)
			{
				++rejected;
				CPPUNIT_ASSERT_MESSAGE(where + " -> " + exc.message(), !contains(exc.displayText(), secret));
				CPPUNIT_ASSERT_MESSAGE(where + " -> " + exc.message(), !contains(exc.displayText(), secret.substr(0, 6)));
			}
		}
		CPPUNIT_ASSERT_MESSAGE(std::to_string(rejected) + " rejected", rejected > 1000);
	}

	void testMutatedStrings()
	{
		// Deterministic by default; BLUETUSK_FUZZ_SEED and BLUETUSK_FUZZ_ITERATIONS explore further.
		Mutator mutator(static_cast<std::uint32_t>(Poco::NumberParser::parseUnsigned(Poco::Environment::get("BLUETUSK_FUZZ_SEED", "20240611"))));
		const int iterations = Poco::NumberParser::parse(Poco::Environment::get("BLUETUSK_FUZZ_ITERATIONS", "6000"));
		int parsed = 0;
		int rejected = 0;
		int passwordChecks = 0;
		for (int i = 0; i < iterations; ++i)
		{
			const std::string input = mutator.mutate(seeds()[mutator.below(seeds().size())]);
			const std::string where = "iteration " + std::to_string(i) + ": " + input;
			try
			{
				const ConnectionSettings settings = ConnectionSettings::parse(input, {});
				++parsed;
				const std::string printed = settings.toString();
				// A value holding the password's text is printed masked (checked in ConnectionRoundTripTest)
				// and cannot round-trip; every other result must.
				if (passwordInOtherValue(settings)) continue;
				// so is a value holding user info ("x:y@"): its password part is masked whatever it is
				if (printed.find(":***@") != std::string::npos) continue;
				// the printed text does not depend on the password's value at all
				ConnectionSettings otherPassword(settings);
				otherPassword.password = settings.password.empty() ? std::string() : std::string("\x01other");
				CPPUNIT_ASSERT_EQUAL_MESSAGE(where, otherPassword.toString(), printed);
				ConnectionSettings reparsed;
				try
				{
					reparsed = ConnectionSettings::parse(printed, {});
				}
				catch (Poco::Exception& exc)
				{
					CPPUNIT_FAIL(where + " -> " + printed + ": the printed form does not parse: " + exc.displayText());
				}
				reparsed.password = settings.password;
				CPPUNIT_ASSERT_MESSAGE(where + " -> " + printed, reparsed == settings);
			}
			catch (BlueTuskConnectionStringException& exc)
			{
				++rejected;
				CPPUNIT_ASSERT_MESSAGE(where, !exc.message().empty());
				if (assignsSecretAsPassword(input))
				{
					++passwordChecks;
					CPPUNIT_ASSERT_MESSAGE(where + " -> " + exc.message(), !contains(exc.displayText(), secret));
				}
			}
			catch (CppUnit::Exception&)
			{
				throw;
			}
			catch (Poco::Exception& exc)
			{
				CPPUNIT_FAIL(where + ": unexpected " + std::string(exc.name()) + ": " + exc.displayText());
			}
			catch (std::exception& exc)
			{
				CPPUNIT_FAIL(where + ": unexpected std::exception: " + exc.what());
			}
		}
		CPPUNIT_ASSERT_EQUAL(iterations, parsed + rejected);
		std::cout << " [" << parsed << " parsed, " << rejected << " rejected, " << passwordChecks << " password checks] " << std::flush;
		// the mutations must exercise both outcomes and the password check substantially
		CPPUNIT_ASSERT_MESSAGE(std::to_string(parsed) + " parsed", parsed > iterations / 10);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(rejected) + " rejected", rejected > iterations / 4);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(passwordChecks) + " password checks", passwordChecks > iterations / 5);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(ConnectionStringFuzzTest);
