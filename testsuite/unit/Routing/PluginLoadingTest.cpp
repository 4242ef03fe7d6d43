//
// PluginLoadingTest.cpp
//
// What the loader does with plugins built wrong (issue 40): a plugin cannot shadow a standard name in any
// letter case, a name repeated in one manifest and two libraries providing one name are errors naming the
// name and both libraries (with the right family), a library without the plugin ABI version or with another
// one is refused, a Plugin Path entry that does not exist is an error, and writing another library over a
// loaded plugin file neither crashes the process nor changes the loaded policy (a later load of the changed
// file is refused). The libraries are testsuite/plugins/FaultyPlugins.cpp, built into testplugins/faulty.
//

#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/HostOrderPolicy.h"
#include "BlueTusk/PluginRegistry.h"
#include "BlueTusk/RoutingContext.h"
#include "FakeRoutingContext.h"
#include "RoutingTestSupport.h"
#include "Poco/File.h"
#include "Poco/FileStream.h"
#include "Poco/Path.h"
#include "Poco/StreamCopier.h"
#include "Poco/TemporaryFile.h"
#include "PluginErrorText.h"
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

std::string faultyDir(const std::string& fault)
{
	return std::string(BLUETUSK_TEST_PLUGIN_DIR) + "/faulty/" + fault;
}


std::string faulty(const std::string& fault)
	/// The library of one fault: testplugins/faulty/<dir>/libBlueTuskTestFaulty_<fault>.so.
{
	std::string id = fault;
	std::replace(id.begin(), id.end(), '-', '_');
	const std::string dir = fault.compare(0, 7, "capped-") == 0 ? std::string("capped") : fault;
	return faultyDir(dir) + "/libBlueTuskTestFaulty_" + id + ".so";
}


std::string standardLibrary(const char* baseName)
{
	return Poco::Path(std::string(BLUETUSK_PLUGIN_BUILD_DIR) + "/" + pluginLibraryFileName(baseName)).toString();
}


std::string canonical(const std::string& path)
{
	char buffer[PATH_MAX];
	return ::realpath(path.c_str(), buffer) ? std::string(buffer) : path;
}


bool contains(const std::string& text, const std::string& part)
{
	return text.find(part) != std::string::npos;
}


std::string readFile(const std::string& path)
{
	Poco::FileInputStream in(path);
	std::string content;
	Poco::StreamCopier::copyToString(in, content);
	return content;
}


void overwriteInPlace(const std::string& path, const std::string& content)
	/// What `cp new.so loaded.so` does: the same inode, truncated and rewritten.
{
	const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC);
	CPPUNIT_ASSERT(fd >= 0);
	CPPUNIT_ASSERT_EQUAL(static_cast<ssize_t>(content.size()), ::write(fd, content.data(), content.size()));
	::close(fd);
}


std::vector<std::size_t> orderFor(const HostOrderPolicy& policy, std::size_t hosts)
{
	std::vector<HostCandidate> candidates(hosts);
	for (std::size_t i = 0; i < hosts; ++i) candidates[i].position = i;
	return policy.plan(candidates).order;
}

} // namespace


class PluginLoadingTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(PluginLoadingTest);
	CPPUNIT_TEST(testStandardLibrariesDeclareTheAbi);
	CPPUNIT_TEST(testShadowingAStandardNameIsRefused);
	CPPUNIT_TEST(testShadowingRefusedBeforeTheStandardLibraryLoads);
	CPPUNIT_TEST(testShadowingInAPluginPathDirectory);
	CPPUNIT_TEST(testNameRepeatedInOneManifest);
	CPPUNIT_TEST(testConflictingLibrariesInOneFolder);
	CPPUNIT_TEST(testConflictingLibrariesLoadedOneByOne);
	CPPUNIT_TEST(testWrongAbiVersionRefused);
	CPPUNIT_TEST(testMissingAbiVersionRefused);
	CPPUNIT_TEST(testMissingPluginPathEntry);
	CPPUNIT_TEST(testNonPluginInAPluginPathDirectory);
	CPPUNIT_TEST(testLibraryOfAnotherFamily);
	CPPUNIT_TEST(testOverwritingALoadedPlugin);
	CPPUNIT_TEST(testTruncatedLibraryRefused);
	CPPUNIT_TEST_SUITE_END();

