//
// PasswordFileTest.cpp
//
// libpq password file rules: fields, wildcards, escapes, comments, first match, socket directories,
// file permissions (PostgreSQL docs 34.16).
//

#include "CapturingChannel.h"
#include "connect/PasswordFile.h"
#include "Poco/AutoPtr.h"
#include "Poco/Channel.h"
#include "Poco/Logger.h"
#include "Poco/Message.h"
#include "Poco/TemporaryFile.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {


std::optional<std::string> find(const std::string& content, const std::string& host, Poco::UInt16 port, const std::string& db, const std::string& user)
{
	std::istringstream in(content);
	return PasswordFile::lookup(in, host, port, db, user);
}

} // namespace


class PasswordFileTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(PasswordFileTest);
	CPPUNIT_TEST(testMatching);
	CPPUNIT_TEST(testEscapesAndComments);
	CPPUNIT_TEST(testFilePermissions);
	CPPUNIT_TEST(testPerEndpoint);
	CPPUNIT_TEST_SUITE_END();

public:
	void testMatching()
	{
		const std::string file =
			"db-a:5432:app:alice:first\n"
			"db-a:5432:app:alice:second\n"
			"*:6432:*:bob:wild-host\n"
			"db-b:*:*:*:any-user\n"
			"127.0.0.1:5432:app:alice:by-address\n";
		CPPUNIT_ASSERT_EQUAL(std::string("first"), *find(file, "db-a", 5432, "app", "alice"));
		CPPUNIT_ASSERT(!find(file, "db-a", 5433, "app", "alice"));
		CPPUNIT_ASSERT(!find(file, "db-a", 5432, "other", "alice"));
		CPPUNIT_ASSERT(!find(file, "DB-A", 5432, "app", "alice"));
		CPPUNIT_ASSERT_EQUAL(std::string("wild-host"), *find(file, "anything", 6432, "x", "bob"));
		CPPUNIT_ASSERT_EQUAL(std::string("any-user"), *find(file, "db-b", 1, "x", "carol"));
		CPPUNIT_ASSERT_EQUAL(std::string("by-address"), *find(file, "127.0.0.1", 5432, "app", "alice"));
		CPPUNIT_ASSERT(!find("", "db-a", 5432, "app", "alice"));
	}

	void testEscapesAndComments()
	{
		const std::string file =
			"# a comment line: db-a:5432:app:alice:commented\n"
			"\n"
			"incomplete:5432:app\n"
			"db\\:x:5432:app:alice:colon\\:in\\\\password:and more\r\n"
			"db-c:5432:app:al\\\\ice:backslash-user\n";
		CPPUNIT_ASSERT(!find(file, "db-a", 5432, "app", "alice"));
		CPPUNIT_ASSERT_EQUAL(std::string("colon:in\\password:and more"), *find(file, "db:x", 5432, "app", "alice"));
		CPPUNIT_ASSERT_EQUAL(std::string("backslash-user"), *find(file, "db-c", 5432, "app", "al\\ice"));
	}

	void testFilePermissions()
	{
		Poco::TemporaryFile file;
		{
			std::ofstream out(file.path());
			out << "127.0.0.1:5432:app:alice:from-file\n";
		}
		::chmod(file.path().c_str(), 0600);
		CPPUNIT_ASSERT_EQUAL(std::string("from-file"), *PasswordFile::lookup(file.path(), "127.0.0.1", 5432, "app", "alice"));

		Poco::AutoPtr<CapturingChannel> channel(new CapturingChannel);
		Poco::Logger& logger = Poco::Logger::get("BlueTusk.Transport");
		Poco::AutoPtr<Poco::Channel> previous(logger.getChannel(), true);
		const int level = logger.getLevel();
		logger.setChannel(channel);
		logger.setLevel(Poco::Message::PRIO_WARNING);
		::chmod(file.path().c_str(), 0640);
		std::optional<std::string> readable = PasswordFile::lookup(file.path(), "127.0.0.1", 5432, "app", "alice");
		logger.setChannel(previous);
		logger.setLevel(level);
		CPPUNIT_ASSERT(!readable);
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), channel->messages().size());
		CPPUNIT_ASSERT(channel->messages()[0].find("has group or world access") != std::string::npos);
		CPPUNIT_ASSERT(channel->messages()[0].find(file.path()) != std::string::npos);
		CPPUNIT_ASSERT(channel->messages()[0].find("from-file") == std::string::npos);

		CPPUNIT_ASSERT(!PasswordFile::lookup(file.path() + ".missing", "127.0.0.1", 5432, "app", "alice"));
		CPPUNIT_ASSERT(!PasswordFile::lookup(std::string(), "127.0.0.1", 5432, "app", "alice"));
	}

	void testPerEndpoint()
	{
		Poco::TemporaryFile file;
		{
			std::ofstream out(file.path());
			out << "localhost:5433:alice:alice:socket-password\n"
			       "db-a:5432:alice:alice:default-database-is-user\n";
		}
		::chmod(file.path().c_str(), 0600);
		ConnectionSettings settings;
		settings.username = "alice";
		settings.passfile = file.path();
		CPPUNIT_ASSERT_EQUAL(file.path(), PasswordFile::pathFor(settings));
		CPPUNIT_ASSERT_EQUAL(std::string("socket-password"), *PasswordFile::passwordFor(BlueTuskHostEndpoint("/var/run/postgresql", 5433), settings));
		CPPUNIT_ASSERT_EQUAL(std::string("default-database-is-user"), *PasswordFile::passwordFor(BlueTuskHostEndpoint("db-a", 5432), settings));
		CPPUNIT_ASSERT(!PasswordFile::passwordFor(BlueTuskHostEndpoint("db-b", 5432), settings));
		settings.passfile.clear();
		CPPUNIT_ASSERT(PasswordFile::pathFor(settings).size() > 7);
		CPPUNIT_ASSERT_EQUAL(std::string("/.pgpass"), PasswordFile::pathFor(settings).substr(PasswordFile::pathFor(settings).size() - 8));
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(PasswordFileTest);
