//
// MisbehavingTargetSession.cpp
//
// A site target-session plugin built only for the test suite, broken on purpose (doc/plugin-calls.md, "Where and
// how policies are called"). Every policy needs the role and accepts every role in classify(role), so a
// data source can be created with it:
//   "classify-throwing"      classify(role, endpoint) throws std::runtime_error("classify broke on purpose");
//   "classify-throwing-int"  classify(role, endpoint) throws an int (neither Poco nor std);
//   "classify-leaking"       classify(role, endpoint) throws a std::runtime_error whose text holds the unit
//                            tests' password, "s3cret-Pw!" (a policy that echoes what it was given);
//   "needs-role-throwing"    needsRole() throws std::runtime_error("needsRole broke on purpose");
//   "classify-sleepy"        classify(role, endpoint) accepts, after sleeping for the calls
//                            bluetuskTestSleepClassifyNext() asked for; classify(role) likewise, for
//                            bluetuskTestSleepRoleClassifyNext()'s.
//   "counting"               accepts every role; counts its name() and classify() calls
//                            (bluetuskTestTargetCalls());
//   "name-throwing"          name() throws std::runtime_error("name broke on purpose");
//   "name-sleepy"            name() sleeps for the calls bluetuskTestSleepNameNext() asked for;
//   "configure-throwing"     configure() throws std::runtime_error("configure broke on purpose");
//   "configure-leaking"      configure() throws a std::runtime_error echoing its "echo" property (a test
//                            sets the data source's password there: a policy echoing what it was given);
//   "classify-stuck"         classify(role, endpoint) blocks until bluetuskTestReleaseStuck(1) (at most 30 s,
//                            so a failed test cannot hang the suite); bluetuskTestStuckNow() counts the
//                            calls blocked now;
//   "classify-throwing-on-b" classify(role, endpoint) throws std::runtime_error("classify broke on purpose
//                            for b") for host "b" only and accepts every other host.
// Only the public headers are used, the way a site would write one.
//

