//
// SubsystemPluginTest.cpp
//
// The DataSourceSubsystem and site plugins it loads and configures outside any data source
// (doc/plugin-loading.md, doc/plugins.md "Configuration"), with libBlueTuskTestMisbehavingTargetSession.so
// (testsuite/plugins): a configure() failure is redacted with the data source's own secrets; a re-open after
// a plugin library was replaced on disk fails loudly, naming the library and what to do.
//

#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/Util/DataSourceSubsystem.h"
#include "CapturingChannel.h"
#include "SubsystemTestSupport.h"
#include "Poco/File.h"
#include "Poco/FileStream.h"
#include "Poco/TemporaryFile.h"
#include <cppunit/extensions/HelperMacros.h>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

const std::string TARGET_LIBRARY = std::string(BLUETUSK_TEST_PLUGIN_DIR) + "/libBlueTuskTestMisbehavingTargetSession.so";

} // namespace


class SubsystemPluginTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(SubsystemPluginTest);
	CPPUNIT_TEST(testTargetConfigureFailureRedactedWithOwnSecrets);
	CPPUNIT_TEST(testRenameDeployedPluginReopenFailsLoudly);
	CPPUNIT_TEST_SUITE_END();

public:
	void testTargetConfigureFailureRedactedWithOwnSecrets()
	{
		// configure() is called by the subsystem outside any data source: a site target-session policy
		// echoing the data source's password in its failure is redacted with that data source's secrets, in
		// the exception and in every log line (before: the guard's log line had only the default redactor).
		LogCapture capture;
		Fixture f;
		f.set("bluetusk.plugins", std::string(BLUETUSK_TEST_PLUGIN_DIR) + "/libBlueTuskTestMisbehavingTargetSession.so");
		f.set("bluetusk.dataSources.main.connectionString", HOSTS);
		f.set("bluetusk.dataSources.main.targetSessionAttributes", "configure-leaking");
		f.set("bluetusk.dataSources.main.policy.echo", SECRET);
		DataSourceSubsystem subsystem(f.context);
		const std::string message = messageOf<BlueTuskPluginException>(subsystem, *f.config);
		CPPUNIT_ASSERT_EQUAL(std::string("bluetusk.dataSources.main.policy.*: target session policy \"configure-leaking\" "
			"(libBlueTuskTestMisbehavingTargetSession.so) failed in configure(): std::exception: configure cannot use ***"), message);
		bool logged = false;
		for (const std::string& line: capture.channel().lines())
		{
			CPPUNIT_ASSERT_MESSAGE(line, !contains(line, SECRET));
			logged = logged || contains(line, "failed in configure(): std::exception: configure cannot use ***");
		}
		CPPUNIT_ASSERT(logged);
		CPPUNIT_ASSERT(subsystem.names().empty());
	}

	void testRenameDeployedPluginReopenFailsLoudly()
	{
		// The plugin library is replaced by a rename (a new file moved over the path) while loaded: the
		// re-open fails with the library's path and "restart", logs at error that no data source is open
		// now and which were closed, and nothing stays open (before: no data source, and no word of it).
		LogCapture capture;
		Fixture f;
		Poco::TemporaryFile folder;
		folder.createDirectories();
		const std::string path = folder.path() + "/libBlueTuskTestDeployed.so";
		Poco::File(TARGET_LIBRARY).copyTo(path);
		f.set("bluetusk.plugins", path);
		f.set("bluetusk.dataSources.main.connectionString", HOSTS);
		f.set("bluetusk.dataSources.main.targetSessionAttributes", "counting");
		f.set("bluetusk.dataSources.main.policy.zone", "a");
		DataSourceSubsystem subsystem(f.context);
		subsystem.open(*f.config);
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), subsystem.names().size());

		const std::string next = path + ".new";
		Poco::File(TARGET_LIBRARY).copyTo(next);
		{
			Poco::FileOutputStream out(next, std::ios::out | std::ios::app);
			out << "another build";   // a new version: other content
		}
		Poco::File(next).renameTo(path);
		const std::string message = messageOf<BlueTuskPluginException>(subsystem, *f.config);
		CPPUNIT_ASSERT_MESSAGE(message, contains(message, "cannot load \"" + path + "\""));
		CPPUNIT_ASSERT_MESSAGE(message, contains(message, "the file changed on disk since this process loaded it"));
		CPPUNIT_ASSERT_MESSAGE(message, contains(message, "restart the process to load the new file"));
		CPPUNIT_ASSERT(subsystem.names().empty());
		CPPUNIT_ASSERT(!subsystem.isOpen());
		int logged = 0;
		for (const std::string& line: capture.channel().lines())
		{
			if (contains(line, "re-open failed: no data source is open now (closed for the re-open: main): ") && contains(line, path) &&
				contains(line, "is loaded again only by a new process: restart it")) ++logged;
		}
		CPPUNIT_ASSERT_EQUAL(1, logged);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(SubsystemPluginTest);
