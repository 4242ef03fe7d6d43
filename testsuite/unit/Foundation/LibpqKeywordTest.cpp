//
// LibpqKeywordTest.cpp
//
// The libpq keywords of libpq: hostaddr, options / Search Path, client_encoding,
// fallback_application_name, the keepalive family, requirepeer, sslcompression, and the keywords refused
// with a reason: each in the three forms, with its environment variable, its errors and the round trip.
//

#include "ConnectionStringTestHelpers.h"
#include <clocale>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

std::vector<std::string> addressesOf(const ConnectionSettings& settings)
{
	std::vector<std::string> result;
	for (const auto& endpoint: settings.endpoints) result.push_back(endpoint.address());
	return result;
}


void checkRoundTrip(const ConnectionSettings& original)
{
	const std::string printed = original.toString();
	const Environment hostile = {{"PGHOSTADDR", "10.9.9.9"}, {"PGOPTIONS", "-c work_mem=1MB"}, {"PGREQUIREPEER", "envpeer"},
		{"PGCLIENTENCODING", "LATIN1"}, {"PGSERVICE", "no-such-service"}};
	for (const Environment& environment: {Environment(), hostile})
	{
		ConnectionSettings reparsed = parse(printed, environment);
		reparsed.password = original.password;
		CPPUNIT_ASSERT_MESSAGE(printed, reparsed == original);
		CPPUNIT_ASSERT_EQUAL(printed, reparsed.toString());
	}
}

} // namespace


class LibpqKeywordTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(LibpqKeywordTest);
	CPPUNIT_TEST(testNoLibpqKeywordIsUnknown);
	CPPUNIT_TEST(testHostAddress);
	CPPUNIT_TEST(testHostAddressErrors);
	CPPUNIT_TEST(testOptionsAndSearchPath);
	CPPUNIT_TEST(testClientEncoding);
	CPPUNIT_TEST(testFallbackApplicationName);
	CPPUNIT_TEST(testKeepalives);
	CPPUNIT_TEST(testRequirePeer);
	CPPUNIT_TEST(testSslCompressionIgnored);
	CPPUNIT_TEST(testRefusals);
	CPPUNIT_TEST(testRoundTrip);
	CPPUNIT_TEST(testSet);
	CPPUNIT_TEST_SUITE_END();

