//
// PluginRegistryTest.cpp
//
// PluginRegistry<Base> with built-in classes, and its error messages for libraries that cannot be loaded.
//

#include "BlueTusk/PluginRegistry.h"
#include "Poco/File.h"
#include "Poco/FileStream.h"
#include "Poco/TemporaryFile.h"
#include "PluginErrorText.h"
#include <cppunit/extensions/HelperMacros.h>
#include <atomic>
#include <thread>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

class Greeter
{
public:
	virtual ~Greeter() = default;
	virtual std::string greet() const = 0;
};


class Hello: public Greeter
{
public:
	std::string greet() const override { return "hello"; }
};


class Bonjour: public Greeter
{
public:
	std::string greet() const override { return "bonjour"; }
};


bool contains(const std::string& text, const std::string& part)
{
	return text.find(part) != std::string::npos;
}

} // namespace


class PluginRegistryTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(PluginRegistryTest);
	CPPUNIT_TEST(testBuiltins);
	CPPUNIT_TEST(testUnknownNameListsAvailable);
	CPPUNIT_TEST(testUnknownNameWhenEmpty);
	CPPUNIT_TEST(testDuplicateBuiltin);
	CPPUNIT_TEST(testNamesUniqueInAnyLetterCase);
	CPPUNIT_TEST(testNullFactory);
	CPPUNIT_TEST(testMissingLibrary);
	CPPUNIT_TEST(testNotALibrary);
	CPPUNIT_TEST(testLibraryWithoutManifest);
	CPPUNIT_TEST(testObjectsOutliveRegistry);
	CPPUNIT_TEST(testConcurrentUse);
	CPPUNIT_TEST_SUITE_END();

