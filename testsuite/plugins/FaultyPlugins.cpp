//
// FaultyPlugins.cpp
//
// Site plugins built wrong on purpose, for the loader's fault tests (PluginLoadingTest): one source, one
// library per BLUETUSK_FAULTY_PLUGIN value, each in its own directory under <build>/testplugins/faulty.
//   shadow      a host order "Parallel" (a standard name in another letter case)
//   repeated    a host order manifest that exports "twice" two times
//   capped-a    an eviction policy "capped"
//   capped-b    another library with an eviction policy "capped" (conflicts with capped-a)
//   wrong-abi   a host order "fastest" declaring plugin ABI version 999
//   no-abi      a host order "fastest" declaring no plugin ABI version
//   first       a host order "first" (only the first host): the overwrite test's replacement file
//

#include "BlueTusk/EvictionPolicy.h"
#include "BlueTusk/HostOrderPolicy.h"
#include "BlueTusk/PluginRegistry.h"
#include "Poco/ClassLibrary.h"

#define FAULT_IS(name) (BLUETUSK_FAULTY_PLUGIN == BLUETUSK_FAULT_##name)
#define BLUETUSK_FAULT_shadow 1
#define BLUETUSK_FAULT_repeated 2
#define BLUETUSK_FAULT_capped_a 3
#define BLUETUSK_FAULT_capped_b 4
#define BLUETUSK_FAULT_wrong_abi 5
#define BLUETUSK_FAULT_no_abi 6
#define BLUETUSK_FAULT_first 7

namespace {

class NamedHostOrder: public BlueTusk::HostOrderPolicy
	/// Tries the hosts in order, or only the first one for "first".
{
public:
	explicit NamedHostOrder(const std::string& name): _name(name)
	{
	}

	std::string name() const override
	{
		return _name;
	}

	BlueTusk::HostOrderPlan plan(const std::vector<BlueTusk::HostCandidate>& candidates) const override
	{
		BlueTusk::HostOrderPlan plan;
		const std::size_t count = _name == "first" ? std::min<std::size_t>(1, candidates.size()) : candidates.size();
		for (std::size_t i = 0; i < count; ++i) plan.order.push_back(i);
		plan.concurrency = 1;
		return plan;
	}

private:
	std::string _name;
};

class ShadowParallel: public NamedHostOrder { public: ShadowParallel(): NamedHostOrder("Parallel") {} };
class TwiceOne: public NamedHostOrder { public: TwiceOne(): NamedHostOrder("twice") {} };
class TwiceTwo: public NamedHostOrder { public: TwiceTwo(): NamedHostOrder("twice") {} };
class Fastest: public NamedHostOrder { public: Fastest(): NamedHostOrder("fastest") {} };
class First: public NamedHostOrder { public: First(): NamedHostOrder("first") {} };


class CappedEviction: public BlueTusk::EvictionPolicy
	/// Keeps every session; evicts nothing.
{
public:
	std::string name() const override
	{
		return "capped";
	}

	bool keepOnReturn(const BlueTusk::PooledSessionInfo&, const BlueTusk::PoolSizeInfo&, const BlueTusk::ConnectionSettings&, Poco::Timestamp) const override
	{
		return true;
	}

	std::vector<std::size_t> selectForEviction(const std::vector<BlueTusk::PooledSessionInfo>&, const BlueTusk::PoolSizeInfo&,
		const BlueTusk::ConnectionSettings&, Poco::Timestamp) const override
	{
		return {};
	}
};

} // namespace


#if FAULT_IS(shadow)
POCO_BEGIN_MANIFEST(BlueTusk::HostOrderPolicy)
	POCO_EXPORT_INTERFACE(ShadowParallel, "Parallel")
POCO_END_MANIFEST
BLUETUSK_PLUGIN_ABI();
#elif FAULT_IS(repeated)
POCO_BEGIN_MANIFEST(BlueTusk::HostOrderPolicy)
	POCO_EXPORT_INTERFACE(TwiceOne, "twice")
	POCO_EXPORT_INTERFACE(TwiceTwo, "twice")
POCO_END_MANIFEST
BLUETUSK_PLUGIN_ABI();
#elif FAULT_IS(capped_a) || FAULT_IS(capped_b)
POCO_BEGIN_MANIFEST(BlueTusk::EvictionPolicy)
	POCO_EXPORT_INTERFACE(CappedEviction, "capped")
POCO_END_MANIFEST
BLUETUSK_PLUGIN_ABI();
#elif FAULT_IS(wrong_abi)
POCO_BEGIN_MANIFEST(BlueTusk::HostOrderPolicy)
	POCO_EXPORT_INTERFACE(Fastest, "fastest")
POCO_END_MANIFEST
extern "C" POCO_LIBRARY_API int bluetuskPluginAbiVersion() { return 999; } // built for another BlueTusk
#elif FAULT_IS(no_abi)
POCO_BEGIN_MANIFEST(BlueTusk::HostOrderPolicy)
	POCO_EXPORT_INTERFACE(Fastest, "fastest")
POCO_END_MANIFEST
#elif FAULT_IS(first)
POCO_BEGIN_MANIFEST(BlueTusk::HostOrderPolicy)
	POCO_EXPORT_INTERFACE(First, "first")
POCO_END_MANIFEST
BLUETUSK_PLUGIN_ABI();
#else
#error "BLUETUSK_FAULTY_PLUGIN names no known fault"
#endif
