//
// MisbehavingTargetSession.cpp
//
// A site target-session plugin built only for the test suite, broken on purpose (doc/plugins.md, "Where and
// how policies are called"). Every policy needs the role and accepts every role in classify(role), so a
// data source can be created with it:
//   "classify-throwing"      classify(role, endpoint) throws std::runtime_error("classify broke on purpose");
//   "classify-throwing-int"  classify(role, endpoint) throws an int (neither Poco nor std);
//   "needs-role-throwing"    needsRole() throws std::runtime_error("needsRole broke on purpose").
// Only the public headers are used, the way a site would write one.
//

#include "BlueTusk/TargetSessionPolicy.h"
#include "BlueTusk/PluginRegistry.h"
#include "Poco/ClassLibrary.h"
#include <stdexcept>

namespace {

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

} // namespace


POCO_BEGIN_MANIFEST(BlueTusk::TargetSessionPolicy)
	POCO_EXPORT_INTERFACE(ClassifyThrowing, "classify-throwing")
	POCO_EXPORT_INTERFACE(ClassifyThrowingInt, "classify-throwing-int")
	POCO_EXPORT_INTERFACE(NeedsRoleThrowing, "needs-role-throwing")
POCO_END_MANIFEST

BLUETUSK_PLUGIN_ABI();