#include "BlueTusk/TargetSessionPolicy.h"
#include "BlueTusk/PluginRegistry.h"
#include "Poco/ClassLibrary.h"
#include "Poco/Util/AbstractConfiguration.h"
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace {

std::atomic<int> sleepyClassifies{0};   /// calls of "classify-sleepy" still to sleep
std::atomic<int> sleepyRoleClassifies{0};   /// calls of "classify-sleepy"'s classify(role) still to sleep
std::atomic<int> classifySleepMs{0};
std::atomic<int> sleepyNames{0};   /// calls of "name-sleepy"'s name() still to sleep
std::atomic<int> countedNames{0};       /// name() calls of "counting" objects
std::atomic<int> countedClassifies{0};  /// classify() calls (either form) of "counting" objects

class ClassifyThrowing: public BlueTusk::TargetSessionPolicy
{
public:
	std::string name() const override
	{
		return "classify-throwing";
	}

	bool needsRole() const override
	{
		return true;
	}

	BlueTusk::RoleVerdict classify(BlueTusk::ServerRole) const override
	{
		return BlueTusk::RoleVerdict::Accept;
	}

	BlueTusk::RoleVerdict classify(BlueTusk::ServerRole, const BlueTusk::BlueTuskHostEndpoint&) const override
	{
		throw std::runtime_error("classify broke on purpose");
	}
};


class ClassifyThrowingInt: public ClassifyThrowing
{
public:
	std::string name() const override
	{
		return "classify-throwing-int";
	}

	BlueTusk::RoleVerdict classify(BlueTusk::ServerRole role) const override
	{
		return ClassifyThrowing::classify(role);
	}

	BlueTusk::RoleVerdict classify(BlueTusk::ServerRole, const BlueTusk::BlueTuskHostEndpoint&) const override
	{
		throw 42;
	}
};


class NeedsRoleThrowing: public ClassifyThrowing
{
public:
	std::string name() const override
	{
		return "needs-role-throwing";
	}

	bool needsRole() const override
	{
		throw std::runtime_error("needsRole broke on purpose");
	}
};


class ClassifySleepy: public ClassifyThrowing
{
public:
	std::string name() const override
	{
		return "classify-sleepy";
	}

	BlueTusk::RoleVerdict classify(BlueTusk::ServerRole) const override
	{
		if (sleepyRoleClassifies.fetch_sub(1) > 0) std::this_thread::sleep_for(std::chrono::milliseconds(classifySleepMs.load()));
		return BlueTusk::RoleVerdict::Accept;
	}

	BlueTusk::RoleVerdict classify(BlueTusk::ServerRole, const BlueTusk::BlueTuskHostEndpoint&) const override
	{
		if (sleepyClassifies.fetch_sub(1) > 0) std::this_thread::sleep_for(std::chrono::milliseconds(classifySleepMs.load()));
		return BlueTusk::RoleVerdict::Accept;
	}
};

class Counting: public ClassifyThrowing
{
public:
	std::string name() const override
	{
		++countedNames;
		return "counting";
	}

	BlueTusk::RoleVerdict classify(BlueTusk::ServerRole) const override
	{
		++countedClassifies;
		return BlueTusk::RoleVerdict::Accept;
	}

	BlueTusk::RoleVerdict classify(BlueTusk::ServerRole, const BlueTusk::BlueTuskHostEndpoint&) const override
	{
		++countedClassifies;
		return BlueTusk::RoleVerdict::Accept;
	}
};


class NameThrowing: public ClassifyThrowing
{
public:
	std::string name() const override
	{
		throw std::runtime_error("name broke on purpose");
	}

	BlueTusk::RoleVerdict classify(BlueTusk::ServerRole, const BlueTusk::BlueTuskHostEndpoint&) const override
	{
		return BlueTusk::RoleVerdict::Accept;
	}
};


class NameSleepy: public ClassifyThrowing
{
public:
	std::string name() const override
	{
		if (sleepyNames.fetch_sub(1) > 0) std::this_thread::sleep_for(std::chrono::milliseconds(classifySleepMs.load()));
		return "name-sleepy";
	}

	BlueTusk::RoleVerdict classify(BlueTusk::ServerRole, const BlueTusk::BlueTuskHostEndpoint&) const override
	{
		return BlueTusk::RoleVerdict::Accept;
	}
};


class ConfigureThrowing: public ClassifyThrowing
{
public:
	std::string name() const override
	{
		return "configure-throwing";
	}

	BlueTusk::RoleVerdict classify(BlueTusk::ServerRole, const BlueTusk::BlueTuskHostEndpoint&) const override
	{
		return BlueTusk::RoleVerdict::Accept;
	}

	void configure(const Poco::Util::AbstractConfiguration&) override
	{
		throw std::runtime_error("configure broke on purpose");
	}
};


class ConfigureLeaking: public ConfigureThrowing
{
public:
	std::string name() const override
	{
		return "configure-leaking";
	}

	void configure(const Poco::Util::AbstractConfiguration& config) override
	{
		throw std::runtime_error("configure cannot use " + config.getString("echo", "(no echo)"));
	}
};

} // namespace


extern "C" __attribute__((visibility("default"))) void bluetuskTestSleepRoleClassifyNext(int calls, int milliseconds)
	/// The next calls classify(role) calls of "classify-sleepy" sleep milliseconds each.
{
	classifySleepMs = milliseconds;
	sleepyRoleClassifies = calls;
}


extern "C" __attribute__((visibility("default"))) void bluetuskTestSleepNameNext(int calls, int milliseconds)
	/// The next calls name() calls of "name-sleepy" sleep milliseconds each.
{
	classifySleepMs = milliseconds;
	sleepyNames = calls;
}


extern "C" __attribute__((visibility("default"))) void bluetuskTestTargetCalls(int* names, int* classifies)
	/// The name() and classify() calls of "counting" objects so far.
{
	*names = countedNames.load();
	*classifies = countedClassifies.load();
}