public:
	void testBuiltins()
	{
		PluginRegistry<Greeter> registry("greeter");
		CPPUNIT_ASSERT_EQUAL(std::string("greeter"), registry.family());
		CPPUNIT_ASSERT(registry.names().empty());
		registry.addBuiltin("hello", [] { return std::make_shared<Hello>(); });
		registry.addBuiltin("bonjour", [] { return std::make_shared<Bonjour>(); });
		const std::vector<std::string> expected = {"bonjour", "hello"};
		CPPUNIT_ASSERT(registry.names() == expected);
		CPPUNIT_ASSERT(registry.has("hello"));
		CPPUNIT_ASSERT(!registry.has("Hello"));
		CPPUNIT_ASSERT_EQUAL(std::string("hello"), registry.create("hello")->greet());
		CPPUNIT_ASSERT_EQUAL(std::string("bonjour"), registry.create("bonjour")->greet());
		CPPUNIT_ASSERT(registry.create("hello") != registry.create("hello"));
		CPPUNIT_ASSERT_EQUAL(std::string("a built-in class"), registry.providerOf("hello"));
		CPPUNIT_ASSERT_EQUAL(std::string(), registry.providerOf("hola"));
		CPPUNIT_ASSERT(registry.libraries().empty());
	}

	void testUnknownNameListsAvailable()
	{
		PluginRegistry<Greeter> registry("greeter");
		registry.addBuiltin("hello", [] { return std::make_shared<Hello>(); });
		registry.addBuiltin("bonjour", [] { return std::make_shared<Bonjour>(); });
		CPPUNIT_ASSERT_EQUAL(std::string("no greeter policy named \"hola\"; available: bonjour, hello"),
			messageOf([&] { registry.create("hola"); }));
	}

	void testUnknownNameWhenEmpty()
	{
		PluginRegistry<Greeter> registry;
		CPPUNIT_ASSERT_EQUAL(std::string("no policy named \"parallel\"; available: none (no plugin library loaded)"),
			messageOf([&] { registry.create("parallel"); }));
	}

	void testDuplicateBuiltin()
	{
		PluginRegistry<Greeter> registry("greeter");
		registry.addBuiltin("hello", [] { return std::make_shared<Hello>(); });
		const std::string message = messageOf([&] { registry.addBuiltin("hello", [] { return std::make_shared<Bonjour>(); }); });
		CPPUNIT_ASSERT_EQUAL(std::string("cannot add the built-in greeter policy \"hello\": a built-in class already provides it"), message);
		CPPUNIT_ASSERT_EQUAL(std::string("hello"), registry.create("hello")->greet());
	}

	void testNamesUniqueInAnyLetterCase()
	{
		PluginRegistry<Greeter> registry("greeter");
		registry.addBuiltin("hello", [] { return std::make_shared<Hello>(); });
		CPPUNIT_ASSERT_EQUAL(std::string("cannot add the built-in greeter policy \"Hello\": a built-in class already provides it"),
			messageOf([&] { registry.addBuiltin("Hello", [] { return std::make_shared<Bonjour>(); }); }));
		CPPUNIT_ASSERT((registry.names() == std::vector<std::string>{"hello"}));
		CPPUNIT_ASSERT_EQUAL(std::string("hello"), registry.create("hello")->greet());
	}

	void testNullFactory()
	{
		PluginRegistry<Greeter> registry("greeter");
		registry.addBuiltin("nothing", [] { return std::shared_ptr<Greeter>(); });
		CPPUNIT_ASSERT_EQUAL(std::string("the built-in greeter policy \"nothing\" returned no object"),
			messageOf([&] { registry.create("nothing"); }));
	}

	void testMissingLibrary()
	{
		PluginRegistry<Greeter> registry("greeter");
		const std::string message = messageOf([&] { registry.loadLibrary("/nonexistent/libNoSuchPlugin.so"); });
		CPPUNIT_ASSERT_EQUAL(std::string("cannot load greeter plugin library \"/nonexistent/libNoSuchPlugin.so\": no such file"), message);
		CPPUNIT_ASSERT(registry.libraries().empty());
	}

	void testNotALibrary()
	{
		Poco::TemporaryFile file;
		{
			Poco::FileOutputStream out(file.path());
			out << "this is not an ELF file\n";
		}
		PluginRegistry<Greeter> registry("greeter");
		const std::string message = messageOf([&] { registry.loadLibrary(file.path()); });
		CPPUNIT_ASSERT_MESSAGE(message, contains(message, "cannot load greeter plugin library \"" + file.path() + "\": "));
		CPPUNIT_ASSERT_MESSAGE(message, contains(message, "Cannot load library"));
		CPPUNIT_ASSERT(registry.libraries().empty());
	}

	void testLibraryWithoutManifest()
	{
		// The Foundation library itself is a valid shared library without a Poco manifest.
		const std::string path = std::string(BLUETUSK_BINARY_DIR) + "/lib/libBlueTuskFoundation.so";
		CPPUNIT_ASSERT(Poco::File(path).exists());
		PluginRegistry<Greeter> registry("greeter");
		const std::string message = messageOf([&] { registry.loadLibrary(path); });
		CPPUNIT_ASSERT_MESSAGE(message, contains(message, "cannot load greeter plugin library \"" + path + "\": "));
		CPPUNIT_ASSERT_MESSAGE(message, contains(message, "it exports no Poco class manifest"));
		CPPUNIT_ASSERT(registry.libraries().empty());
	}

	void testObjectsOutliveRegistry()
	{
		std::shared_ptr<Greeter> survivor;
		{
			PluginRegistry<Greeter> registry("greeter");
			registry.addBuiltin("hello", [] { return std::make_shared<Hello>(); });
			survivor = registry.create("hello");
		}
		CPPUNIT_ASSERT_EQUAL(std::string("hello"), survivor->greet());
	}

	void testConcurrentUse()
	{
		PluginRegistry<Greeter> registry("greeter");
		std::atomic<int> created(0);
		std::vector<std::thread> threads;
		for (int t = 0; t < 4; ++t)
		{
			threads.emplace_back([&registry, &created, t]
			{
				registry.addBuiltin("hello" + std::to_string(t), [] { return std::make_shared<Hello>(); });
				for (int i = 0; i < 200; ++i)
				{
					if (registry.create("hello" + std::to_string(t))->greet() == "hello") ++created;
					registry.names();
				}
			});
		}
		for (auto& thread: threads) thread.join();
		CPPUNIT_ASSERT_EQUAL(800, created.load());
		CPPUNIT_ASSERT_EQUAL(std::size_t(4), registry.names().size());
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(PluginRegistryTest);