public:
	void testStandardLibrariesDeclareTheAbi()
	{
		CPPUNIT_ASSERT_EQUAL(BLUETUSK_PLUGIN_ABI_VERSION, pluginAbiVersion());
		for (const std::string& base: standardPluginLibraries())
		{
			const PluginImage image = openPluginImage(standardLibrary(base.c_str()), "plugin library");
			CPPUNIT_ASSERT_EQUAL_MESSAGE(base, pluginAbiVersion(), image.abiVersion);
			CPPUNIT_ASSERT_MESSAGE(base, image.repeatedNames().empty());
		}
		const PluginImage reverse = openPluginImage(std::string(BLUETUSK_TEST_PLUGIN_DIR) + "/libBlueTuskTestReverseHostOrder.so", "plugin library");
		CPPUNIT_ASSERT_EQUAL(pluginAbiVersion(), reverse.abiVersion);
	}

	void testShadowingAStandardNameIsRefused()
	{
		FakeRoutingContext fake;
		const std::string message = messageOf([&] { fake.context.loadPlugin(faulty("shadow")); });
		CPPUNIT_ASSERT_EQUAL(
			"cannot load host order plugin library \"" + faulty("shadow") + "\": it provides \"Parallel\", a standard host order "
			"policy name (\"parallel\") reserved for libBlueTuskHostOrderPlugin.so (the library " +
			canonical(standardLibrary(HOST_ORDER_PLUGIN_LIBRARY)) + ")", message);
		// Host Order=Parallel still selects the standard policy, and nothing of the shadow was registered.
		CPPUNIT_ASSERT_EQUAL(std::string("parallel"), fake.context.hostOrderPolicy("Parallel")->name());
		CPPUNIT_ASSERT((fake.context.policyNames(PolicyFamily::HostOrder) == std::vector<std::string>{"parallel", "random", "sequential"}));
	}

	void testShadowingRefusedBeforeTheStandardLibraryLoads()
	{
		PluginRegistry<HostOrderPolicy> registry("host order");
		registry.reserve({"sequential", "random", "parallel"}, HOST_ORDER_PLUGIN_LIBRARY);
		const std::string message = messageOf([&] { registry.loadLibrary(faulty("shadow")); });
		CPPUNIT_ASSERT_EQUAL(
			"cannot load host order plugin library \"" + faulty("shadow") + "\": it provides \"Parallel\", a standard host order "
			"policy name (\"parallel\") reserved for libBlueTuskHostOrderPlugin.so", message);
		CPPUNIT_ASSERT(registry.names().empty());
		// The standard library itself may provide its names.
		registry.loadLibrary(standardLibrary(HOST_ORDER_PLUGIN_LIBRARY));
		CPPUNIT_ASSERT((registry.names() == std::vector<std::string>{"parallel", "random", "sequential"}));
	}

	void testShadowingInAPluginPathDirectory()
	{
		FakeRoutingContext fake;
		const std::string message = messageOf([&]
		{
			BlueTuskDataSource::create(fakeConnectionString("a", "Host Order=Parallel;Plugin Path=" + faultyDir("shadow")), fake.context);
		});
		CPPUNIT_ASSERT_MESSAGE(message, contains(message, "cannot load host order plugin library \"" + faulty("shadow") + "\": it provides \"Parallel\""));
		CPPUNIT_ASSERT_MESSAGE(message, contains(message, "reserved for libBlueTuskHostOrderPlugin.so"));
		CPPUNIT_ASSERT_EQUAL(0, fake.world->totalOpens());
	}

	void testNameRepeatedInOneManifest()
	{
		FakeRoutingContext fake;
		const std::string message = messageOf([&] { fake.context.loadPlugin(faulty("repeated")); });
		CPPUNIT_ASSERT_EQUAL("cannot load host order plugin library \"" + faulty("repeated") + "\": its manifest exports \"twice\" more than once", message);
		const std::vector<std::string> names = fake.context.policyNames(PolicyFamily::HostOrder);
		CPPUNIT_ASSERT(std::find(names.begin(), names.end(), "twice") == names.end());
	}

	void testConflictingLibrariesInOneFolder()
	{
		// Two eviction plugins providing "capped" in one Plugin Path folder: an eviction error naming both
		// libraries (not a "host order ... another base class" message), and no data source.
		FakeRoutingContext fake;
		const std::string message = messageOf([&]
		{
			BlueTuskDataSource::create(fakeConnectionString("a", "Eviction Policy=capped;Plugin Path=" + faultyDir("capped")), fake.context);
		});
		CPPUNIT_ASSERT_EQUAL("cannot load eviction plugin library \"" + faulty("capped-b") + "\": it provides \"capped\", which the library " +
			canonical(faulty("capped-a")) + " already provides", message);
	}

	void testConflictingLibrariesLoadedOneByOne()
	{
		FakeRoutingContext fake;
		fake.context.loadPlugin(faulty("capped-b"));
		const std::string message = messageOf([&] { fake.context.loadPlugin(faulty("capped-a")); });
		CPPUNIT_ASSERT_EQUAL("cannot load eviction plugin library \"" + faulty("capped-a") + "\": it provides \"capped\", which the library " +
			canonical(faulty("capped-b")) + " already provides", message);
		CPPUNIT_ASSERT_EQUAL(std::string("capped"), fake.context.evictionPolicy("capped")->name());
		CPPUNIT_ASSERT_EQUAL(std::string("capped"), fake.context.evictionPolicy("CAPPED")->name());
	}

	void testWrongAbiVersionRefused()
	{
		FakeRoutingContext fake;
		const std::string message = messageOf([&] { fake.context.loadPlugin(faulty("wrong-abi")); });
		CPPUNIT_ASSERT_EQUAL("cannot load plugin library \"" + faulty("wrong-abi") + "\": it was built for BlueTusk plugin ABI version 999; "
			"this BlueTusk expects plugin ABI version " + std::to_string(BLUETUSK_PLUGIN_ABI_VERSION) + " (rebuild it against this BlueTusk)", message);
		const std::vector<std::string> names = fake.context.policyNames(PolicyFamily::HostOrder);
		CPPUNIT_ASSERT(std::find(names.begin(), names.end(), "fastest") == names.end());
		// The same refusal from a registry, and again on a second attempt (never loaded half-way).
		PluginRegistry<HostOrderPolicy> registry("host order");
		const std::string again = messageOf([&] { registry.loadLibrary(faulty("wrong-abi")); });
		CPPUNIT_ASSERT_MESSAGE(again, contains(again, "cannot load host order plugin library \"" + faulty("wrong-abi") + "\": it was built for BlueTusk plugin ABI version 999"));
		CPPUNIT_ASSERT(registry.names().empty());
	}

	void testMissingAbiVersionRefused()
	{
		FakeRoutingContext fake;
		const std::string message = messageOf([&] { fake.context.loadPlugin(faulty("no-abi")); });
		CPPUNIT_ASSERT_EQUAL("cannot load plugin library \"" + faulty("no-abi") + "\": it declares no BlueTusk plugin ABI version (add "
			"BLUETUSK_PLUGIN_ABI(); beside its manifest); this BlueTusk expects plugin ABI version " + std::to_string(BLUETUSK_PLUGIN_ABI_VERSION), message);
	}

	void testMissingPluginPathEntry()
	{
		FakeRoutingContext fake;
		const std::string message = messageOf([&]
		{
			BlueTuskDataSource::create(fakeConnectionString("a", "Plugin Path=" + std::string(BLUETUSK_TEST_PLUGIN_DIR) + ",/nonexistent/site-plugins"), fake.context);
		});
		CPPUNIT_ASSERT_EQUAL(std::string("Plugin Path entry \"/nonexistent/site-plugins\" does not exist (neither a plugin library file nor a directory)"), message);
	}

	void testNonPluginInAPluginPathDirectory()
	{
		// Every library in a Plugin Path directory is a plugin: one without a manifest is an error, not skipped.
		Poco::TemporaryFile dir;
		dir.createDirectories();
		const std::string file = dir.path() + "/libHelper.so";
		Poco::File(std::string(BLUETUSK_BINARY_DIR) + "/lib/libBlueTuskFoundation.so").copyTo(file);
		FakeRoutingContext fake;
		const std::string message = messageOf([&]
		{
			BlueTuskDataSource::create(fakeConnectionString("a", "Plugin Path=" + dir.path()), fake.context);
		});
		CPPUNIT_ASSERT_EQUAL("cannot load plugin library \"" + file + "\": it exports no Poco class manifest (POCO_BEGIN_MANIFEST)", message);
	}

	void testLibraryOfAnotherFamily()
	{
		PluginRegistry<HostOrderPolicy> registry("host order");
		CPPUNIT_ASSERT_EQUAL("cannot load host order plugin library \"" + faulty("capped-a") + "\": its manifest is for another base class "
			"than this policy family", messageOf([&] { registry.loadLibrary(faulty("capped-a")); }));
		CPPUNIT_ASSERT(registry.names().empty());
	}

	void testOverwritingALoadedPlugin()
	{
		// Copy the reverse plugin away, load it, then write another plugin over the file the way cp does.
		Poco::TemporaryFile dir;
		dir.createDirectories();
		const std::string file = dir.path() + "/libSiteHostOrder.so";
		Poco::File(std::string(BLUETUSK_TEST_PLUGIN_DIR) + "/libBlueTuskTestReverseHostOrder.so").copyTo(file);
		FakeRoutingContext fake;
		fake.context.loadPlugin(file);
		HostOrderPolicy::Ptr policy = fake.context.hostOrderPolicy("reverse");
		CPPUNIT_ASSERT((orderFor(*policy, 3) == std::vector<std::size_t>{2, 1, 0}));

		overwriteInPlace(file, readFile(faulty("first")));

		// The loaded policy runs its own code still: no crash, same plans, and connections route with it.
		CPPUNIT_ASSERT((orderFor(*policy, 3) == std::vector<std::size_t>{2, 1, 0}));
		CPPUNIT_ASSERT((orderFor(*fake.context.createHostOrderPolicy("reverse"), 2) == std::vector<std::size_t>{1, 0}));
		BlueTuskConnection connection = BlueTuskConnection::open(fakeConnectionString("a,b,c", "Host Order=reverse"), fake.context);
		CPPUNIT_ASSERT_EQUAL(std::string("c"), connection.connectedEndpoint().host());

		// Loading the changed file again is refused, in this context and in any other (the process keeps the
		// copy it loaded first; a restart loads the new file).
		const std::string expected = "cannot load plugin library \"" + file + "\": the file changed on disk since this process loaded it; "
			"the copy loaded then stays in use (restart the process to load the new file)";
		CPPUNIT_ASSERT_EQUAL(expected, messageOf([&] { fake.context.loadPlugin(file); }));
		FakeRoutingContext other;
		CPPUNIT_ASSERT_EQUAL(expected, messageOf([&] { other.context.loadPlugin(file); }));
		const std::vector<std::string> names = fake.context.policyNames(PolicyFamily::HostOrder);
		CPPUNIT_ASSERT(std::find(names.begin(), names.end(), "first") == names.end());
		CPPUNIT_ASSERT(std::find(names.begin(), names.end(), "reverse") != names.end());
	}

	void testTruncatedLibraryRefused()
	{
		// A library cut short (a copy still being written while a process starts) is refused with an error:
		// dlopen() itself would die of SIGBUS filling a segment that reaches past the end of the file.
		Poco::TemporaryFile dir;
		dir.createDirectories();
		const std::string whole = readFile(std::string(BLUETUSK_TEST_PLUGIN_DIR) + "/libBlueTuskTestReverseHostOrder.so");
		// Where its last loadable segment ends (debug sections and the section table follow, unneeded by dlopen).
		Elf64_Ehdr header;
		std::memcpy(&header, whole.data(), sizeof(header));
		std::size_t loadEnd = 0;
		for (unsigned index = 0; index < header.e_phnum; ++index)
		{
			Elf64_Phdr segment;
			std::memcpy(&segment, whole.data() + header.e_phoff + index * header.e_phentsize, sizeof(segment));
			if (segment.p_type == PT_LOAD) loadEnd = std::max<std::size_t>(loadEnd, segment.p_offset + segment.p_filesz);
		}
		CPPUNIT_ASSERT(loadEnd > 1000 && loadEnd <= whole.size());
		for (const std::size_t size: {loadEnd - 1, loadEnd / 2, std::size_t(100)})
		{
			const std::string file = dir.path() + "/libCut" + std::to_string(size) + ".so";
			{
				Poco::FileOutputStream out(file);
				out.write(whole.data(), static_cast<std::streamsize>(size));
			}
			FakeRoutingContext fake;
			const std::string message = messageOf([&] { fake.context.loadPlugin(file); });
			const std::string expected = "cannot load plugin library \"" + file + "\": not a whole shared library: ";
			CPPUNIT_ASSERT_MESSAGE(message, message.compare(0, expected.size(), expected) == 0);
			CPPUNIT_ASSERT_MESSAGE(message, contains(message, "truncated"));
			const std::vector<std::string> names = fake.context.policyNames(PolicyFamily::HostOrder);
			CPPUNIT_ASSERT(std::find(names.begin(), names.end(), "reverse") == names.end());
		}
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(PluginLoadingTest);
