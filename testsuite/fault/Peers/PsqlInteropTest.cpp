//
// PsqlInteropTest.cpp
//
// The fake backend must convince a real client: PostgreSQL's own psql (libpq) logs in to it with trust,
// cleartext, MD5 and SCRAM-SHA-256, reads its ParameterStatus values and runs queries; a corrupted SCRAM
// server signature and a wrong password are rejected as libpq rejects them from a real server.
// Skipped (with a note) when psql is not installed.
//

#include "FakeBackend.h"
#include "Poco/File.h"
#include "Poco/Pipe.h"
#include "Poco/PipeStream.h"
#include "Poco/Process.h"
#include "Poco/StreamCopier.h"
#include <cppunit/extensions/HelperMacros.h>
#include <iostream>

using namespace BlueTusk::Test;

namespace {

struct PsqlResult
{
	int status = -1;
	std::string output;  /// stdout and stderr together
};

const char* PSQL = "/usr/bin/psql";

bool havePsql()
{
	static bool have = Poco::File(PSQL).exists();
	static bool noted = false;
	if (!have && !noted)
	{
		std::cerr << "psql not found: PsqlInteropTest skipped" << std::endl;
		noted = true;
	}
	return have;
}

PsqlResult psql(const FakeBackend& backend, const std::string& password, const std::string& sql)
{
	Poco::Process::Args args{"-X", "-A", "-t", "-w", "-c", sql,
		"host=" + backend.host() + " port=" + std::to_string(backend.port()) +
		" user=alice dbname=app sslmode=disable connect_timeout=5 application_name=psql-interop"};
	Poco::Process::Env env{{"PGPASSWORD", password}, {"PGPASSFILE", "/nonexistent/pgpass"}, {"LANG", "C"}, {"LC_ALL", "C"}, {"PGSERVICEFILE", "/nonexistent/pg_service.conf"}};
	Poco::Pipe out;
	Poco::ProcessHandle handle = Poco::Process::launch(PSQL, args, "/tmp", nullptr, &out, &out, env);
	Poco::PipeInputStream stream(out);
	PsqlResult result;
	Poco::StreamCopier::copyToString(stream, result.output);
	result.status = handle.wait();
	return result;
}

}


class PsqlInteropTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(PsqlInteropTest);
	CPPUNIT_TEST(testTrust);
	CPPUNIT_TEST(testCleartextAndMd5);
	CPPUNIT_TEST(testScram);
	CPPUNIT_TEST(testScramWrongPassword);
	CPPUNIT_TEST(testScramCorruptServerSignature);
	CPPUNIT_TEST(testStartupErrorReachesPsql);
	CPPUNIT_TEST_SUITE_END();

public:
	void testTrust()
	{
		if (!havePsql()) return;
		FakeBackend backend(BackendScript::standby()
			.answer("SELECT current_user", QueryAnswer::value("alice", "current_user")));
		PsqlResult probe = psql(backend, "", "SELECT pg_is_in_recovery(), current_setting('transaction_read_only')");
		CPPUNIT_ASSERT_EQUAL_MESSAGE(probe.output, 0, probe.status);
		CPPUNIT_ASSERT_EQUAL(std::string("t|on\n"), probe.output);
		PsqlResult user = psql(backend, "", "SELECT current_user");
		CPPUNIT_ASSERT_EQUAL(std::string("alice\n"), user.output);
		CPPUNIT_ASSERT_EQUAL(std::string("psql-interop"), backend.lastStartupParameters()["application_name"]);
		CPPUNIT_ASSERT_EQUAL(2, backend.sessionsReady());
		CPPUNIT_ASSERT(waitUntil([&] { return backend.terminates() == 2; }, Poco::Timespan(1, 0)));
	}

	void testCleartextAndMd5()
	{
		if (!havePsql()) return;
		for (auto method: {BackendScript::Authentication::Cleartext, BackendScript::Authentication::Md5})
		{
			FakeBackend backend(BackendScript::primary().requirePassword(method, "pa55-word"));
			PsqlResult good = psql(backend, "pa55-word", "SELECT 1");
			CPPUNIT_ASSERT_EQUAL_MESSAGE(good.output, 0, good.status);
			CPPUNIT_ASSERT_EQUAL(std::string("1\n"), good.output);
			PsqlResult bad = psql(backend, "wrong", "SELECT 1");
			CPPUNIT_ASSERT(bad.status != 0);
			CPPUNIT_ASSERT_MESSAGE(bad.output, bad.output.find("password authentication failed for user \"alice\"") != std::string::npos);
		}
	}

	void testScram()
	{
		if (!havePsql()) return;
		FakeBackend backend(BackendScript::primary().requirePassword(BackendScript::Authentication::ScramSha256, "scram-pass"));
		PsqlResult result = psql(backend, "scram-pass", "SELECT 1");
		CPPUNIT_ASSERT_EQUAL_MESSAGE(result.output, 0, result.status);
		CPPUNIT_ASSERT_EQUAL(std::string("1\n"), result.output);
		CPPUNIT_ASSERT_EQUAL(2, backend.passwordsReceived() + 1); // one client-final-message
	}

	void testScramWrongPassword()
	{
		if (!havePsql()) return;
		FakeBackend backend(BackendScript::primary().requirePassword(BackendScript::Authentication::ScramSha256, "scram-pass"));
		PsqlResult result = psql(backend, "scram-pasS", "SELECT 1");
		CPPUNIT_ASSERT(result.status != 0);
		CPPUNIT_ASSERT_MESSAGE(result.output, result.output.find("password authentication failed for user \"alice\"") != std::string::npos);
		CPPUNIT_ASSERT_EQUAL(0, backend.sessionsReady());
	}

	void testScramCorruptServerSignature()
	{
		if (!havePsql()) return;
		BackendScript script = BackendScript::primary().requirePassword(BackendScript::Authentication::ScramSha256, "scram-pass");
		script.corruptServerSignature = true;
		FakeBackend backend(script);
		PsqlResult result = psql(backend, "scram-pass", "SELECT 1");
		CPPUNIT_ASSERT(result.status != 0);
		CPPUNIT_ASSERT_MESSAGE(result.output, result.output.find("server signature") != std::string::npos);
		CPPUNIT_ASSERT_EQUAL(0, backend.queryCount());
	}

	void testStartupErrorReachesPsql()
	{
		if (!havePsql()) return;
		FakeBackend backend(BackendScript::startingUp());
		PsqlResult result = psql(backend, "", "SELECT 1");
		CPPUNIT_ASSERT(result.status != 0);
		CPPUNIT_ASSERT_MESSAGE(result.output, result.output.find("the database system is starting up") != std::string::npos);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(PsqlInteropTest);