public:
	void testNoLibpqKeywordIsUnknown()
	{
		// every libpq 17 keyword of part A (and PostgreSQL 18's that are refused) is known: it parses or
		// its message says why, never "unknown keyword"
		const char* const keywords[] = {"host", "hostaddr", "port", "dbname", "user", "password", "passfile", "require_auth",
			"channel_binding", "connect_timeout", "client_encoding", "options", "application_name", "fallback_application_name",
			"keepalives", "keepalives_idle", "keepalives_interval", "keepalives_count", "tcp_user_timeout", "replication",
			"sslmode", "sslcompression", "sslrootcert", "requirepeer", "gsslib", "service", "servicefile", "target_session_attrs",
			"load_balance_hosts", "oauth_issuer", "oauth_client_id", "oauth_client_secret", "oauth_scope", "scram_client_key",
			"scram_server_key"};
		for (const char* keyword: keywords)
		{
			for (const std::string& text: {std::string("host=db-a user=u ") + keyword + "=x", std::string("postgresql://u@db-a/?") + keyword + "=x",
				std::string("Host=db-a;Username=u;") + keyword + "=x"})
			{
				try
				{
					parse(text);
				}
				catch (BlueTuskConnectionStringException& exc)
				{
					CPPUNIT_ASSERT_MESSAGE(text + ": " + exc.message(), !contains(exc.message(), "unknown keyword"));
					CPPUNIT_ASSERT_MESSAGE(text + ": " + exc.message(), contains(exc.message(), keyword));
				}
			}
		}
	}

	void testHostAddress()
	{
		// each host keeps its name (TLS, password file) and connects to its hostaddr; empty = resolve
		const auto s = parse("host=db-a,db-b,db-c hostaddr=10.0.0.1,,::1 port=6000 user=u");
		BLUETUSK_ASSERT_ENDPOINTS("db-a:6000 db-b:6000 db-c:6000", s);
		CPPUNIT_ASSERT(addressesOf(s) == std::vector<std::string>({"10.0.0.1", "", "::1"}));
		CPPUNIT_ASSERT(s.endpoints[0].kind() == BlueTuskHostEndpoint::HOST_NAME);
		CPPUNIT_ASSERT(parse("Host=db-a,db-b,db-c;Host Address=10.0.0.1,,::1;Port=6000;Username=u") == s);
		CPPUNIT_ASSERT(parse("Host=db-a,db-b,db-c;HostAddress=10.0.0.1, ,::1;Port=6000;Username=u") == s);
		CPPUNIT_ASSERT(parse("postgresql://u@db-a:6000,db-b:6000,db-c:6000/?hostaddr=10.0.0.1,,%3A%3A1") == s);
		// without host: each address is the host; an empty host takes its address
		const auto only = parse("hostaddr=127.0.0.1,::1 user=u");
		BLUETUSK_ASSERT_ENDPOINTS("127.0.0.1:5432 [::1]:5432", only);
		CPPUNIT_ASSERT(addressesOf(only) == std::vector<std::string>({"", ""}));
		BLUETUSK_ASSERT_ENDPOINTS("127.0.0.2:5432 db-b:5432", parse("host=,db-b hostaddr=127.0.0.2, user=u"));
		// PGHOSTADDR, used only when hostaddr is not given
		const auto environment = parse("host=db-a user=u", {{"PGHOSTADDR", "192.0.2.7"}});
		CPPUNIT_ASSERT(addressesOf(environment) == std::vector<std::string>({"192.0.2.7"}));
		CPPUNIT_ASSERT(addressesOf(parse("host=db-a hostaddr=192.0.2.8 user=u", {{"PGHOSTADDR", "192.0.2.7"}})) == std::vector<std::string>({"192.0.2.8"}));
		// a different hostaddr is a different endpoint (its own pool)
		CPPUNIT_ASSERT(s.endpoints[0] != BlueTuskHostEndpoint("db-a", 6000));
		CPPUNIT_ASSERT(s.endpoints[0] == BlueTuskHostEndpoint("db-a", 6000, "10.0.0.1"));
	}

	void testHostAddressErrors()
	{
		CPPUNIT_ASSERT_EQUAL(std::string("hostaddr: the host \"db-a\" is not a numeric IP address; hostaddr takes IPv4 or IPv6 addresses"
			" without brackets or port (write host names in Host)"), parseError("host=x hostaddr=db-a user=u"));
		CPPUNIT_ASSERT_EQUAL(std::string("hostaddr: element 2 of 2 \"[::1]\" is not a numeric IP address; hostaddr takes IPv4 or IPv6 addresses"
			" without brackets or port (write host names in Host)"), parseError("host=x,y hostaddr=10.0.0.1,[::1] user=u"));
		CPPUNIT_ASSERT_EQUAL(std::string("hostaddr: 3 hosts but 2 hostaddr values; give one hostaddr per host (an empty one for a host to"
			" reach by its name)"), parseError("host=a,b,c hostaddr=10.0.0.1,10.0.0.2 user=u"));
		CPPUNIT_ASSERT_EQUAL(std::string("host: element 2 of 2 is empty and so is its hostaddr"), parseError("host=a, hostaddr=10.0.0.1, user=u"));
		CPPUNIT_ASSERT_EQUAL(std::string("host: element 2 of 3 is empty in the host list \"a,,b\""), parseError("host=a,,b user=u"));
		CPPUNIT_ASSERT_EQUAL(std::string("hostaddr: element 2 of 2 is empty and there is no host for it"), parseError("hostaddr=10.0.0.1, user=u"));
		CPPUNIT_ASSERT_EQUAL(std::string("hostaddr: the host \"10.0.0.1\" is given for the socket directory \"/tmp\", but a hostaddr connects"
			" over TCP; leave it empty for a socket directory"), parseError("host=/tmp hostaddr=10.0.0.1 user=u"));
		CPPUNIT_ASSERT_EQUAL(std::string("PGHOSTADDR (environment): the host \"x\" is not a numeric IP address; hostaddr takes IPv4 or IPv6"
			" addresses without brackets or port (write host names in Host)"), parseError("host=a user=u", {{"PGHOSTADDR", "x"}}));
	}

	void testOptionsAndSearchPath()
	{
		const auto s = parse("host=db-a user=u options='-c search_path=app -c statement_timeout=5s'");
		CPPUNIT_ASSERT_EQUAL(std::string("-c search_path=app -c statement_timeout=5s"), s.options);
		CPPUNIT_ASSERT(parse("Host=db-a;Username=u;Options=-c search_path=app -c statement_timeout=5s") == s);
		CPPUNIT_ASSERT(parse("postgresql://u@db-a/?options=-c%20search_path%3Dapp%20-c%20statement_timeout%3D5s") == s);
		CPPUNIT_ASSERT_EQUAL(std::string("-c geqo=off"), parse("host=db-a user=u", {{"PGOPTIONS", "-c geqo=off"}}).options);
		CPPUNIT_ASSERT_EQUAL(std::string(""), parse("host=db-a user=u options=''", {{"PGOPTIONS", "-c geqo=off"}}).options);
		const auto path = parse("Host=db-a;Username=u;Search Path=app, public");
		CPPUNIT_ASSERT_EQUAL(std::string("app, public"), path.searchPath);
		CPPUNIT_ASSERT_EQUAL(std::string(""), path.options);
		CPPUNIT_ASSERT_EQUAL(std::string("app"), parse("Host=db-a;Username=u;SearchPath=app").searchPath);
	}

	void testClientEncoding()
	{
		for (const char* name: {"UTF8", "utf8", "UTF-8", "utf_8", "Unicode"})
			CPPUNIT_ASSERT(parse(std::string("host=db-a user=u client_encoding=") + name) == parse("host=db-a user=u"));
		CPPUNIT_ASSERT(parse("Host=db-a;Username=u;Client Encoding=UTF8") == parse("host=db-a user=u"));
		CPPUNIT_ASSERT_EQUAL(std::string("client_encoding: \"LATIN1\" is not supported: BlueTusk decodes every text as UTF-8; accepted values:"
			" UTF8 (also utf-8, unicode), auto (with a UTF-8 or C locale)"), parseError("host=db-a user=u client_encoding=LATIN1"));
		BLUETUSK_ASSERT_CONTAINS(parseError("host=db-a user=u", {{"PGCLIENTENCODING", "SJIS"}}), "PGCLIENTENCODING (environment): \"SJIS\" is not supported");
		BLUETUSK_ASSERT_CONTAINS(parseError("postgresql://u@db-a/?client_encoding=WIN1252"), "client_encoding: \"WIN1252\" is not supported");
		// auto follows the locale's character set: the C locale (ASCII) and C.UTF-8 are accepted
		const std::string before = std::setlocale(LC_CTYPE, nullptr);
		std::setlocale(LC_CTYPE, "C");
		CPPUNIT_ASSERT_NO_THROW(parse("host=db-a user=u client_encoding=auto"));
		if (std::setlocale(LC_CTYPE, "C.UTF-8"))
			CPPUNIT_ASSERT_NO_THROW(parse("Host=db-a;Username=u;Client Encoding=AUTO"));
		std::setlocale(LC_CTYPE, before.c_str());
	}

	void testFallbackApplicationName()
	{
		const auto s = parse("host=db-a user=u fallback_application_name=tool");
		CPPUNIT_ASSERT_EQUAL(std::string("tool"), s.fallbackApplicationName);
		CPPUNIT_ASSERT_EQUAL(std::string(""), s.applicationName);
		CPPUNIT_ASSERT(parse("Host=db-a;Username=u;Fallback Application Name=tool") == s);
		CPPUNIT_ASSERT(parse("postgresql://u@db-a?fallback_application_name=tool") == s);
		const auto both = parse("host=db-a user=u fallback_application_name=tool application_name=app");
		CPPUNIT_ASSERT_EQUAL(std::string("app"), both.applicationName);
		CPPUNIT_ASSERT_EQUAL(std::string("tool"), both.fallbackApplicationName);
	}

	void testKeepalives()
	{
		const auto s = parse("host=db-a user=u keepalives=1 keepalives_idle=30 keepalives_interval=5 keepalives_count=4");
		CPPUNIT_ASSERT(s.keepalives == ConnectionSettings::Keepalives::On);
		CPPUNIT_ASSERT_EQUAL(30, s.keepalive.totalSeconds());
		CPPUNIT_ASSERT_EQUAL(5, s.keepaliveInterval.totalSeconds());
		CPPUNIT_ASSERT_EQUAL(4, s.keepaliveCount);
		CPPUNIT_ASSERT(parse("Host=db-a;Username=u;Keepalives=true;Keepalive=30;Keepalives Interval=5;Keepalives Count=4") == s);
		CPPUNIT_ASSERT(parse("postgresql://u@db-a/?keepalives=1&keepalives_idle=30&keepalives_interval=5&keepalives_count=4") == s);
		CPPUNIT_ASSERT(parse("host=db-a user=u keepalives=0").keepalives == ConnectionSettings::Keepalives::Off);
		CPPUNIT_ASSERT(parse("host=db-a user=u keepalives=00").keepalives == ConnectionSettings::Keepalives::Off);
		CPPUNIT_ASSERT(parse("host=db-a user=u keepalives=2").keepalives == ConnectionSettings::Keepalives::On);
		CPPUNIT_ASSERT(parse("host=db-a user=u").keepalives == ConnectionSettings::Keepalives::Unset);
		assertRejections("Host=db-a;Username=u;Password=pw-secret-1;", {
			{"Keepalives=maybe", {"Keepalives: \"maybe\" is not a valid value; accepted values: 1 (on), 0 (off), or a boolean"}},
			{"keepalives_interval=32768", {"keepalives_interval: \"32768\" is too large; at most 32767 seconds"}},
			{"keepalives_interval=-1", {"keepalives_interval: \"-1\" is negative"}},
			{"keepalives_count=128", {"keepalives_count: \"128\" is too large; at most 127 probes"}},
			{"Keepalives Count=x", {"Keepalives Count: \"x\" is not a whole number"}},
		});
	}

	void testRequirePeer()
	{
		CPPUNIT_ASSERT_EQUAL(std::string("postgres"), parse("host=/tmp user=u requirepeer=postgres").requirePeer);
		CPPUNIT_ASSERT_EQUAL(std::string("postgres"), parse("Host=/tmp;Username=u;Require Peer=postgres").requirePeer);
		CPPUNIT_ASSERT_EQUAL(std::string("postgres"), parse("postgresql://u@%2Ftmp/?requirepeer=postgres").requirePeer);
		CPPUNIT_ASSERT_EQUAL(std::string("pgowner"), parse("host=/tmp user=u", {{"PGREQUIREPEER", "pgowner"}}).requirePeer);
		CPPUNIT_ASSERT_EQUAL(std::string(""), parse("host=/tmp user=u requirepeer=", {{"PGREQUIREPEER", "pgowner"}}).requirePeer);
	}

	void testSslCompressionIgnored()
	{
		// libpq 17 ignores sslcompression (OpenSSL 3 and PostgreSQL 14+ have no TLS compression)
		CPPUNIT_ASSERT(parse("host=db-a user=u sslcompression=1") == parse("host=db-a user=u"));
		CPPUNIT_ASSERT(parse("Host=db-a;Username=u;SSL Compression=0") == parse("host=db-a user=u"));
		CPPUNIT_ASSERT(parse("postgresql://u@db-a/?sslcompression=1") == parse("host=db-a user=u"));
		CPPUNIT_ASSERT(!contains(parse("host=db-a user=u sslcompression=1").toString(), "ompression"));
	}

	void testRefusals()
	{
		assertRejections("Host=db-a;Username=u;Password=pw-secret-2;", {
			{"replication=database", {"replication: not supported by BlueTusk: a replication connection", "only replication=false"}},
			{"replication=true", {"replication: not supported by BlueTusk"}},
			{"gsslib=sspi", {"gsslib: not supported by BlueTusk: SSPI exists only on Windows"}},
			{"gsslib=krb5", {"gsslib: \"krb5\" is not a valid value; accepted values: gssapi"}},
			{"oauth_issuer=https://issuer.example", {"oauth_issuer: not supported by BlueTusk: OAuth"}},
			{"tty=/dev/null", {"tty: not supported by BlueTusk: tty is not a libpq 17 keyword"}},
			{"requiressl=1", {"requiressl: not supported by BlueTusk", "sslmode=require"}},
			{"scram_client_key=abc", {"scram_client_key: not supported by BlueTusk: SCRAM key pass-through"}},
		});
		// accepted: an ordinary session, the only GSS library off Windows
		CPPUNIT_ASSERT(parse("host=db-a user=u replication=false") == parse("host=db-a user=u"));
		CPPUNIT_ASSERT(parse("host=db-a user=u replication=0 gsslib=gssapi") == parse("host=db-a user=u"));
		// a refused keyword's value is never echoed (oauth_client_secret is a secret)
		const std::string message = parseError("host=db-a user=u oauth_client_secret=Sekr1t-Value");
		CPPUNIT_ASSERT_MESSAGE(message, !contains(message, "Sekr1t"));
		BLUETUSK_ASSERT_CONTAINS(message, "oauth_client_secret: not supported by BlueTusk");
		// the environment of a refused keyword is not read (libpq off Windows disregards PGGSSLIB)
		CPPUNIT_ASSERT_NO_THROW(parse("host=db-a user=u", {{"PGGSSLIB", "sspi"}}));
	}

	void testRoundTrip()
	{
		checkRoundTrip(parse("host=db-a,db-b hostaddr=10.0.0.1, user=u options='-c a=b -c x=y\\ z' fallback_application_name=fb "
			"keepalives=0 keepalives_interval=7 keepalives_count=3 requirepeer=postgres sslcompression=1 client_encoding=utf8"));
		checkRoundTrip(parse("Host=db-a;Username=u;Search Path=\"a; b\";Keepalives=on;Password=pw-xyz-123"));
		checkRoundTrip(parse("hostaddr=127.0.0.1 user=u"));
		checkRoundTrip(parse("host=db-a user=u", {{"PGHOSTADDR", "::1"}, {"PGOPTIONS", "-c geqo=off"}, {"PGREQUIREPEER", "pg"}}));
		BLUETUSK_ASSERT_CONTAINS(parse("host=db-a,db-b hostaddr=10.0.0.1, user=u").toString(), "Host Address=10.0.0.1,;");
	}

	void testSet()
	{
		auto s = parse("host=db-a,db-b user=u");
		s.set("hostaddr", "10.0.0.1,10.0.0.2");
		CPPUNIT_ASSERT(addressesOf(s) == std::vector<std::string>({"10.0.0.1", "10.0.0.2"}));
		s.set("Port", "6000");
		BLUETUSK_ASSERT_ENDPOINTS("db-a:6000 db-b:6000", s);
		CPPUNIT_ASSERT(addressesOf(s) == std::vector<std::string>({"10.0.0.1", "10.0.0.2"}));
		s.set("Options", "-c geqo=off");
		CPPUNIT_ASSERT_EQUAL(std::string("-c geqo=off"), s.options);
		try
		{
			s.set("service", "app");
			CPPUNIT_FAIL("set(service) was accepted");
		}
		catch (BlueTuskConnectionStringException& exc)
		{
			BLUETUSK_ASSERT_CONTAINS(exc.message(), "service: a service cannot be applied as an override");
		}
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(LibpqKeywordTest);