extern "C" __attribute__((visibility("default"))) void bluetuskTestSleepClassifyNext(int calls, int milliseconds)
	/// The next calls classify(role, endpoint) calls of "classify-sleepy" sleep milliseconds each.
{
	classifySleepMs = milliseconds;
	sleepyClassifies = calls;
}


namespace {

std::mutex stuckMutex;
std::condition_variable stuckWake;
bool stuckReleased = false;   /// under stuckMutex
std::atomic<int> stuckNow{0};   /// "classify-stuck" calls blocked now


class ClassifyStuck: public ClassifyThrowing
{
public:
	std::string name() const override
	{
		return "classify-stuck";
	}

	BlueTusk::RoleVerdict classify(BlueTusk::ServerRole) const override
	{
		return BlueTusk::RoleVerdict::Accept;
	}

	BlueTusk::RoleVerdict classify(BlueTusk::ServerRole, const BlueTusk::BlueTuskHostEndpoint&) const override
	{
		++stuckNow;
		std::unique_lock<std::mutex> lock(stuckMutex);
		stuckWake.wait_for(lock, std::chrono::seconds(30), []() { return stuckReleased; });
		--stuckNow;
		return BlueTusk::RoleVerdict::Accept;
	}
};


class ClassifyThrowingOnB: public ClassifyThrowing
{
public:
	std::string name() const override
	{
		return "classify-throwing-on-b";
	}

	BlueTusk::RoleVerdict classify(BlueTusk::ServerRole) const override
	{
		return BlueTusk::RoleVerdict::Accept;
	}

	BlueTusk::RoleVerdict classify(BlueTusk::ServerRole, const BlueTusk::BlueTuskHostEndpoint& endpoint) const override
	{
		if (endpoint.host() == "b") throw std::runtime_error("classify broke on purpose for b");
		return BlueTusk::RoleVerdict::Accept;
	}
};

} // namespace


extern "C" __attribute__((visibility("default"))) void bluetuskTestReleaseStuck(int release)
	/// release 1: every blocked "classify-stuck" call returns, and later ones do not block; 0: they block again.
{
	{
		std::lock_guard<std::mutex> lock(stuckMutex);
		stuckReleased = release != 0;
	}
	stuckWake.notify_all();
}


extern "C" __attribute__((visibility("default"))) int bluetuskTestStuckNow()
	/// The "classify-stuck" calls blocked now.
{
	return stuckNow.load();
}


namespace {

class ClassifyLeaking: public ClassifyThrowing
{
public:
	std::string name() const override
	{
		return "classify-leaking";
	}

	BlueTusk::RoleVerdict classify(BlueTusk::ServerRole, const BlueTusk::BlueTuskHostEndpoint&) const override
	{
		throw std::runtime_error("cannot log in with password s3cret-Pw! here");
	}
};

} // namespace


POCO_BEGIN_MANIFEST(BlueTusk::TargetSessionPolicy)
	POCO_EXPORT_INTERFACE(ClassifyThrowing, "classify-throwing")
	POCO_EXPORT_INTERFACE(ClassifyThrowingInt, "classify-throwing-int")
	POCO_EXPORT_INTERFACE(ClassifyLeaking, "classify-leaking")
	POCO_EXPORT_INTERFACE(NeedsRoleThrowing, "needs-role-throwing")
	POCO_EXPORT_INTERFACE(ClassifySleepy, "classify-sleepy")
	POCO_EXPORT_INTERFACE(Counting, "counting")
	POCO_EXPORT_INTERFACE(NameThrowing, "name-throwing")
	POCO_EXPORT_INTERFACE(NameSleepy, "name-sleepy")
	POCO_EXPORT_INTERFACE(ConfigureThrowing, "configure-throwing")
	POCO_EXPORT_INTERFACE(ConfigureLeaking, "configure-leaking")
	POCO_EXPORT_INTERFACE(ClassifyStuck, "classify-stuck")
	POCO_EXPORT_INTERFACE(ClassifyThrowingOnB, "classify-throwing-on-b")
POCO_END_MANIFEST

BLUETUSK_PLUGIN_ABI();
